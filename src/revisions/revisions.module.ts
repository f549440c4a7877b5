import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlogsModule } from '../blogs/blogs.module';
import { CursorSigner } from '../common/paging/cursor-signer';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { TagsModule } from '../tags/tags.module';
import { BlogRevision } from './blog-revision.entity';
import { BlogRevisionsController } from './blog-revisions.controller';
import { RevisionListCursors } from './revision-list-cursor';
import { RevisionsRepository } from './revisions.repository';
import { RevisionsService } from './revisions.service';

/**
 * Revisions of blogs: controller → service → repository; the triggers of `blogs` write them (docs/architecture.md,
 * "Revisions"). No other module knows it; who may read a blog and its update are `BlogsModule`'s.
 */
@Module({
  imports: [DatabaseModule, IdempotencyModule, TagsModule, BlogsModule, TypeOrmModule.forFeature([BlogRevision])],
  controllers: [BlogRevisionsController],
  providers: [RevisionsService, RevisionsRepository, RevisionListCursors, CursorSigner],
})
export class RevisionsModule {}
