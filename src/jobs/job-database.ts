import type { Db as IDatabase } from 'pg-boss';
import { getPGliteInstance } from 'typeorm-pglite/dist/pglite-instance';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Connection, lease, onConnection } from '../database/pooled-connection';

/** pg-boss's `fromPglite`: its adapter of one PGlite instance (multi-statement blocks through `exec`). */
type FromPglite = (pglite: Awaited<ReturnType<typeof getPGliteInstance>>) => IDatabase;

/**
 * pg-boss's database on the service's primary pool, each statement on a connection of its own: a server's `pg`
 * connections as they are (pg-boss unwraps multi-statement results; one that failed is rolled back before it goes back
 * to the pool), the embedded session through `fromPglite`.
 */
export async function primaryJobDatabase(
  driver: PostgresDriver,
  embedded: boolean,
  fromPglite: FromPglite,
): Promise<IDatabase> {
  const embeddedDatabase = embedded ? fromPglite(await getPGliteInstance()) : undefined;
  return {
    executeSql: (text, values) =>
      onConnection(lease(driver, 'master'), async (connection) => {
        if (embeddedDatabase) return embeddedDatabase.executeSql(text, values);
        try {
          return await connection.query(text, values);
        } catch (error) {
          // A block of pg-boss's (`BEGIN; …; COMMIT`) that failed midway leaves its transaction open and aborted.
          await connection.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
  };
}

/** pg-boss's database inside a transaction the service holds on `connection` (statements with parameters only). */
export function transactionJobDatabase(connection: Connection): IDatabase {
  return { executeSql: (text, values) => connection.query(text, values) };
}
