import { HttpException, InternalServerErrorException } from '@nestjs/common';
import type { VersionCondition } from './versioned-entity-tag';
import { preconditionFailed, RefusedWrite, ResourceWording, writeRefusal } from './write-refusal';

/** The conditions of an owned, versioned write: the owner it requires (undefined: any) and the states it may change. */
export interface OwnedWriteCondition {
  readonly owner: string | undefined;
  readonly versions: VersionCondition;
}

/**
 * SQL: the row `"id" = $1` when owned by $2 (`"owner_sub"`; null: any owner) in a state (the SQL text `state`, as its
 * entity tag names it) in $3 and not in $4 (null: any), for the `WHERE` of an `UPDATE` or a `DELETE`.
 */
export const writableSql = (state: string): string => `"id" = $1 AND ($2::text IS NULL OR "owner_sub" = $2)
    AND ($3::text[] IS NULL OR ${state} = ANY($3::text[]))
    AND ($4::text[] IS NULL OR ${state} <> ALL($4::text[]))`;

/** The parameters $1-$4 of {@link writableSql} for resource `id` under `condition`. */
export function writableValues(id: number, { owner, versions }: OwnedWriteCondition): unknown[] {
  return [id, owner ?? null, versions.match ?? null, versions.noneMatch ?? null];
}

/** What {@link conditionalWrite} knows of every write: the resource, the owner it requires, the action. */
interface WriteAttempt {
  readonly wording: ResourceWording;
  readonly id: number;
  /** The owner the write requires (`requiredOwner`); undefined for an admin. */
  readonly owner: string | undefined;
  readonly action: 'update' | 'delete';
  /** A refusal by the resource's own rules (a publishing requirement), asked after 404, 403 and 412. */
  readonly ownRefusal?: () => HttpException | undefined;
  /** Whether the request has `If-Match` or `If-None-Match`: a refusal nothing else explains is then a 412. */
  readonly conditional?: boolean;
  /** How many times the write runs when nothing explains its refusal (the resource became visible meanwhile); 1. */
  readonly attempts?: number;
}

/** A write of a versioned resource: `current` gives its owners and state as its entity tag names it. */
interface VersionedWrite<T> extends WriteAttempt {
  /** The write's preconditions (`versionCondition`; null: `If-None-Match: *`, which no existing resource meets). */
  readonly versions: VersionCondition | null;
  /** Runs the write under `versions` (never for null): its result, or null / false when it changed nothing. */
  readonly write: (versions: VersionCondition) => Promise<T | null | false>;
  /** The resource now, read on the primary; null when it is gone or the writer may not see it. */
  readonly current: () => Promise<(RefusedWrite['existing'] & { readonly state: string }) | null>;
}

/** A write of a resource without versions (no entity tag to match): 404 or 403 only. */
interface UnversionedWrite<T> extends WriteAttempt {
  readonly versions?: undefined;
  /** Runs the write: its result, or null / false when it changed nothing. */
  readonly write: () => Promise<T | null | false>;
  /** The resource now, read on the primary; null when it is gone or the writer may not see it. */
  readonly current: () => Promise<RefusedWrite['existing']>;
}

/**
 * Runs an owned write whose statement checks existence, ownership and preconditions itself; only when it changed
 * nothing reads the resource again (`current`) to choose the answer (docs/architecture.md, "Which rule lives where").
 * @returns what `write` returned.
 * @throws NotFoundException (404), ForbiddenException (403), PreconditionFailedException (412), `ownRefusal`'s error,
 *   412 for a conditional write a concurrent one overtook, in that order; InternalServerErrorException when nothing
 *   explains the refusal after `attempts` runs.
 */
export async function conditionalWrite<T>(write: VersionedWrite<T> | UnversionedWrite<T>): Promise<T> {
  const { wording, id, owner, action, versions, attempts = 1 } = write;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const done = versions === null ? null : await write.write(versions as VersionCondition);
    if (done !== null && done !== false) return done;
    const existing = await write.current();
    const refusal =
      writeRefusal(wording, { id, existing, owner, versions, action } as RefusedWrite) ?? write.ownRefusal?.();
    if (refusal) throw refusal;
    if (write.conditional) throw preconditionFailed(wording, id);
  }
  throw new InternalServerErrorException(
    action === 'update' ? 'The update was not stored' : `The ${wording.noun} was not deleted`,
  );
}
