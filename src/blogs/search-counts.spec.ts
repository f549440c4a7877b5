import { SEARCH_TOTAL_CAP, SearchCount, searchStillPastCap } from './blog-list';
import type { BlogListQuery } from './blogs.repository';
import type { SearchTotal } from './blog-list-statement';
import { searchCountKey, SearchCounts, SearchTurn } from './search-counts';

const NOW = new Date('2026-06-01T00:00:00.000Z');

/** A search of `word` by anyone, with `overrides`; the fields that make no key are left out unless given. */
const query = (overrides: Partial<BlogListQuery>): BlogListQuery =>
  ({ filters: { q: 'word' }, status: 'published', ...overrides }) as BlogListQuery;

/** A count of 20,001 matches at position 1,000 with a margin of 132: room for 9,869 writes either way. */
const COUNT: SearchCount = { counted: 2 * SEARCH_TOTAL_CAP + 1, position: 1_000, margin: 132 };

describe('searchStillPastCap', () => {
  it.each([
    ['no write since', 1_000, true],
    ['the most writes that leave room', 1_000 + 9_868, true],
    ['one write more', 1_000 + 9_869, false],
    ['a position behind by the most that leaves room (a lagging replica)', 1_000 - 9_868, true],
    ['a position behind by one more', 1_000 - 9_869, false],
  ])('%s: %p', (_name, current, holds) => {
    expect(searchStillPastCap(COUNT, current)).toBe(holds);
  });

  it.each([
    ['just past the cap', SEARCH_TOTAL_CAP + 1],
    ['past the cap by the margin', SEARCH_TOTAL_CAP + 132],
  ])('a count %s never holds, not even with no write since', (_name, counted) => {
    expect(searchStillPastCap({ ...COUNT, counted }, COUNT.position)).toBe(false);
  });
});

describe('searchCountKey', () => {
  it.each<[string, Partial<BlogListQuery>, Partial<BlogListQuery>]>([
    ['another word', {}, { filters: { q: 'other' } }],
    ['another filter', {}, { filters: { q: 'word', author: 'Ada' } }],
    [
      'another instant of a filter',
      { filters: { q: 'word', createdAfter: NOW } },
      { filters: { q: 'word', createdAfter: new Date(0) } },
    ],
    ['an owner (status any) and an admin (status any)', { status: 'any', owner: 'alice' }, { status: 'any' }],
    ['two owners', { status: 'draft', owner: 'alice' }, { status: 'draft', owner: 'bob' }],
    ['anonymous (published) and an admin (any)', {}, { status: 'any' }],
  ])('%s: two keys', (_name, one, other) => {
    expect(searchCountKey(query(one))).not.toBe(searchCountKey(query(other)));
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['another order', { sort: 'title' }],
    ['another page', { limit: 50, offset: 100, withContent: false }],
    ['a keyset page', { after: { id: 7, value: NOW } }],
    ['another instant of reading', { now: new Date(0) }],
  ])('%s: the same key (the same matches)', (_name, overrides) => {
    expect(searchCountKey(query(overrides))).toBe(searchCountKey(query({})));
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['no search', { filters: { author: 'Ada' } }],
    ['scheduled blogs, which the clock turns live', { status: 'scheduled', owner: 'alice' }],
  ])('%s: no key', (_name, overrides) => {
    expect(searchCountKey(query(overrides))).toBeUndefined();
  });
});

