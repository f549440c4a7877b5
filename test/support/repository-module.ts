import { Test, TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'typeorm';
import { BlogCount } from '../../src/blogs/blog-count.entity';
import { Blog } from '../../src/blogs/blog.entity';
import { BlogsRepository } from '../../src/blogs/blogs.repository';
import { databaseConfig, loadDatabaseConfig } from '../../src/config/database.config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ReadReplicas } from '../../src/database/read-replicas';
import { StatementRunner } from '../../src/database/statement-runner';
import type { TestDatabase } from './test-database';

/**
 * A testing module with the real DataSource on `database` (migrated; through PgBouncer, or with read
 * replicas, when the database says so) and `BlogsRepository`, for the specs of the repository's statements.
 */
export function compileRepositoryModule(database: TestDatabase, logger?: Logger): Promise<TestingModule> {
  const config = loadDatabaseConfig(database.env);
  return Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...buildDataSourceOptions(config),
        autoLoadEntities: true,
        migrationsRun: true,
        logger,
      }),
      TypeOrmModule.forFeature([Blog, BlogCount]),
    ],
    providers: [BlogsRepository, ReadReplicas, StatementRunner, { provide: databaseConfig.KEY, useValue: config }],
  }).compile();
}
