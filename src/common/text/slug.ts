import { transliterate } from 'transliteration';

/** A slug: lower-case ASCII letters and digits in runs joined by single `-`. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Longest slug, in characters. */
export const SLUG_MAX_LENGTH = 200;

/** How far back from the length limit a cut looks for a `-` to end on, in characters. */
const CUT_SEARCH = 32;

/** Whether `text` is a slug of at most `maxLength` characters. */
export function isSlug(text: string, maxLength: number = SLUG_MAX_LENGTH): boolean {
  return text.length <= maxLength && SLUG_PATTERN.test(text);
}

/**
 * The slug of a title or name: transliterated to ASCII (`ö` → `o`, `ß` → `ss`), lower case, each run of other
 * characters one `-`, none at either end, at most `maxLength` characters (cut at a nearby `-`).
 * @returns undefined when no letter or digit is left.
 */
export function slugOf(text: string, maxLength: number = SLUG_MAX_LENGTH): string | undefined {
  const slug = transliterate(text)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? undefined : cut(slug, maxLength);
}

/**
 * `base` with the suffix `-n` (`n` ≥ 2), `base` cut to leave room so that the whole is at most
 * {@link SLUG_MAX_LENGTH} characters, without a `-` before the suffix's (the SQL of blog creation computes the same).
 */
export function suffixedSlug(base: string, n: number): string {
  const suffix = `-${n}`;
  return `${base.slice(0, SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** `slug` in at most `maxLength` characters, ending at a `-` within {@link CUT_SEARCH} of the limit when there is one. */
function cut(slug: string, maxLength: number): string {
  if (slug.length <= maxLength) return slug;
  const head = slug.slice(0, maxLength);
  if (slug[maxLength] === '-') return head;
  const dash = head.lastIndexOf('-');
  const end = dash >= maxLength - CUT_SEARCH && dash > 0 ? dash : maxLength;
  return head.slice(0, end).replace(/-+$/, '');
}
