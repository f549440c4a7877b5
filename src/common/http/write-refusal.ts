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
}

/** 404: no `wording` resource has this id (or slug). */
export function notFound(wording: ResourceWording, id: number | string): NotFoundException {
  return new NotFoundException(`${wording.title} ${id} not found`);
}

/** What a refused owned, versioned write knows: the resource as it stands now (null: gone) and the request. */
interface RefusedWrite {
  readonly id: number;
  /** The resource now: its owner and its state as its entity tag names it ({@link versionState}). */
  readonly existing: { readonly ownerSub: string; readonly state: string } | null;
  /** The owner the write required; undefined for an admin. */
  readonly owner: string | undefined;
  /** The write's preconditions (null: `If-None-Match: *`). */
  readonly versions: VersionCondition | null;
  readonly action: 'update' | 'delete';
}

/**
 * Why a write of an owned, versioned resource that changed nothing was refused: 404, 403, 412, in that order;
 * undefined when none of them holds (a rule of the resource's own refused it).
 */
export function writeRefusal(wording: ResourceWording, write: RefusedWrite): HttpException | undefined {
  const { id, existing, owner, versions, action } = write;
  if (!existing) return notFound(wording, id);
  if (owner !== undefined && existing.ownerSub !== owner) {
    return new ForbiddenException(
      `Only the owner of this ${wording.noun} (the token subject that created it) or a ${wording.adminScope} token ` +
        `may ${action} it`,
    );
  }
  if (!meetsVersionCondition(versions, existing.state)) return preconditionFailed(wording, id);
  return undefined;
}

/** 412: the `wording` resource `id` changed since the entity tag the request's precondition names. */
export function preconditionFailed(wording: ResourceWording, id: number): PreconditionFailedException {
  return new PreconditionFailedException(
    `${wording.title} ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
  );
}
