import {
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import type { WritePreconditions } from './entity-tag-condition';

/** How a resource's errors name it: `Blog 7 not found`, `the owner of this blog`, `a blogs:admin token`. */
export interface ResourceWording {
  /** Capitalised, before an id: `Blog`. */
  readonly title: string;
  /** Lower case: `blog`. */
  readonly noun: string;
  /** The scope that may write any of them: `blogs:admin`. */
  readonly adminScope: string;
}

/** 404: no `wording` resource has this id. */
export function notFound(wording: ResourceWording, id: number): NotFoundException {
  return new NotFoundException(`${wording.title} ${id} not found`);
}

/** What a refused owned, versioned write knows: the resource as it stands now (null: gone) and the request. */
interface RefusedWrite {
  readonly id: number;
  readonly existing: { readonly ownerSub: string } | null;
  /** The owner the write required; undefined for an admin. */
  readonly owner: string | undefined;
  readonly preconditions: WritePreconditions;
  readonly action: 'update' | 'delete';
}

/** Why a write of an owned, versioned resource that changed nothing was refused: 404, 403, 412, else 500. */
export function writeRefusal(wording: ResourceWording, write: RefusedWrite): HttpException {
  const { id, existing, owner, preconditions, action } = write;
  if (!existing) return notFound(wording, id);
  if (owner !== undefined && existing.ownerSub !== owner) {
    return new ForbiddenException(
      `Only the owner of this ${wording.noun} (the token subject that created it) or a ${wording.adminScope} token ` +
        `may ${action} it`,
    );
  }
  if (preconditions.ifMatch || preconditions.ifNoneMatch) {
    return new PreconditionFailedException(
      `${wording.title} ${id} has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag`,
    );
  }
  // Only something inside the database (a trigger, a rule) can refuse an allowed, unconditional write.
  return new InternalServerErrorException(
    action === 'update' ? 'The update was not stored' : `The ${wording.noun} was not deleted`,
  );
}
