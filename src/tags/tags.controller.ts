import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ReadAccess } from '../auth/access.decorator';
import { SlugParam } from '../common/http/slug-param.decorator';
import { listEnvelope } from '../common/paging/list-envelope';
import { SharedCache } from '../shared-cache/shared-cache';
import { ListTagsQueryDto } from './dto/list-tags-query.dto';
import { TagListResponse, TagResponse, toTagResponse } from './dto/tag-response.dto';
import { TAG_LIMITS } from './tag-limits';
import { ApiGetTag, ApiListTags, ApiTagsResource } from './tags.api-docs';
import { TagsService } from './tags.service';

/** `Surrogate-Key` of tag answers: they count published blogs, so the blogs' events (which purge `blogs`) take them back. */
export const TAGS_SURROGATE_KEY = 'blogs';

/** `/api/v1/tags`: the tags of published blogs with their counts; public unless `READS_REQUIRE_AUTH=true`. */
@Controller({ path: 'tags', version: '1' })
@ApiTagsResource()
export class TagsController {
  constructor(
    private readonly tags: TagsService,
    private readonly cache: SharedCache,
  ) {}

  @Get()
  @ReadAccess()
  @ApiListTags()
  async list(
    @Query() query: ListTagsQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TagListResponse> {
    const page = await this.tags.list(query, new Date());
    this.cache.keep(request, response, TAGS_SURROGATE_KEY);
    return listEnvelope(page, query.limit, toTagResponse);
  }

  @Get(':slug')
  @ReadAccess()
  @ApiGetTag()
  async findOne(
    @SlugParam('slug', TAG_LIMITS.slug.max) slug: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TagResponse> {
    const tag = await this.tags.findOne(slug, new Date());
    this.cache.keep(request, response, TAGS_SURROGATE_KEY);
    return toTagResponse(tag);
  }
}
