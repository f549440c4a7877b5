import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CursorSigner } from '../common/paging/cursor-signer';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SharedCacheModule } from '../shared-cache/shared-cache.module';
import { TagsModule } from '../tags/tags.module';
import { AuthorCount } from './author-count.entity';
import { BlogCount } from './blog-count.entity';
import { BlogEvents } from './blog-events';
import { BlogPublication } from './blog-publication.entity';
import { BlogPublicationsRepository } from './blog-publications.repository';
import { BlogSlugBase } from './blog-slug-base.entity';
import { BlogSlugFreed } from './blog-slug-freed.entity';
import { BlogSlug } from './blog-slug.entity';
import { BlogListCursors } from './blog-list-cursor';
import { BlogVisibility } from './blog-visibility';
import { Blog } from './blog.entity';
import { BlogsController } from './blogs.controller';
import { BlogsRepository } from './blogs.repository';
import { BlogsService } from './blogs.service';

/**
 * The blog resource: controller → service → repository over `Repository<Blog>`; its events (`BlogEvents`). Exports
 * `BlogVisibility`, who may read a blog, for the modules that show what belongs to one, and `BlogsService`, whose
 * update is every write of a blog (a revision's restore).
 */
@Module({
  imports: [
    DatabaseModule,
    IdempotencyModule,
    TagsModule,
    SharedCacheModule,
    TypeOrmModule.forFeature([Blog, BlogCount, AuthorCount, BlogSlug, BlogSlugBase, BlogSlugFreed, BlogPublication]),
  ],
  controllers: [BlogsController],
  providers: [
    BlogsService,
    BlogsRepository,
    BlogListCursors,
    CursorSigner,
    BlogEvents,
    BlogPublicationsRepository,
    BlogVisibility,
  ],
  exports: [BlogVisibility, BlogsService],
})
export class BlogsModule {}
