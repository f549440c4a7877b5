import { canonicalIntegerValue, INT4_MAX } from '../canonical-integer';
import type { EntityTag, WritePreconditions } from './entity-tag-condition';

/** A stored resource with an int4 `id` and a `version` that every write increments. */
interface Versioned {
  readonly id: number;
  readonly version: number;
}

/** `"<id>-<version>"`, both canonical positive integers: the shape of every tag {@link versionedEntityTag} makes. */
const VERSIONED_TAG = /^"([1-9][0-9]*)-([1-9][0-9]*)"$/;

/** The strong entity tag (RFC 9110 §8.8.3) of a resource as stored: `"<id>-<version>"`, quotes included. */
export function versionedEntityTag(resource: Versioned): string {
  return `"${resource.id}-${resource.version}"`;
}

/** The versions of resource `id` that `tags` name; strong comparison (If-Match) skips weak tags (RFC 9110 §8.8.3.2). */
export function versionsNamed(id: number, tags: readonly EntityTag[], comparison: 'strong' | 'weak'): number[] {
  const versions: number[] = [];
  for (const tag of tags) {
    if (comparison === 'strong' && tag.weak) continue;
    const parts = VERSIONED_TAG.exec(tag.opaque);
    if (parts === null || canonicalIntegerValue(parts[1]) !== id) continue;
    const version = canonicalIntegerValue(parts[2]);
    if (version !== undefined && version <= INT4_MAX) versions.push(version);
  }
  return versions;
}

/** Versions a write may change (RFC 9110 §13): only `match` (`If-Match`), none of `noneMatch` (`If-None-Match`). */
export interface VersionCondition {
  readonly match?: readonly number[];
  readonly noneMatch?: readonly number[];
}

/** The versions of resource `id` a write may change; null when `If-None-Match: *` fails, as for any existing resource. */
export function versionCondition(id: number, { ifMatch, ifNoneMatch }: WritePreconditions): VersionCondition | null {
  if (ifNoneMatch?.any) return null;
  return {
    match: ifMatch && !ifMatch.any ? versionsNamed(id, ifMatch.tags, 'strong') : undefined,
    noneMatch: ifNoneMatch && !ifNoneMatch.any ? versionsNamed(id, ifNoneMatch.tags, 'weak') : undefined,
  };
}
