import { ForbiddenException, HttpException, NotFoundException, PreconditionFailedException } from '@nestjs/common';
import { meetsVersionCondition, VersionCondition } from './versioned-entity-tag';

/** How a resource's errors name it: `Blog 7 not found`, `the owner of this blog`, `a blogs:admin token`. */
export interface ResourceWording {
  /** Capitalised, before an id: `Blog`. */
  readonly title: string;
  /** Lower case: `blog`. */
  readonly noun: string;
  /** The scope that may write any of them: `blogs:admin`. */
  readonly adminScope: string;
  /** Who else may write one, besides its owner and the admin scope: `the owner of its blog`. */
  readonly otherWriters?: string;
}

/** 404: no `wording` resource has this id (or slug). */
export function notFound(wording: ResourceWording, id: number | string): NotFoundException {
  return new NotFoundException(`${wording.title} ${id} not found`);
}

/** The owners of a resource as it stands now. */
interface Owned {
  readonly ownerSub: string;
  /** Subjects besides the owner who may write it ({@link ResourceWording.otherWriters}): a comment's blog owner. */
  readonly otherWriterSubs?: readonly string[];
}

/** What every refused owned write knows: the resource's id, the owner the write required and the action. */
interface RefusedWriteBase {
  readonly id: number;
  /** The owner the write required; undefined for an admin. */
  readonly owner: string | undefined;
  readonly action: 'update' | 'delete';
}

/** A refused write of a versioned resource: 404, 403 or 412. */
interface RefusedVersionedWrite extends RefusedWriteBase {
  /** The resource now (null: gone or not visible): its owners and its state as its entity tag names it ({@link versionState}). */
  readonly existing: (Owned & { readonly state: string }) | null;
  /** The write's preconditions (null: `If-None-Match: *`). */
  readonly versions: VersionCondition | null;
}

/** A refused write of a resource without versions (never updated, no entity tag): 404 or 403 only. */
interface RefusedUnversionedWrite extends RefusedWriteBase {
  /** The resource now (null: gone or not visible). */
  readonly existing: Owned | null;
  readonly versions?: undefined;
}

/** What a refused owned write knows: the resource as it stands now and the request. */
export type RefusedWrite = RefusedVersionedWrite | RefusedUnversionedWrite;

/**
 * Why an owned write that changed nothing was refused: 404, 403, then (for a versioned resource) 412, in that order;
 * undefined when none of them holds (a rule of the resource's own refused it).
 */
export function writeRefusal(wording: ResourceWording, write: RefusedWrite): HttpException | undefined {
  const { id, owner, action } = write;
  if (!write.existing) return notFound(wording, id);
  const { ownerSub, otherWriterSubs = [] } = write.existing;
  if (owner !== undefined && ownerSub !== owner && !otherWriterSubs.includes(owner))
    return notOwner(wording, `${action} it`);
  if (write.versions === null) return existsAlready(wording, id);
  if (write.versions !== undefined && !meetsVersionCondition(write.versions, write.existing.state)) {
    return preconditionFailed(wording, id);
  }
  return undefined;
}

/** 403: only the owner of a `wording` resource (its other writers, the admin scope) may do `what` ("update it"). */
export function notOwner(wording: ResourceWording, what: string): ForbiddenException {
  const others = wording.otherWriters === undefined ? '' : `, ${wording.otherWriters}`;
  return new ForbiddenException(
    `Only the owner of this ${wording.noun} (the token subject that created it)${others} or a ` +
      `${wording.adminScope} token may ${what}`,
  );
}

/** 412: the `wording` resource `id` changed since the entity tag the request's precondition names. */
export function preconditionFailed(wording: ResourceWording, id: number): PreconditionFailedException {
  return new PreconditionFailedException(
    `${wording.title} ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
  );
}

/** 412: the `wording` resource `id` exists, where `If-None-Match: *` lets a write through only when none does (RFC 9110 §13.1.2). */
export function existsAlready(wording: ResourceWording, id: number): PreconditionFailedException {
  return new PreconditionFailedException(
    `${wording.title} ${id} exists (If-None-Match: *): the precondition holds only where there is no ${wording.noun}`,
  );
}
