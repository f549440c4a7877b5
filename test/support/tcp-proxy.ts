import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (PostgreSQL, Redis), to cut it off from the app:
 * `forward` pipes every connection to the server; `blackhole` accepts connections and never
 * answers; `refuse()` closes the listening socket so new connections are refused.
 */
export class TcpProxy {
  mode: 'forward' | 'blackhole' = 'forward';
  port = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();

  /** `target.localAddress`: the address the proxy connects from (127.0.0.2: another host, as the server sees it). */
  constructor(private readonly target: { host: string; port: number; localAddress?: string }) {}

  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Listens on 127.0.0.1 (the previous port when re-opened, else an ephemeral one). */
  async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening (new connections are refused) and destroys every open connection. */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.destroyAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Established connections stop carrying data in both directions (a silent network). */
  freeze(): void {
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'blackhole') return; // accepted, never read, never answered
    const upstream = connect(this.target);
    this.track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const close = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
  }
}
