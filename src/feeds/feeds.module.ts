import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlogsModule } from '../blogs/blogs.module';
import { CursorSigner } from '../common/paging/cursor-signer';
import { DatabaseModule } from '../database/database.module';
import { JobsModule } from '../jobs/jobs.module';
import { SharedCacheModule } from '../shared-cache/shared-cache.module';
import { TagsModule } from '../tags/tags.module';
import { FeedCursors } from './feed-cursor';
import { FeedsController } from './feeds.controller';
import { FeedsRepository } from './feeds.repository';
import { FeedsService } from './feeds.service';
import { SitemapBlock } from './sitemap-block.entity';
import { SitemapFoldJob } from './sitemap-fold.job';
import { SitemapIndexController, SitemapsController } from './sitemaps.controller';

/**
 * Feeds and sitemaps of the live blogs: read-only documents over the blogs (through `BlogVisibility`) and the tags'
 * names, and `sitemap_blocks`, which the migrations' triggers keep and its job folds. No events of its own: the blogs'
 * purge its answers.
 */
@Module({
  imports: [
    DatabaseModule,
    JobsModule,
    BlogsModule,
    TagsModule,
    SharedCacheModule,
    TypeOrmModule.forFeature([SitemapBlock]),
  ],
  controllers: [FeedsController, SitemapIndexController, SitemapsController],
  providers: [FeedsService, FeedsRepository, FeedCursors, CursorSigner, SitemapFoldJob],
})
export class FeedsModule {}
