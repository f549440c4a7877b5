import { Injectable, NotFoundException } from '@nestjs/common';
import type { OffsetListPage } from '../common/paging/list-envelope';
import { slugOf } from '../common/text/slug';
import type { CountedTag } from './counted-tag';
import { TAG_LIMITS } from './tag-limits';
import { TagSort } from './tag-list';
import { TagsRepository } from './tags.repository';
import { InvalidParam, ValidationProblemException } from '../common/filters/problem-types';

/** A list request: order and page. */
export interface TagListRequest {
  readonly sort: TagSort;
  readonly limit: number;
  readonly offset: number;
}

/** A blog's tags: their slugs and the names given, distinct by slug, in the order given. */
export interface NormalizedTags {
  readonly slugs: string[];
  readonly names: string[];
}

/** The rules of tags: what a name's slug is, and which tags are listed (those with live blogs at the given instant). */
@Injectable()
export class TagsService {
  constructor(private readonly tags: TagsRepository) {}

  /** A page of the tags with live blogs at `now`, in the order `sort`, with their number; past the end an empty page. */
  async list({ sort, limit, offset }: TagListRequest, now: Date): Promise<OffsetListPage<CountedTag>> {
    const { items, total } = await this.tags.findPage({ sort, limit, offset, now });
    return { items, total, offset };
  }

  /** The tag `slug` with its live blogs at `now`. @throws NotFoundException when no blog live then has the tag. */
  async findOne(slug: string, now: Date): Promise<CountedTag> {
    const tag = await this.tags.findBySlug(slug, now);
    if (!tag || tag.count <= 0) throw new NotFoundException(`Tag ${slug} not found`);
    return tag;
  }

  /**
   * The slugs of `names` (at most `TAG_LIMITS.slug.max` characters each) and the names, the first of each slug only.
   * @throws BadRequestException naming `tags[i]` for each name without a letter or digit.
   */
  normalize(names: readonly string[]): NormalizedTags {
    const bySlug = new Map<string, string>();
    const errors: InvalidParam[] = [];
    names.forEach((name, i) => {
      const slug = slugOf(name, TAG_LIMITS.slug.max);
      if (slug === undefined)
        errors.push({ detail: `tags[${i}] must contain a letter or digit`, pointer: `/tags/${i}` });
      else if (!bySlug.has(slug)) bySlug.set(slug, name);
    });
    if (errors.length > 0) {
      throw new ValidationProblemException(
        errors.map((error) => error.detail),
        errors,
      );
    }
    return { slugs: [...bySlug.keys()], names: [...bySlug.values()] };
  }
}
