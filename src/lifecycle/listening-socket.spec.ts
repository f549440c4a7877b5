import { createServer, type Server } from 'node:net';
import { assertCanListen, formatAddress } from './listening-socket';

async function listen(host: string, port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  return server;
}

describe('assertCanListen', () => {
  it('a port in use: ListenError naming the address, HOST, PORT and EADDRINUSE', async () => {
    const taken = await listen('127.0.0.1', 0);
    const { port } = taken.address() as { port: number };
    try {
      await expect(assertCanListen('127.0.0.1', port)).rejects.toThrow(
        `Cannot listen on 127.0.0.1:${port} (HOST=127.0.0.1, PORT=${port}): EADDRINUSE, another process listens there: ` +
          'set PORT to a free port, or stop that process',
      );
    } finally {
      taken.close();
    }
  });

  it('a free port: resolves and leaves the port free', async () => {
    const probe = await listen('127.0.0.1', 0);
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    await expect(assertCanListen('127.0.0.1', port)).resolves.toBeUndefined();
    const again = await listen('127.0.0.1', port);
    again.close();
  });

  it.each([
    ['127.0.0.1', 3000, '127.0.0.1:3000'],
    ['::1', 3000, '[::1]:3000'],
    ['localhost', 80, 'localhost:80'],
  ])('formatAddress(%s, %d) = %s', (host, port, address) => {
    expect(formatAddress(host, port)).toBe(address);
  });
});