describe('SearchCounts', () => {
  it('counts a new key to one past the cap, deep once seen past it, and walks while a deep count holds', () => {
    const counts = new SearchCounts();
    expect(counts.next('a')).toBe('count');

    counts.keep('a', { ...COUNT, counted: SEARCH_TOTAL_CAP + 1 });
    expect(counts.next('a')).toBe('deep');

    counts.keep('a', COUNT);
    expect(counts.next('a')).toBe('walk');
    expect(counts.holds('a', COUNT.position + 9_868)).toBe(true);
    expect(counts.holds('a', COUNT.position + 9_869)).toBe(false);
    expect(counts.next('a')).toBe('deep');
  });

  it('forgets a key whose count falls within the cap', () => {
    const counts = new SearchCounts();
    counts.keep('a', COUNT);
    counts.keep('a', { ...COUNT, counted: SEARCH_TOTAL_CAP });

    expect(counts.next('a')).toBe('count');
    expect(counts.holds('a', COUNT.position)).toBe(false);
  });

  it('keeps at most its size, dropping the least recently used', () => {
    const counts = new SearchCounts(2);
    counts.keep('a', COUNT);
    counts.keep('b', COUNT);
    counts.holds('a', COUNT.position);
    counts.keep('c', COUNT);

    expect(counts.size).toBe(2);
    expect(['a', 'b', 'c'].map((key) => counts.next(key))).toEqual(['walk', 'count', 'walk']);
  });
});

describe('SearchCounts.turn: one count of a key at a time', () => {
  /** Lets every settled promise's callbacks run. */
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** Takes `n` turns of `key` at once; `taken` fills with the turns as they are given. */
  const race = async (counts: SearchCounts, key: string, n: number) => {
    const taken: SearchTurn[] = [];
    const all = Array.from({ length: n }, () => counts.turn(key).then((turn) => (taken.push(turn), turn)));
    await flush();
    return { taken, all };
  };

  /** What a count keeps: past the cap, a deep count with room, within the cap, or nothing (it failed). */
  const KEEP: Record<string, (counts: SearchCounts) => void> = {
    past: (counts) => counts.keepTotal('k', SEARCH_TOTAL_CAP + 1),
    room: (counts) => counts.keep('k', COUNT),
    within: (counts) => counts.keepTotal('k', SEARCH_TOTAL_CAP),
    failed: () => undefined,
  };

  it.each<[string, keyof typeof KEEP | undefined, (keyof typeof KEEP)[], SearchTotal[][]]>([
    [
      'a new key: one counts, then one deep, then the others walk',
      undefined,
      ['past', 'room'],
      [['count'], ['count', 'deep'], ['count', 'deep', 'walk', 'walk', 'walk']],
    ],
    [
      'a key seen past the cap: one counts deep, then the others walk',
      'past',
      ['room'],
      [['deep'], ['deep', 'walk', 'walk', 'walk', 'walk']],
    ],
    [
      'a failed count: the next one counts, the others still wait',
      undefined,
      ['failed'],
      [['count'], ['count', 'count']],
    ],
    [
      'a count within the cap: the others count at once',
      undefined,
      ['within'],
      [['count'], ['count', 'count', 'count', 'count', 'count']],
    ],
  ])('%s', async (_name, before, ends, readings) => {
    const counts = new SearchCounts();
    if (before !== undefined) KEEP[before](counts);
    const { taken } = await race(counts, 'k', 5);
    const seen = [taken.map((turn) => turn.reading)];
    for (const end of ends) {
      KEEP[end](counts);
      taken[taken.length - 1].done();
      await flush();
      seen.push(taken.map((turn) => turn.reading));
    }

    expect(seen).toEqual(readings);
  });

  it('takes the turns of other keys at once, and a walk waits for nothing', async () => {
    const counts = new SearchCounts();
    counts.keep('walked', COUNT);
    await counts.turn('a');
    const others = await Promise.all([counts.turn('b'), counts.turn('walked'), counts.turn('walked')]);

    expect(others.map((turn) => turn.reading)).toEqual(['count', 'walk', 'walk']);
  });

  it('a turn done twice ends only its own count', async () => {
    const counts = new SearchCounts();
    const first = await counts.turn('k');
    first.done();
    await counts.turn('k');
    first.done();
    const { taken } = await race(counts, 'k', 1);

    expect(taken).toEqual([]);
  });
});
