import { AdvancedConsoleLogger } from 'typeorm';
import { importClassesFromDirectories } from 'typeorm/util/DirectoryExportedClassesLoader';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

type MigrationClass = new () => { name?: string; up?: unknown };

/** Every migration of the service's modules, in the order TypeORM runs them (the timestamp ending each name). */
export async function migrationNames(): Promise<string[]> {
  const { migrations = [] } = buildDataSourceOptions({ url: 'postgres://unused', dataDir: '' });
  const classes = (await importClassesFromDirectories(
    new AdvancedConsoleLogger(false),
    migrations as string[],
  )) as MigrationClass[];
  const timestamp = (name: string): number => Number(/\d{13}$/.exec(name)?.[0]);
  return classes
    .filter((Migration) => typeof Migration.prototype.up === 'function')
    .map((Migration) => new Migration().name ?? Migration.name)
    .sort((a, b) => timestamp(a) - timestamp(b));
}
