import { BadRequestException } from '@nestjs/common';

/** One entity tag of a request's `If-Match` / `If-None-Match` list (RFC 9110 §8.8.3). */
export interface EntityTag {
  /** True for `W/"…"` (a weak validator). */
  readonly weak: boolean;
  /** The opaque tag with its double quotes, e.g. `"7-2"`. */
  readonly opaque: string;
}

/**
 * A parsed `If-Match` or `If-None-Match` field value (RFC 9110 §13.1.1, §13.1.2): `*` (any
 * current representation), or a list of entity tags, possibly empty.
 */
export type EntityTagCondition = { readonly any: true } | { readonly any: false; readonly tags: readonly EntityTag[] };

/**
 * One list element and the separator after it: optional whitespace, an optional entity tag
 * (`[W/] DQUOTE *etagc DQUOTE`, etagc = %x21 / %x23-7E / obs-text), optional whitespace, then a
 * comma or the end. Empty elements are allowed (RFC 9110 §5.6.1.2). A comma may occur inside the
 * quotes, so the list cannot simply be split on commas.
 */
const LIST_ELEMENT = /[ \t]*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(,|$)/y;

/**
 * Parses the value of an `If-Match` or `If-None-Match` header. Node.js joins repeated fields of
 * these names with `, `, which is the same list.
 *
 * @param name - the header's name, for the 400 message.
 * @param value - the field value as Node.js gives it (latin1 for bytes over 0x7F).
 * @returns `{ any: true }` for `*`, else the entity tags in order (none for an empty value).
 * @throws BadRequestException (400) when the value is neither `*` nor a list of entity tags, e.g.
 *   an unquoted tag or `*` inside a list.
 */
export function parseEntityTagCondition(name: string, value: string): EntityTagCondition {
  if (value.trim() === '*') return { any: true };
  const tags: EntityTag[] = [];
  let position = 0;
  for (;;) {
    LIST_ELEMENT.lastIndex = position;
    const element = LIST_ELEMENT.exec(value);
    if (element === null) {
      throw new BadRequestException(`${name} must be * or a comma-separated list of quoted entity tags`);
    }
    if (element[2] !== undefined) tags.push({ weak: element[1] !== undefined, opaque: element[2] });
    if (element[3] === '') return { any: false, tags };
    position = LIST_ELEMENT.lastIndex;
  }
}
