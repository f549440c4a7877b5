import type { BlogStatus } from './blog-status';
import { ValidationProblemException } from '../common/filters/problem-types';

/** What a write asks of `status` and `publishedAt` (absent: undefined; `null` only for `publishedAt`). */
export interface PublicationInput {
  readonly status?: BlogStatus;
  readonly publishedAt?: Date | null;
}

/**
 * What an update does to `published_at`: keep it, make a draft (null), set an instant, or publish now unless the blog
 * is live (`now-unless-live`).
 */
export type PublishedAtChange =
  | { readonly kind: 'keep' }
  | { readonly kind: 'draft' }
  | { readonly kind: 'at'; readonly instant: Date }
  | { readonly kind: 'now-unless-live' };

/** What the stored blog must be for an update's change to apply; else 400 ({@link requirementMessage}). */
export type StoredRequirement = 'scheduled' | 'not-draft';

/** An update's change of `published_at` and what it requires of the stored blog. */
export interface Publication {
  readonly change: PublishedAtChange;
  readonly requirement?: StoredRequirement;
}

const refuse = (message: string): ValidationProblemException =>
  ValidationProblemException.body('/publishedAt', message, true);

/**
 * The rules every write shares: a draft has no instant, `published`/`scheduled` no `null`, `scheduled` no past instant.
 * @throws BadRequestException naming `publishedAt`.
 */
function checkCommonRules({ status, publishedAt }: PublicationInput, now: Date): void {
  if (status === 'draft' && publishedAt != null) {
    throw refuse('publishedAt must be null or absent when status is draft');
  }
  if (publishedAt === null && status !== 'draft') {
    throw refuse('publishedAt may be null only with status draft');
  }
  if (status === 'scheduled' && publishedAt != null && publishedAt.getTime() <= now.getTime()) {
    throw refuse('publishedAt must be in the future when status is scheduled (a past instant: status published)');
  }
}

/**
 * `published_at` of a new blog at `now`: null for a draft, `publishedAt` when given, else `now` (`published` is the
 * default status).
 * @throws BadRequestException naming `publishedAt` when the rules of status and publishedAt are broken.
 */
export function publishedAtOnCreate(input: PublicationInput, now: Date): Date | null {
  checkCommonRules(input, now);
  if (input.status === 'draft') return null;
  if (input.publishedAt != null) return input.publishedAt;
  if (input.status === 'scheduled') throw refuse('publishedAt is required when status is scheduled');
  return now;
}

/**
 * What an update does to `published_at` at `now`, before the stored blog is known.
 * @throws BadRequestException naming `publishedAt` when the rules of status and publishedAt are broken.
 */
export function publicationOnUpdate(input: PublicationInput, now: Date): Publication {
  checkCommonRules(input, now);
  const { status, publishedAt } = input;
  if (status === 'draft') return { change: { kind: 'draft' } };
  if (publishedAt != null) {
    return {
      change: { kind: 'at', instant: publishedAt },
      requirement: status === undefined ? 'not-draft' : undefined,
    };
  }
  if (status === 'published') return { change: { kind: 'now-unless-live' } };
  if (status === 'scheduled') return { change: { kind: 'keep' }, requirement: 'scheduled' };
  return { change: { kind: 'keep' } };
}

/** The 400 of an update whose {@link StoredRequirement} the stored blog does not meet, naming `publishedAt`. */
export function requirementMessage(requirement: StoredRequirement): string {
  return requirement === 'scheduled'
    ? 'publishedAt is required when status is scheduled, unless the blog is scheduled already'
    : 'publishedAt cannot be set on a draft without a status: send status published or scheduled with it';
}
