import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { databaseConfig } from '../config/database.config';
import { ReadReplicas } from './read-replicas';

const PRIMARY_URL = 'postgres://primary/blogs';
const REPLICA_URL = 'postgres://replica/blogs';
const LATE_URL = 'postgres://late-replica/blogs';

/** A pg client of one server: its queries answer the server's name ({@link serve}). */
interface FakeClient {
  readonly server: string;
  release(): void;
  query(): Promise<string>;
  on(): void;
  removeListener(): void;
}

let serve: jest.Mock<Promise<string>, [string]>;
const client = (server: string): FakeClient => ({
  server,
  release: jest.fn(),
  query: () => serve(server),
  on: jest.fn(),
  removeListener: jest.fn(),
});

/** A pg pool of one replica: `connect` lends a client, `query` answers the replay position (bytes). */
function fakePool(server: string) {
  return {
    connect: jest.fn(() => Promise.resolve(client(server))),
    end: jest.fn(() => Promise.resolve()),
    replayed: 0 as number | null,
    query: jest.fn(function (this: { replayed: number | null }) {
      return Promise.resolve({ rows: [{ lsn: this.replayed === null ? null : String(this.replayed) }] });
    }),
  };
}

describe('ReadReplicas', () => {
  let replicas: ReadReplicas;
  let primaryLsn: number;
  let primaryDown: boolean;
  let replica: ReturnType<typeof fakePool>;
  let late: ReturnType<typeof fakePool> & { answers: boolean };
  /** The primary as the lag checks see it: its WAL position, or no answer. */
  const primaryProbe = {
    query: () =>
      primaryDown
        ? Promise.reject(new Error('connect ECONNREFUSED'))
        : Promise.resolve({ rows: [{ lsn: String(primaryLsn) }] }),
    end: jest.fn(() => Promise.resolve()),
  };
  const driver = {
    options: { poolSize: 10, replication: { master: { url: PRIMARY_URL }, slaves: [{ url: REPLICA_URL }] } },
    slaves: [] as unknown[],
    obtainMasterConnection: jest.fn(() => Promise.resolve([client('primary'), jest.fn()])),
    obtainSlaveConnection: jest.fn(),
    // The checks' own connections of each server, and the read pool of a replica that answers late.
    createPool: jest.fn((_options: unknown, { url }: { url: string }) => {
      if (url === PRIMARY_URL) return Promise.resolve(primaryProbe);
      if (url === REPLICA_URL) return Promise.resolve(replica);
      return late.answers ? Promise.resolve(late) : Promise.reject(new Error('connect ECONNREFUSED'));
    }),
  };
  const dataSource = { driver };
  const read = () => replicas.read((connection) => connection.query('SELECT 1') as unknown as Promise<string>);

  beforeEach(async () => {
    jest.useFakeTimers({ now: 0 });
    primaryLsn = 100;
    primaryDown = false;
    replica = fakePool('replica');
    replica.replayed = 100;
    late = Object.assign(fakePool('late-replica'), { answers: false });
    driver.slaves = [replica];
    driver.obtainSlaveConnection = jest.fn();
    serve = jest.fn((server: string) => Promise.resolve(server));
    const moduleRef = await Test.createTestingModule({
      providers: [
        ReadReplicas,
        { provide: getDataSourceToken(), useValue: dataSource },
        { provide: databaseConfig.KEY, useValue: { readUrls: [REPLICA_URL, LATE_URL], readMaxLagMs: 1_000 } },
      ],
    }).compile();
    replicas = moduleRef.get(ReadReplicas);
    replicas.onApplicationBootstrap();
    await replicas.check();
  });

  afterEach(() => {
    replicas.onModuleDestroy();
    jest.useRealTimers();
  });

  it('checks every quarter of the lag bound, between 50 ms and 1 s; a serving replica is at most two checks more behind', () => {
    expect(replicas.checkIntervalMs).toBe(250);
    expect(replicas.lagBoundMs).toBe(1_500);
  });

  it('reads from a replica that has replayed the primary, and lists each replica in the order given', async () => {
    expect(replicas.health()).toEqual({
      database_replica_1: { status: 'up', lagMs: 0, serving: true },
      database_replica_2: { status: 'down', lagMs: null, serving: false },
    });
    await expect(read()).resolves.toBe('replica');
  });

  it.each<[string, number, number, number, boolean]>([
    ['has replayed what the primary had 500 ms ago: within the bound', 500, 200, 100, true],
    ['has replayed nothing for 1,500 ms of writes: over the bound', 1_500, 300, 100, false],
    ['caught up again after falling behind', 1_500, 300, 300, true],
  ])('a replica that %s', async (_case, elapsedMs, lsn, replayed, serving) => {
    primaryLsn = 150;
    jest.setSystemTime(elapsedMs / 2);
    await replicas.check();
    primaryLsn = lsn;
    replica.replayed = replayed;
    jest.setSystemTime(elapsedMs);
    await replicas.check();

    expect(replicas.health().database_replica_1).toMatchObject({ status: 'up', serving });
    await expect(read()).resolves.toBe(serving ? 'replica' : 'primary');
  });

  it('measures lag from the last primary position read while the primary does not answer', async () => {
    primaryDown = true;
    jest.setSystemTime(1_001);
    await replicas.check();
    expect(replicas.health().database_replica_1).toEqual({ status: 'up', lagMs: 1_001, serving: false });
  });

  it('serves nothing from a server that is not a standby (no replay position)', async () => {
    replica.replayed = null;
    await replicas.check();
    expect(replicas.health().database_replica_1).toEqual({ status: 'up', lagMs: null, serving: false });
    await expect(read()).resolves.toBe('primary');
  });

  it('reads from the primary when the replica refuses the connection, and says it is down until it answers', async () => {
    replica.connect.mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:5433'));
    await expect(read()).resolves.toBe('primary');
    expect(replicas.health().database_replica_1).toMatchObject({ status: 'down', serving: false });
    await replicas.check();
    expect(replicas.health().database_replica_1).toMatchObject({ status: 'up', serving: true });
  });

  it.each<[string, Partial<Error & { code: string }>, string | undefined, 'up' | 'down']>([
    ['the connection is lost', new Error('Connection terminated unexpectedly'), 'primary', 'down'],
    ['the server shuts down', Object.assign(new Error('terminating connection'), { code: '57P01' }), 'primary', 'down'],
    ['a conflict with recovery cancels it', Object.assign(new Error('conflict'), { code: '40001' }), 'primary', 'up'],
    ['it runs past statement_timeout', Object.assign(new Error('canceling'), { code: '57014' }), undefined, 'up'],
    ['the client stops waiting for it', new Error('Query read timeout'), undefined, 'up'],
    ['the statement is wrong', Object.assign(new Error('syntax error'), { code: '42601' }), undefined, 'up'],
  ])(
    'a read on the replica that fails because %s: retried on the primary or not, the replica up or down',
    async (_case, error, answer, status) => {
      serve.mockImplementationOnce(() => Promise.reject(error));
      const result = read();
      if (answer === undefined) await expect(result).rejects.toBe(error);
      else await expect(result).resolves.toBe(answer);
      expect(replicas.health().database_replica_1.status).toBe(status);
    },
  );

  it('picks up a replica that did not answer at start-up once it does, with a read pool TypeORM closes', async () => {
    late.replayed = 100;
    late.answers = true;
    await replicas.check();
    expect(replicas.health().database_replica_2).toEqual({ status: 'up', lagMs: 0, serving: true });
    const servers = [await read(), await read()];
    expect(servers.sort()).toEqual(['late-replica', 'replica']);
    expect(driver.slaves).toEqual([replica, late]);
  });

  it('checks lag on connections of its own, apart from the read pools, and closes them at shutdown', async () => {
    expect(driver.createPool).toHaveBeenCalledWith(expect.objectContaining({ poolSize: 1 }), { url: PRIMARY_URL });
    expect(driver.createPool).toHaveBeenCalledWith(expect.objectContaining({ poolSize: 1 }), { url: REPLICA_URL });
    await replicas.onApplicationShutdown();
    expect(primaryProbe.end).toHaveBeenCalled();
    expect(replica.end).toHaveBeenCalled();
  });
});

describe('ReadReplicas.lagBoundMs without replicas', () => {
  it('is 0: every read is on the primary', async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [
        ReadReplicas,
        { provide: getDataSourceToken(), useValue: {} },
        { provide: databaseConfig.KEY, useValue: { readUrls: [], readMaxLagMs: 1_000 } },
      ],
    }).compile();

    expect(moduleRef.get(ReadReplicas).lagBoundMs).toBe(0);
  });
});
