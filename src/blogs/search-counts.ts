import { LRUCache } from 'lru-cache';
import { SearchCount, searchStillPastCap } from './blog-list';
import type { BlogListQuery } from './blogs.repository';

/** Searches whose count is kept in memory, each by its filters and scope (a key of at most a few hundred characters). */
export const SEARCH_COUNTS_SIZE = 1_000;

/**
 * The key of the blogs a search matches: its filters, its status and its owner (the reader's scope: anonymous,
 * an owner, or every owner for an admin); undefined for scheduled blogs, which the clock alone turns live, with no
 * write.
 */
export function searchCountKey({ filters, status, owner }: BlogListQuery): string | undefined {
  if (filters.q === undefined || status === 'scheduled') return undefined;
  const { q, author, createdAfter, createdBefore, updatedAfter, tag } = filters;
  return JSON.stringify([q, author, createdAfter, createdBefore, updatedAfter, tag, status, owner ?? null]);
}

/**
 * The counts of the searches past {@link SEARCH_TOTAL_CAP} in this process, by {@link searchCountKey}: a search whose
 * count still holds answers `gte` without counting (docs/architecture.md, "The list queries").
 */
export class SearchCounts {
  private readonly counts: LRUCache<string, SearchCount>;

  constructor(size = SEARCH_COUNTS_SIZE) {
    this.counts = new LRUCache({ max: size });
  }

  /** The count kept for `key` when it may still hold (its matches past the cap), else undefined. */
  kept(key: string): SearchCount | undefined {
    return this.counts.get(key);
  }

  /** Keeps `count` for `key` when it leaves room for a write ({@link searchStillPastCap} at its own position). */
  keep(key: string, count: SearchCount): void {
    if (searchStillPastCap(count, count.position)) this.counts.set(key, count);
    else this.counts.delete(key);
  }

  /** Whether `key`'s kept count still holds at the write position `current`; one that no longer does is dropped. */
  holds(key: string, current: number): boolean {
    const count = this.counts.get(key);
    if (count === undefined) return false;
    if (searchStillPastCap(count, current)) return true;
    this.counts.delete(key);
    return false;
  }

  /** How many counts are kept. */
  get size(): number {
    return this.counts.size;
  }
}
