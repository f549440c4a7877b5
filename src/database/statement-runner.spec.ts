import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { databaseConfig } from '../config/database.config';
import { ReadReplicas } from './read-replicas';
import { isDatabaseUnavailableError } from './database-errors';
import { PreparedStatement, SLOW_LANE, SlowLaneBusyError, StatementRunner } from './statement-runner';

const FIND: PreparedStatement = { name: 'things.find', text: 'SELECT * FROM things WHERE id = $1' };

describe('StatementRunner', () => {
  const connection = (server: string) => ({
    server,
    on: jest.fn(),
    removeListener: jest.fn(),
    query: jest.fn((..._args: unknown[]) => Promise.resolve({ rows: [{ server }], rowCount: 1 })),
  });
  let primary: ReturnType<typeof connection>;
  let replica: ReturnType<typeof connection>;
  let release: jest.Mock;
  let logQuery: jest.Mock;

  /** Replica reads that answer only when told to, in the order they started. */
  let pending: (() => void)[];

  async function runner(preparedStatements: boolean, url: string | null = 'postgres://db'): Promise<StatementRunner> {
    pending = [];
    primary = connection('primary');
    replica = connection('replica');
    release = jest.fn();
    logQuery = jest.fn();
    const dataSource = {
      driver: { obtainMasterConnection: () => Promise.resolve([primary, release]) },
      logger: { logQuery },
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        StatementRunner,
        { provide: getDataSourceToken(), useValue: dataSource },
        { provide: databaseConfig.KEY, useValue: { preparedStatements, url: url ?? undefined } },
        { provide: ReadReplicas, useValue: { read: (work: (c: unknown) => unknown) => work(replica) } },
      ],
    }).compile();
    return moduleRef.get(StatementRunner);
  }

  it.each<[string, boolean, string | null, unknown[]]>([
    ['named, as a prepared statement', true, 'postgres://db', [{ name: FIND.name, text: FIND.text, values: [7] }]],
    [
      'unnamed, parsed each time (DATABASE_PREPARED_STATEMENTS=false)',
      false,
      'postgres://db',
      [{ text: FIND.text, values: [7] }],
    ],
    ['as text and values to the embedded database', false, null, [FIND.text, [7]]],
  ])('sends a statement %s', async (_name, named, url, sent) => {
    const sql = await runner(named, url);

    await expect(sql.onPrimary(FIND, [7])).resolves.toEqual({ rows: [{ server: 'primary' }], rowCount: 1 });
    // Strict: no `name` or `query_timeout` key at all, not even undefined, where none is sent.
    expect(primary.query.mock.calls).toStrictEqual([sent]);
    expect(release).toHaveBeenCalledWith(undefined);
    expect(logQuery).toHaveBeenCalledWith(FIND.text, [7]);
  });

  it('reads through ReadReplicas, writes on the primary', async () => {
    const sql = await runner(true);

    await expect(sql.onReplica(FIND, [1])).resolves.toMatchObject({ rows: [{ server: 'replica' }] });
    await expect(sql.onPrimary(FIND, [1])).resolves.toMatchObject({ rows: [{ server: 'primary' }] });
    expect(replica.query).toHaveBeenCalledTimes(1);
    expect(primary.query).toHaveBeenCalledTimes(1);
  });

  it.each<[string, { rows: unknown[]; rowCount?: number; affectedRows?: number }, number]>([
    ["pg's rowCount", { rows: [], rowCount: 3 }, 3],
    ["the embedded database's affectedRows", { rows: [], affectedRows: 2 }, 2],
    ['neither: the rows returned', { rows: [{}, {}, {}, {}] }, 4],
  ])('counts the rows a statement changed from %s', async (_name, raw, rowCount) => {
    const sql = await runner(false);
    primary.query.mockResolvedValueOnce(raw as never);

    await expect(sql.onPrimary(FIND, [1])).resolves.toMatchObject({ rowCount });
  });

  describe('deleteInBatches', () => {
    const PURGE: PreparedStatement = { name: 'things.purge', text: 'DELETE FROM things WHERE … LIMIT $2' };

    it.each<[string, number[], number, number]>([
      ['until a batch is short, and sums the rows', [3, 3, 1], 3, 7],
      ['once when the first batch is short', [0], 1, 0],
    ])('deletes on the primary, with the batch as last parameter, %s', async (_name, counts, calls, total) => {
      const sql = await runner(true);
      for (const rowCount of counts) primary.query.mockResolvedValueOnce({ rows: [], rowCount });

      await expect(sql.deleteInBatches(PURGE, [7], 3)).resolves.toBe(total);
      expect(primary.query.mock.calls).toEqual(
        Array.from({ length: calls }, () => [{ name: PURGE.name, text: PURGE.text, values: [7, 3] }]),
      );
      expect(replica.query).not.toHaveBeenCalled();
    });
  });

  describe('the slow lane', () => {
    const heldRead = () => (work: (c: unknown) => unknown) =>
      new Promise((resolve) => pending.push(() => resolve(work(replica))));

    it(`runs at most ${SLOW_LANE.connections} slow reads at once, the others in arrival order, and never holds up a fast one`, async () => {
      const sql = await runner(true);
      const replicas = { read: jest.fn(heldRead()) };
      Object.assign(sql, { replicas });
      const finished: number[] = [];

      const flush = () => new Promise((resolve) => setImmediate(resolve));

      const slow = [1, 2, 3, 4].map((n) => sql.onReplica(FIND, [n], 'slow').then(() => finished.push(n)));
      await flush();
      expect(replicas.read).toHaveBeenCalledTimes(SLOW_LANE.connections);

      const fast = sql.onReplica(FIND, [5]);
      expect(replicas.read).toHaveBeenCalledTimes(SLOW_LANE.connections + 1);
      pending.pop()!();
      await fast;

      pending.shift()!();
      await flush();
      expect(finished).toEqual([1]);
      expect(replicas.read).toHaveBeenCalledTimes(SLOW_LANE.connections + 2);

      for (let turn = 0; turn < 3; turn += 1) {
        pending.shift()!();
        await flush();
      }
      await Promise.all(slow);
      expect(finished).toEqual([1, 2, 3, 4]);
    });

    it(`gives one client ${SLOW_LANE.perClient} of the lane: its other reads wait behind its own, another's pass`, async () => {
      const sql = await runner(true);
      const replicas = { read: jest.fn(heldRead()) };
      Object.assign(sql, { replicas });
      const flush = () => new Promise((resolve) => setImmediate(resolve));

      const own = [1, 2, 3].map((n) => sql.onReplica(FIND, [n], 'long', 'ip:192.0.2.1'));
      await flush();
      expect(replicas.read).toHaveBeenCalledTimes(SLOW_LANE.perClient);
      const other = sql.onReplica(FIND, [4], 'long', 'ip:192.0.2.2');
      await flush();
      expect(replicas.read).toHaveBeenCalledTimes(SLOW_LANE.perClient + 1);

      for (let turn = 0; turn < 4; turn += 1) {
        pending.shift()!();
        await flush();
      }
      await Promise.all([...own, other]);
      expect(replicas.read).toHaveBeenCalledTimes(4);
      expect((sql as unknown as { shares: Map<string, unknown> }).shares.size).toBe(0);
    });

    it(`answers a client's read that waited ${SLOW_LANE.maxWaitMs} ms behind its own with a 503-class error`, async () => {
      jest.useFakeTimers();
      try {
        const sql = await runner(true);
        Object.assign(sql, { replicas: { read: jest.fn(heldRead()) } });
        for (let n = 0; n < SLOW_LANE.perClient; n += 1) void sql.onReplica(FIND, [n], 'slow', 'ip:192.0.2.1');
        const outcome = sql.onReplica(FIND, [9], 'slow', 'ip:192.0.2.1').catch((error: unknown) => error);

        await jest.advanceTimersByTimeAsync(SLOW_LANE.maxWaitMs);

        expect(await outcome).toBeInstanceOf(SlowLaneBusyError);
      } finally {
        jest.useRealTimers();
      }
    });

    it.each<[string, boolean, unknown]>([
      ['named', true, { name: FIND.name, text: FIND.text, values: [3], query_timeout: SLOW_LANE.statementMs + 500 }],
      ['unnamed', false, { text: FIND.text, values: [3], query_timeout: SLOW_LANE.statementMs + 500 }],
    ])(
      `runs a long read (%s) in a transaction of its own: ${SLOW_LANE.statementMs} ms, ${SLOW_LANE.workMem}, no parallel workers`,
      async (_name, named, sent) => {
        const sql = await runner(named);

        await sql.onReplica(FIND, [3], 'long');
        expect(replica.query.mock.calls).toStrictEqual([
          [
            `BEGIN; SET LOCAL statement_timeout = ${SLOW_LANE.statementMs}; SET LOCAL work_mem = '${SLOW_LANE.workMem}'; ` +
              'SET LOCAL max_parallel_workers_per_gather = 0',
          ],
          [sent],
          ['COMMIT'],
        ]);
      },
    );

    it('runs a long read after another on one connection, both in its transaction, the first answered first', async () => {
      const sql = await runner(true);
      const POSITION: PreparedStatement = { name: 'things.position', text: 'SELECT 1 AS position' };

      const read = await sql.onReplicaAfter({ statement: POSITION, values: [] }, FIND, [3], 'long');
      expect(read).toEqual({
        first: { rows: [{ server: 'replica' }], rowCount: 1 },
        then: { rows: [{ server: 'replica' }], rowCount: 1 },
      });
      expect(replica.query.mock.calls.map(([statement]) => (statement as { name?: string }).name ?? statement)).toEqual(
        [expect.stringMatching(/^BEGIN; /), POSITION.name, FIND.name, 'COMMIT'],
      );
    });

    it.each<[string, 'slow' | 'long', string | null]>([
      ['a slow read', 'slow', 'postgres://db'],
      ['a long read on the embedded database', 'long', null],
    ])("runs %s as it is, with the pool's time limits", async (_name, lane, url) => {
      const sql = await runner(true, url);

      await sql.onReplica(FIND, [3], lane);
      expect(replica.query).toHaveBeenCalledTimes(1);
      expect(replica.query.mock.calls[0][0]).not.toHaveProperty('query_timeout');
    });

    it('rolls a failed long read back and throws its error', async () => {
      const sql = await runner(true);
      const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      replica.query.mockImplementation((statement: unknown) =>
        (statement as { name?: string }).name === FIND.name
          ? Promise.reject(timeout)
          : Promise.resolve({ rows: [], rowCount: 0 }),
      );

      await expect(sql.onReplica(FIND, [3], 'long')).rejects.toBe(timeout);
      expect(replica.query.mock.calls.at(-1)).toEqual(['ROLLBACK']);
      expect(replica.query.mock.calls.map(([statement]) => statement)).not.toContain('COMMIT');
    });

    it(`answers a read that waited ${SLOW_LANE.maxWaitMs} ms for its turn with a 503-class error`, async () => {
      jest.useFakeTimers();
      try {
        const sql = await runner(true);
        Object.assign(sql, { replicas: { read: jest.fn(heldRead()) } });
        for (let n = 0; n < SLOW_LANE.connections; n += 1) void sql.onReplica(FIND, [n], 'slow');
        const late = sql.onReplica(FIND, [9], 'slow');
        const outcome = late.catch((error: unknown) => error);

        await jest.advanceTimersByTimeAsync(SLOW_LANE.maxWaitMs);

        const error = await outcome;
        expect(error).toBeInstanceOf(SlowLaneBusyError);
        expect(isDatabaseUnavailableError(error)).toBe(true);
      } finally {
        jest.useRealTimers();
      }
    });
  });
});
