import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, Logger } from 'typeorm';
import { BlogCount } from '../../src/blogs/blog-count.entity';
import { Blog } from '../../src/blogs/blog.entity';
import { BlogsRepository } from '../../src/blogs/blogs.repository';
import { databaseConfig, loadDatabaseConfig } from '../../src/config/database.config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ReadReplicas } from '../../src/database/read-replicas';
import { StatementRunner } from '../../src/database/statement-runner';
import { TagCount } from '../../src/tags/tag-count.entity';
import { Tag } from '../../src/tags/tag.entity';
import { TagsRepository } from '../../src/tags/tags.repository';
import { createTestDatabase, TestDatabase } from './test-database';

/**
 * A testing module with the real DataSource on `database` (migrated; through PgBouncer, or with read
 * replicas, when the database says so), `BlogsRepository` and `TagsRepository`, for the specs of the repositories' statements.
 */
function compileRepositoryModule(database: TestDatabase, logger?: Logger): Promise<TestingModule> {
  const config = loadDatabaseConfig(database.env);
  return Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...buildDataSourceOptions(config),
        autoLoadEntities: true,
        migrationsRun: true,
        logger,
      }),
      TypeOrmModule.forFeature([Blog, BlogCount, Tag, TagCount]),
    ],
    providers: [
      BlogsRepository,
      TagsRepository,
      ReadReplicas,
      StatementRunner,
      { provide: databaseConfig.KEY, useValue: config },
    ],
  }).compile();
}

/** What {@link useRepositoryModule} gives the tests: the repository and the DataSource of its own database. */
interface RepositoryHandle {
  readonly repository: BlogsRepository;
  readonly dataSource: DataSource;
  readonly moduleRef: TestingModule;
}

/**
 * A database and {@link compileRepositoryModule} over it for the enclosing `describe`: made in `beforeAll`, closed and
 * dropped in `afterAll`. The handle's members are valid inside tests and hooks registered after this call.
 */
export function useRepositoryModule(logger?: Logger): RepositoryHandle {
  let database: TestDatabase | undefined;
  let moduleRef: TestingModule | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    moduleRef = await compileRepositoryModule(database, logger);
  });
  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });
  const compiled = (): TestingModule => {
    if (moduleRef === undefined) throw new Error('useRepositoryModule: the module runs between beforeAll and afterAll');
    return moduleRef;
  };
  return {
    get repository() {
      return compiled().get(BlogsRepository);
    },
    get dataSource() {
      return compiled().get(DataSource);
    },
    get moduleRef() {
      return compiled();
    },
  };
}
