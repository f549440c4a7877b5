import { canonicalIntegerValue, INT4_MAX } from '../common/canonical-integer';
import type { EntityTag } from '../common/http/entity-tag-condition';
import type { Blog } from './blog.entity';

/** `"<id>-<version>"`, both canonical positive integers: the shape of every tag {@link blogEntityTag} makes. */
const BLOG_TAG = /^"([1-9][0-9]*)-([1-9][0-9]*)"$/;

/** The strong entity tag (RFC 9110 §8.8.3) of a blog as stored: `"<id>-<version>"`, quotes included. */
export function blogEntityTag(blog: Pick<Blog, 'id' | 'version'>): string {
  return `"${blog.id}-${blog.version}"`;
}

/** The versions of blog `id` that `tags` name; strong comparison (If-Match) skips weak tags (RFC 9110 §8.8.3.2). */
export function versionsNamed(id: number, tags: readonly EntityTag[], comparison: 'strong' | 'weak'): number[] {
  const versions: number[] = [];
  for (const tag of tags) {
    if (comparison === 'strong' && tag.weak) continue;
    const parts = BLOG_TAG.exec(tag.opaque);
    if (parts === null || canonicalIntegerValue(parts[1]) !== id) continue;
    const version = canonicalIntegerValue(parts[2]);
    if (version !== undefined && version <= INT4_MAX) versions.push(version);
  }
  return versions;
}
