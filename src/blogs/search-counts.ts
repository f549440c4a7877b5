import { LRUCache } from 'lru-cache';
import { SEARCH_TOTAL_CAP, SearchCount, searchStillPastCap } from './blog-list';
import type { SearchTotal } from './blog-list-statement';
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
  const { q, author, createdAfter, createdBefore, updatedAfter, tag, ...others } = filters;
  const unkeyed: Record<string, never> = others; // a filter added to BlogFilters must join the key
  return JSON.stringify([q, author, createdAfter, createdBefore, updatedAfter, tag, status, owner ?? null, unkeyed]);
}

/**
 * The searches past {@link SEARCH_TOTAL_CAP} in this process, by {@link searchCountKey}: a key seen past the cap counts
 * deep the next time (to {@link SEARCH_COUNT_LIMIT}), and a deep count that still holds answers `gte` without counting
 * (docs/architecture.md, "The list queries").
 */
export class SearchCounts {
  /** A count with room for writes, or `past`: seen past the cap with no room. */
  private readonly counts: LRUCache<string, SearchCount | 'past'>;

  constructor(size = SEARCH_COUNTS_SIZE) {
    this.counts = new LRUCache({ max: size });
  }

  /** How the next search of `key` reads its total: a walk while a count may hold, deep once seen past the cap. */
  next(key: string): SearchTotal {
    const count = this.counts.get(key);
    return count === undefined ? 'count' : count === 'past' ? 'deep' : 'walk';
  }

  /** Keeps what a search of `key` counted: a count with room for a write, `past` without, nothing within the cap. */
  keep(key: string, count: SearchCount): void {
    if (count.counted <= SEARCH_TOTAL_CAP) this.counts.delete(key);
    else this.counts.set(key, searchStillPastCap(count, count.position) ? count : 'past');
  }

  /** Keeps what a search of `key` counted without a position: `past` past the cap, else nothing. */
  keepTotal(key: string, counted: number): void {
    if (counted <= SEARCH_TOTAL_CAP) this.counts.delete(key);
    else this.counts.set(key, 'past');
  }

  /** Whether `key`'s count still holds at the write position `current`; one that no longer does leaves `past`. */
  holds(key: string, current: number): boolean {
    const count = this.counts.get(key);
    if (count === undefined || count === 'past') return false;
    if (searchStillPastCap(count, current)) return true;
    this.counts.set(key, 'past');
    return false;
  }

  /** How many keys are kept. */
  get size(): number {
    return this.counts.size;
  }
}
