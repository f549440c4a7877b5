import { Controller, Get, Query } from '@nestjs/common';
import { ReadAccess } from '../auth/access.decorator';
import { SlugParam } from '../common/http/slug-param.decorator';
import { listEnvelope } from '../common/paging/list-envelope';
import { PublicAnswer, PublicRead } from '../shared-cache/public-read';
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
  constructor(private readonly tags: TagsService) {}

  @Get()
  @ReadAccess()
  @ApiListTags()
  async list(@Query() query: ListTagsQueryDto, @PublicRead() answer: PublicAnswer): Promise<TagListResponse> {
    const page = await this.tags.list(query, new Date());
    answer.keep(TAGS_SURROGATE_KEY);
    return listEnvelope(page, query.limit, toTagResponse);
  }

  @Get(':slug')
  @ReadAccess()
  @ApiGetTag()
  async findOne(
    @SlugParam('slug', TAG_LIMITS.slug.max) slug: string,
    @PublicRead() answer: PublicAnswer,
  ): Promise<TagResponse> {
    const tag = await this.tags.findOne(slug, new Date());
    answer.keep(TAGS_SURROGATE_KEY);
    return toTagResponse(tag);
  }
}
