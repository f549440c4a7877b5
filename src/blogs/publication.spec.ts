import { BadRequestException } from '@nestjs/common';
import { expectHttpError } from '../../test/support/http-error';
import { PublicationInput, publicationOnUpdate, publishedAtOnCreate } from './publication';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const PAST = new Date('2026-05-01T00:00:00.000Z');
const FUTURE = new Date('2026-07-01T00:00:00.000Z');

describe('publishedAtOnCreate', () => {
  it.each<[string, PublicationInput, Date | null]>([
    ['nothing: published now', {}, NOW],
    ['published: now', { status: 'published' }, NOW],
    ['published at a past instant: backdated', { status: 'published', publishedAt: PAST }, PAST],
    ['published at a future instant: scheduled', { status: 'published', publishedAt: FUTURE }, FUTURE],
    ['scheduled at a future instant', { status: 'scheduled', publishedAt: FUTURE }, FUTURE],
    ['an instant without status', { publishedAt: PAST }, PAST],
    ['draft', { status: 'draft' }, null],
    ['draft with publishedAt null', { status: 'draft', publishedAt: null }, null],
  ])('%s', (_name, input, expected) => {
    expect(publishedAtOnCreate(input, NOW)).toEqual(expected);
  });

  it.each<[string, PublicationInput, string]>([
    [
      'draft with an instant',
      { status: 'draft', publishedAt: PAST },
      'publishedAt must be null or absent when status is draft',
    ],
    ['scheduled without publishedAt', { status: 'scheduled' }, 'publishedAt is required when status is scheduled'],
    [
      'scheduled in the past',
      { status: 'scheduled', publishedAt: PAST },
      'publishedAt must be in the future when status is scheduled (a past instant: status published)',
    ],
    [
      'scheduled now',
      { status: 'scheduled', publishedAt: NOW },
      'publishedAt must be in the future when status is scheduled (a past instant: status published)',
    ],
    ['null without status', { publishedAt: null }, 'publishedAt may be null only with status draft'],
    [
      'published with null',
      { status: 'published', publishedAt: null },
      'publishedAt may be null only with status draft',
    ],
    [
      'scheduled with null',
      { status: 'scheduled', publishedAt: null },
      'publishedAt may be null only with status draft',
    ],
  ])('400 for %s', async (_name, input, message) => {
    await expectHttpError(() => publishedAtOnCreate(input, NOW), BadRequestException, 400, [message]);
  });
});

describe('publicationOnUpdate', () => {
  it.each<[string, PublicationInput, ReturnType<typeof publicationOnUpdate>]>([
    ['nothing: kept', {}, { change: { kind: 'keep' } }],
    ['draft', { status: 'draft' }, { change: { kind: 'draft' } }],
    ['published: now unless live', { status: 'published' }, { change: { kind: 'now-unless-live' } }],
    ['published at an instant', { status: 'published', publishedAt: PAST }, { change: { kind: 'at', instant: PAST } }],
    [
      'scheduled at a future instant',
      { status: 'scheduled', publishedAt: FUTURE },
      { change: { kind: 'at', instant: FUTURE } },
    ],
    [
      'scheduled alone: only if scheduled already',
      { status: 'scheduled' },
      { change: { kind: 'keep' }, requirement: 'scheduled' },
    ],
    [
      'an instant alone: only if not a draft',
      { publishedAt: FUTURE },
      { change: { kind: 'at', instant: FUTURE }, requirement: 'not-draft' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(publicationOnUpdate(input, NOW)).toEqual(expected);
  });

  it.each<[string, PublicationInput]>([
    ['draft with an instant', { status: 'draft', publishedAt: FUTURE }],
    ['scheduled in the past', { status: 'scheduled', publishedAt: PAST }],
    ['null without status', { publishedAt: null }],
    ['published with null', { status: 'published', publishedAt: null }],
  ])('400 naming publishedAt for %s', (_name, input) => {
    expect(() => publicationOnUpdate(input, NOW)).toThrow(BadRequestException);
  });
});
