import { Agent, createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { drainHttpServer } from './graceful-shutdown';

/** A server whose `/slow` answers after `slowMs`; everything else at once. */
async function startServer(slowMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = (): void => {
      response.end('ok');
    };
    if (request.url === '/slow') setTimeout(answer, slowMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port };
}

function fetchText(
  port: number,
  path: string,
  agent: Agent,
): Promise<{ status?: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    get({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode, connection: response.headers.connection }));
    }).on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code }));
  });
}

describe('drainHttpServer', () => {
  const agents: Agent[] = [];
  const newAgent = (): Agent => {
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    return agent;
  };

  afterEach(() => {
    for (const agent of agents.splice(0)) agent.destroy();
  });

  it('ends at once when only idle keep-alive connections are open (no wait for the keep-alive timeout)', async () => {
    const { server, port } = await startServer(0);
    const agent = newAgent();
    await expect(fetchText(port, '/', agent)).resolves.toMatchObject({ status: 200, connection: 'keep-alive' });

    const result = await drainHttpServer(server, 5_000);

    expect(result.cut).toBe(0);
    expect(result.ms).toBeLessThan(5_000);
  });

  it('lets a request in flight finish, then closes its keep-alive connection; refuses new connections meanwhile', async () => {
    const { server, port } = await startServer(300);
    const agent = newAgent();
    const slow = fetchText(port, '/slow', agent);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const drained = drainHttpServer(server, 5_000);
    await expect(fetchText(port, '/', newAgent())).resolves.toEqual({ error: 'ECONNREFUSED' });

    await expect(slow).resolves.toMatchObject({ status: 200 });
    const result = await drained;
    expect(result.cut).toBe(0);
    expect(result.ms).toBeGreaterThanOrEqual(200);
    expect(result.ms).toBeLessThan(5_000);
  });

  it('answers a request arriving on an open connection while draining with Connection: close, then closes it', async () => {
    const { server, port } = await startServer(300);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const drained = drainHttpServer(server, 5_000);
    // While the first request is still in flight (so the connection is not idle), a second one
    // arrives on the same connection.
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');

    await closed;
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses.map((response) => response.split('\r\n')[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    expect(responses[1]).toMatch(/\r\nConnection: close\r\n/i);
    await expect(drained).resolves.toMatchObject({ cut: 0 });
  });

  it('cuts off what is still running after timeoutMs and reports how many connections', async () => {
    const { server, port } = await startServer(10_000);
    const stuck = fetchText(port, '/slow', newAgent());
    await new Promise((resolve) => setTimeout(resolve, 50));

    const result = await drainHttpServer(server, 200);

    expect(result.cut).toBe(1);
    expect(result.ms).toBeGreaterThanOrEqual(190);
    expect(result.ms).toBeLessThan(10_000);
    await expect(stuck).resolves.toMatchObject({ error: expect.stringMatching(/ECONNRESET|socket hang up/) });
  });
});
