import { BadRequestException, createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** One entity tag of an `If-Match` / `If-None-Match` list (RFC 9110 §8.8.3); `opaque` keeps its quotes. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** A parsed `If-Match` / `If-None-Match` value (RFC 9110 §13.1.1, §13.1.2): `*` or a list of tags. */
type EntityTagCondition = { readonly any: true } | { readonly any: false; readonly tags: readonly EntityTag[] };

/** Longest `If-Match` / `If-None-Match` value parsed, in characters. */
export const MAX_ENTITY_TAG_CONDITION_LENGTH = 2048;

// Trailing blanks sit inside the optional group, so a failed match stays linear (docs/security.md).
const LIST_ELEMENT = /[ \t]*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*)?(,|$)/y;

/**
 * Parses an `If-Match` / `If-None-Match` value as Node.js gives it (repeated fields joined by `, `).
 * @throws BadRequestException (400) naming `name` when the value is too long, or neither `*` nor a list of tags.
 */
export function parseEntityTagCondition(name: string, value: string): EntityTagCondition {
  if (value.length > MAX_ENTITY_TAG_CONDITION_LENGTH) {
    throw new BadRequestException(`${name} must be at most ${MAX_ENTITY_TAG_CONDITION_LENGTH} characters long`);
  }
  if (value.trim() === '*') return { any: true };
  const tags: EntityTag[] = [];
  LIST_ELEMENT.lastIndex = 0;
  for (;;) {
    const element = LIST_ELEMENT.exec(value);
    if (element === null) {
      throw new BadRequestException(`${name} must be * or a comma-separated list of quoted entity tags`);
    }
    if (element[2] !== undefined) tags.push({ weak: element[1] !== undefined, opaque: element[2] });
    if (element[3] === '') return { any: false, tags };
  }
}

/** The parsed `If-Match` and `If-None-Match` of a conditional write (RFC 9110 §13.1). */
export interface WritePreconditions {
  readonly ifMatch?: EntityTagCondition;
  readonly ifNoneMatch?: EntityTagCondition;
}

/** The `If-Match` and `If-None-Match` of a write as sent (Node.js joins repeated fields with `, `). */
export interface PreconditionHeaders {
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
}

/** A write handler's {@link PreconditionHeaders}, unparsed: `parseWritePreconditions` runs after the body checks. */
export const Preconditions = createParamDecorator((_data: unknown, context: ExecutionContext): PreconditionHeaders => {
  const { headers } = context.switchToHttp().getRequest<Request>();
  return { ifMatch: headers['if-match'], ifNoneMatch: headers['if-none-match'] };
});

/**
 * Parses the `If-Match` / `If-None-Match` values of a write; call it after the body was validated.
 * @throws BadRequestException (400) naming the header, for a malformed value.
 */
export function parseWritePreconditions({ ifMatch, ifNoneMatch }: PreconditionHeaders): WritePreconditions {
  return {
    ifMatch: ifMatch === undefined ? undefined : parseEntityTagCondition('If-Match', ifMatch),
    ifNoneMatch: ifNoneMatch === undefined ? undefined : parseEntityTagCondition('If-None-Match', ifNoneMatch),
  };
}
