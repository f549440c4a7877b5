import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { SharedCacheModule } from '../shared-cache/shared-cache.module';
import { BlogTag } from './blog-tag.entity';
import { TagCount } from './tag-count.entity';
import { Tag } from './tag.entity';
import { TagsController } from './tags.controller';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

/**
 * Tags of blogs: `/api/v1/tags`; for the blog module `TagsService` (tag names to slugs) and `TagsRepository` (slugs to
 * names).
 */
@Module({
  imports: [DatabaseModule, SharedCacheModule, TypeOrmModule.forFeature([Tag, TagCount, BlogTag])],
  controllers: [TagsController],
  providers: [TagsService, TagsRepository],
  exports: [TagsService, TagsRepository],
})
export class TagsModule {}
