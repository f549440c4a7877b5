import { isSlug, SLUG_MAX_LENGTH, slugOf, suffixedSlug } from './slug';

describe('slugOf', () => {
  it.each([
    ['Hello, Wörld', 'hello-world'],
    ['Straße & Co.', 'strasse-co'],
    ['C++ / Node.js 22', 'c-node-js-22'],
    ['  --Already-a-slug--  ', 'already-a-slug'],
    ['Привет мир', 'privet-mir'],
    ['日本語', 'ri-ben-yu'],
    ['UPPER_case', 'upper-case'],
  ])('%j → %j', (text, slug) => {
    expect(slugOf(text)).toBe(slug);
  });

  it.each(['', '🎉🎉', ' & + . ', '\u0301'])('%j has no slug', (text) => {
    expect(slugOf(text)).toBeUndefined();
  });

  it('cuts a long title at a dash near the limit', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const slug = slugOf(words)!;
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH);
    expect(slug.length).toBeGreaterThan(SLUG_MAX_LENGTH - 32);
    expect(words.replace(/ /g, '-').startsWith(`${slug}-`)).toBe(true);
    expect(isSlug(slug)).toBe(true);
  });

  it('cuts a long word at the limit when no dash is near', () => {
    expect(slugOf(`a-${'b'.repeat(300)}`)).toBe(`a-${'b'.repeat(SLUG_MAX_LENGTH - 2)}`);
  });

  it('keeps a slug that ends exactly at the limit before a dash', () => {
    const head = 'c'.repeat(SLUG_MAX_LENGTH);
    expect(slugOf(`${head} tail`)).toBe(head);
  });
});

describe('suffixedSlug', () => {
  it('appends the suffix', () => {
    expect(suffixedSlug('hello-world', 2)).toBe('hello-world-2');
  });

  it('keeps the whole within the limit', () => {
    const slug = suffixedSlug('d'.repeat(SLUG_MAX_LENGTH), 10);
    expect(slug).toBe(`${'d'.repeat(SLUG_MAX_LENGTH - 3)}-10`);
    expect(isSlug(slug)).toBe(true);
  });
});

describe('isSlug', () => {
  it.each([
    ['hello-world', true],
    ['a', true],
    ['Hello', false],
    ['-a', false],
    ['a--b', false],
    ['a-', false],
    ['', false],
    ['ä', false],
  ])('%j → %j', (text, expected) => {
    expect(isSlug(text)).toBe(expected);
  });

  it.each([
    [SLUG_MAX_LENGTH, true],
    [SLUG_MAX_LENGTH + 1, false],
  ])('%i characters → %j', (length, expected) => {
    expect(isSlug('a'.repeat(length))).toBe(expected);
  });
});
