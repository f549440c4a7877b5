import { OpenApiContract } from './support/openapi-contract';
import { createTestApp, TestApp } from './support/test-app';

describe('health probes (@nestjs/terminus)', () => {
  const contract = new OpenApiContract();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ READS_REQUIRE_AUTH: 'true' });
  });

  afterAll(async () => {
    if (t !== undefined && !t.dataSource.isInitialized) await t.dataSource.initialize();
    await t?.close();
  });

  it('GET /health/live → 200 {status: ok}, no token, even when reads require one', async () => {
    const res = await t.http.get('/health/live').expect(200);

    expect(res.body).toMatchObject({ status: 'ok' });
    contract.expectDocumented('get', '/health/live', res);
  });

  it('GET /health/ready → 200 with the database up', async () => {
    const res = await t.http.get('/health/ready').expect(200);

    expect(res.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' } } });
    contract.expectDocumented('get', '/health/ready', res);
  });

  it('GET /health/ready → 503 naming the database while it cannot be reached; live stays 200; ready again after', async () => {
    await t.dataSource.destroy();
    try {
      const res = await t.http.get('/health/ready').expect(503);
      expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'Not ready: database' });
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      contract.expectDocumented('get', '/health/ready', res);
      await t.http.get('/health/live').expect(200);
    } finally {
      await t.dataSource.initialize();
    }
    await t.http.get('/health/ready').expect(200);
  });
});
