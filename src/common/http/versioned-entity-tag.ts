import { canonicalIntegerValue, INT4_MAX } from '../canonical-integer';
import type { EntityTag, WritePreconditions } from './entity-tag-condition';

/**
 * A stored resource with an int4 `id` and a `version` that every write increments; `variant` names what else its
 * representation depends on (a scheduled blog reads differently once its instant has passed), if anything.
 */
interface Versioned {
  readonly id: number;
  readonly version: number;
  readonly variant?: string;
}

/** `"<id>-<version>"` or `"<id>-<version>-<variant>"`: the shape of every tag {@link versionedEntityTag} makes. */
const VERSIONED_TAG = /^"([1-9][0-9]*)-([1-9][0-9]*)(-[a-z]+)?"$/;

/** The state a tag names: `"<version>"` or `"<version>-<variant>"` (what write statements compare, as text). */
export function versionState(version: number, variant?: string): string {
  return variant === undefined ? String(version) : `${version}-${variant}`;
}

/** The strong entity tag (RFC 9110 §8.8.3) of a resource as stored: `"<id>-<version>[-<variant>]"`, quotes included. */
export function versionedEntityTag({ id, version, variant }: Versioned): string {
  return `"${id}-${versionState(version, variant)}"`;
}

/** The states of resource `id` that `tags` name; strong comparison (If-Match) skips weak tags (RFC 9110 §8.8.3.2). */
export function versionsNamed(id: number, tags: readonly EntityTag[], comparison: 'strong' | 'weak'): string[] {
  const states: string[] = [];
  for (const tag of tags) {
    if (comparison === 'strong' && tag.weak) continue;
    const parts = VERSIONED_TAG.exec(tag.opaque);
    if (parts === null || canonicalIntegerValue(parts[1]) !== id) continue;
    const version = canonicalIntegerValue(parts[2]);
    if (version !== undefined && version <= INT4_MAX) states.push(`${version}${parts[3] ?? ''}`);
  }
  return states;
}

/** States ({@link versionState}) a write may change (RFC 9110 §13): only `match` (`If-Match`), none of `noneMatch`. */
export interface VersionCondition {
  readonly match?: readonly string[];
  readonly noneMatch?: readonly string[];
}

/** The states of resource `id` a write may change; null when `If-None-Match: *` fails, as for any existing resource. */
export function versionCondition(id: number, { ifMatch, ifNoneMatch }: WritePreconditions): VersionCondition | null {
  if (ifNoneMatch?.any) return null;
  return {
    match: ifMatch && !ifMatch.any ? versionsNamed(id, ifMatch.tags, 'strong') : undefined,
    noneMatch: ifNoneMatch && !ifNoneMatch.any ? versionsNamed(id, ifNoneMatch.tags, 'weak') : undefined,
  };
}

/** Whether a resource in `state` ({@link versionState}) meets `condition` (null: `If-None-Match: *`, never met). */
export function meetsVersionCondition(condition: VersionCondition | null, state: string): boolean {
  if (condition === null) return false;
  const { match, noneMatch } = condition;
  return (match === undefined || match.includes(state)) && (noneMatch === undefined || !noneMatch.includes(state));
}
