import { meetsVersionCondition, versionCondition, versionedEntityTag, versionsNamed } from './versioned-entity-tag';
import { parseWritePreconditions } from './entity-tag-condition';

describe('versionedEntityTag', () => {
  it('is a strong tag of id and version', () => {
    expect(versionedEntityTag({ id: 7, version: 1 })).toBe('"7-1"');
    expect(versionedEntityTag({ id: 2147483647, version: 2147483647 })).toBe('"2147483647-2147483647"');
  });

  it('differs between versions and between resources', () => {
    const tags = new Set([
      versionedEntityTag({ id: 1, version: 12 }),
      versionedEntityTag({ id: 11, version: 2 }),
      versionedEntityTag({ id: 1, version: 2 }),
    ]);
    expect(tags.size).toBe(3);
  });

  it('carries the variant after the version', () => {
    expect(versionedEntityTag({ id: 7, version: 3, variant: 'scheduled' })).toBe('"7-3-scheduled"');
  });
});

describe('versionsNamed', () => {
  const strong = (opaque: string) => ({ weak: false, opaque });
  const weak = (opaque: string) => ({ weak: true, opaque });

  it('keeps the versions of this resource, in order', () => {
    expect(versionsNamed(7, [strong('"7-2"'), strong('"7-10"'), strong('"8-3"')], 'strong')).toEqual(['2', '10']);
  });

  it('skips weak tags for strong comparison, keeps them for weak comparison', () => {
    expect(versionsNamed(7, [weak('"7-2"'), strong('"7-3"')], 'strong')).toEqual(['3']);
    expect(versionsNamed(7, [weak('"7-2"'), strong('"7-3"')], 'weak')).toEqual(['2', '3']);
  });

  it('keeps the variant of a tag', () => {
    expect(versionsNamed(7, [strong('"7-3-scheduled"'), strong('"7-3"')], 'strong')).toEqual(['3-scheduled', '3']);
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
    ['"7-1-"'],
    ['"7-1-Scheduled"'],
    ['"7-1-a-b"'],
  ])('names no version with %p (not a tag of this service, or out of range)', (opaque) => {
    expect(versionsNamed(7, [strong(opaque)], 'strong')).toEqual([]);
  });
});

describe('versionCondition', () => {
  it.each([
    ['no precondition', undefined, undefined, { match: undefined, noneMatch: undefined }],
    ['If-Match: *', '*', undefined, { match: undefined, noneMatch: undefined }],
    ['If-Match tags', '"7-2", W/"7-3", "8-4"', undefined, { match: ['2'], noneMatch: undefined }],
    ['If-None-Match tags', undefined, '"7-2", W/"7-3"', { match: undefined, noneMatch: ['2', '3'] }],
    ['If-None-Match: *', undefined, '*', null],
  ])('%s gives %j', (_name, ifMatch, ifNoneMatch, expected) => {
    expect(versionCondition(7, parseWritePreconditions({ ifMatch, ifNoneMatch }))).toEqual(expected);
  });
});

describe('meetsVersionCondition', () => {
  it.each([
    ['no precondition', {}, '3', true],
    ['a matching If-Match', { match: ['3'] }, '3', true],
    ['If-Match of another variant', { match: ['3'] }, '3-scheduled', false],
    ['If-Match of another version', { match: ['2'] }, '3', false],
    ['If-None-Match of the state', { noneMatch: ['3-scheduled'] }, '3-scheduled', false],
    ['If-None-Match of another state', { noneMatch: ['3'] }, '3-scheduled', true],
    ['If-None-Match: *', null, '3', false],
  ])('%s: %j, state %s → %j', (_name, condition, state, expected) => {
    expect(meetsVersionCondition(condition, state)).toBe(expected);
  });
});
