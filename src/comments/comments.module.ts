import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlogsModule } from '../blogs/blogs.module';
import { CursorSigner } from '../common/paging/cursor-signer';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SharedCacheModule } from '../shared-cache/shared-cache.module';
import { CommentCount } from './comment-count.entity';
import { CommentEvents } from './comment-events';
import { CommentListCursors } from './comment-list-cursor';
import { Comment } from './comment.entity';
import { BlogCommentsController } from './blog-comments.controller';
import { CommentsController } from './comments.controller';
import { CommentsService } from './comments.service';
import { CommentsRepository } from './comments.repository';

/**
 * Comments of blogs: controller → service → repository; its events (`CommentEvents`). No other module knows it; it
 * reads the blogs' table, and who may read a blog is `BlogsModule`'s `BlogVisibility` (docs/architecture.md, "Layout").
 */
@Module({
  imports: [
    DatabaseModule,
    IdempotencyModule,
    SharedCacheModule,
    BlogsModule,
    TypeOrmModule.forFeature([Comment, CommentCount]),
  ],
  controllers: [BlogCommentsController, CommentsController],
  providers: [CommentsService, CommentsRepository, CommentListCursors, CursorSigner, CommentEvents],
})
export class CommentsModule {}
