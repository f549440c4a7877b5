import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { databaseConfig } from '../config/database.config';
import { ReadReplicas } from './read-replicas';
import { PreparedStatement, StatementRunner } from './statement-runner';

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

  async function runner(preparedStatements: boolean): Promise<StatementRunner> {
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
        { provide: databaseConfig.KEY, useValue: { preparedStatements } },
        { provide: ReadReplicas, useValue: { read: (work: (c: unknown) => unknown) => work(replica) } },
      ],
    }).compile();
    return moduleRef.get(StatementRunner);
  }

  it.each<[string, boolean, unknown[]]>([
    ['named, as a prepared statement', true, [{ name: FIND.name, text: FIND.text, values: [7] }]],
    ['unnamed, parsed each time (DATABASE_PREPARED_STATEMENTS=false)', false, [FIND.text, [7]]],
  ])('sends a statement %s', async (_name, named, sent) => {
    const sql = await runner(named);

    await expect(sql.onPrimary(FIND, [7])).resolves.toEqual({ rows: [{ server: 'primary' }], rowCount: 1 });
    expect(primary.query).toHaveBeenCalledWith(...sent);
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
});
