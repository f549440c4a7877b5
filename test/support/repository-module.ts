import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'typeorm';
import { BlogCount } from '../../src/blogs/blog-count.entity';
import { Blog } from '../../src/blogs/blog.entity';
import { BlogsRepository } from '../../src/blogs/blogs.repository';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import type { TestDatabase } from './test-database';

/**
 * A testing module with the real DataSource on `database` (migrated; through PgBouncer when the
 * database says so) and `BlogsRepository`, for the specs of the repository's statements.
 */
export function compileRepositoryModule(database: TestDatabase, logger?: Logger): Promise<TestingModule> {
  const { DATABASE_URL: url, DATA_DIR: dataDir = '', DATABASE_POOLER } = database.env;
  const pooler = DATABASE_POOLER === 'pgbouncer' ? 'pgbouncer' : 'none';
  return Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...buildDataSourceOptions({ url, dataDir, pooler }),
        autoLoadEntities: true,
        migrationsRun: true,
        logger,
      }),
      TypeOrmModule.forFeature([Blog, BlogCount]),
    ],
    providers: [BlogsRepository],
  }).compile();
}
