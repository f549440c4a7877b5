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

/** A search's turn to read its total: how it reads it, and `done`, to call once that read ended, counted or failed. */
export interface SearchTurn {
  readonly reading: SearchTotal;
  done(): void;
}

/**
 * The searches counted in this process, by {@link searchCountKey}: a key seen past {@link SEARCH_TOTAL_CAP} counts
 * deep the next time (to {@link SEARCH_COUNT_LIMIT}), and a deep count that still holds answers `gte` without counting;
 * one count of a key runs at a time unless the key is known within the cap (docs/architecture.md, "The list queries").
 */
export class SearchCounts {
  /** A count with room for writes; `past`: seen past the cap with no room; `within`: last counted within the cap. */
  private readonly counts: LRUCache<string, SearchCount | 'past' | 'within'>;
  /** The keys whose count is in flight, each settled when it ends. */
  private readonly counting = new Map<string, Promise<void>>();

  constructor(size = SEARCH_COUNTS_SIZE) {
    this.counts = new LRUCache({ max: size });
  }

  /** How the next search of `key` reads its total: a walk while a count may hold, deep once seen past the cap. */
  next(key: string): SearchTotal {
    const count = this.counts.get(key);
    return count === undefined || count === 'within' ? 'count' : count === 'past' ? 'deep' : 'walk';
  }

  /**
   * Waits while a count of `key` is in flight, then takes {@link next}; a count (unless `key` is known within the cap)
   * or a deep count is then in flight until its `done`, so that concurrent searches of a key count once.
   */
  async turn(key: string): Promise<SearchTurn> {
    for (let flight = this.counting.get(key); flight !== undefined; flight = this.counting.get(key)) await flight;
    const reading = this.next(key);
    if (reading === 'walk' || this.counts.peek(key) === 'within') return { reading, done: () => undefined };
    let settle!: () => void;
    const flight = new Promise<void>((resolve) => (settle = resolve));
    this.counting.set(key, flight);
    const done = (): void => {
      if (this.counting.get(key) === flight) this.counting.delete(key);
      settle();
    };
    return { reading, done };
  }

  /** Keeps what a search of `key` counted: a count with room for a write, `past` without, `within` within the cap. */
  keep(key: string, count: SearchCount): void {
    if (count.counted <= SEARCH_TOTAL_CAP) this.counts.set(key, 'within');
    else this.counts.set(key, searchStillPastCap(count, count.position) ? count : 'past');
  }

  /** Keeps what a search of `key` counted without a position: `past` past the cap, else `within`. */
  keepTotal(key: string, counted: number): void {
    this.counts.set(key, counted <= SEARCH_TOTAL_CAP ? 'within' : 'past');
  }

  /** Whether `key`'s count still holds at the write position `current`; one that no longer does leaves `past`. */
  holds(key: string, current: number): boolean {
    const count = this.counts.get(key);
    if (typeof count !== 'object') return false;
    if (searchStillPastCap(count, current)) return true;
    this.counts.set(key, 'past');
    return false;
  }

  /** How many keys are kept. */
  get size(): number {
    return this.counts.size;
  }
}
