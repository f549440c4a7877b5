import { blogEntityTag, versionsNamed } from './blog-entity-tag';

describe('blogEntityTag', () => {
  it('is a strong tag of id and version', () => {
    expect(blogEntityTag({ id: 7, version: 1 })).toBe('"7-1"');
    expect(blogEntityTag({ id: 2147483647, version: 2147483647 })).toBe('"2147483647-2147483647"');
  });

  it('differs between versions and between blogs', () => {
    const tags = new Set([
      blogEntityTag({ id: 1, version: 12 }),
      blogEntityTag({ id: 11, version: 2 }),
      blogEntityTag({ id: 1, version: 2 }),
    ]);
    expect(tags.size).toBe(3);
  });
});

describe('versionsNamed', () => {
  const strong = (opaque: string) => ({ weak: false, opaque });
  const weak = (opaque: string) => ({ weak: true, opaque });

  it('keeps the versions of this blog, in order', () => {
    expect(versionsNamed(7, [strong('"7-2"'), strong('"7-10"'), strong('"8-3"')], 'strong')).toEqual([2, 10]);
  });

  it('skips weak tags for strong comparison, keeps them for weak comparison', () => {
    expect(versionsNamed(7, [weak('"7-2"'), strong('"7-3"')], 'strong')).toEqual([3]);
    expect(versionsNamed(7, [weak('"7-2"'), strong('"7-3"')], 'weak')).toEqual([2, 3]);
  });

  it.each([
    ['"7-0"'],
    ['"7-01"'],
    ['"07-1"'],
    ['"7-2147483648"'],
    ['"7-1e3"'],
    ['"7-"'],
    ['"7"'],
    ['7-1'],
    ['"x"'],
    ['"7-1 "'],
  ])('names no version with %p (not a tag of this service, or out of range)', (opaque) => {
    expect(versionsNamed(7, [strong(opaque)], 'strong')).toEqual([]);
  });
});
