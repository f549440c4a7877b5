/** How an instant finer than a millisecond becomes one: the millisecond at or before it, or at or after it. */
export type MillisecondRounding = 'floor' | 'ceil';

/** The instants a date-time may name: the range both PostgreSQL and the embedded PGlite accept as `timestamptz`. */
export const DATE_TIME_RANGE = {
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
} as const;

// RFC 3339 §5.6 `date-time`: `T` and `Z` in either case (§5.6, note), any number of fraction digits.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const daysInMonth = (year: number, month: number): number =>
  [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];

/**
 * The instant an RFC 3339 `date-time` (`2026-11-22T10:00:00Z`, `…+01:00`, `….123456Z`) names, to the
 * millisecond as `rounding` says; second 60 (a leap second) is the first instant of the next minute.
 * @returns undefined when `text` is no such date-time, or names an instant outside {@link DATE_TIME_RANGE}.
 */
export function parseRfc3339DateTime(text: string, rounding: MillisecondRounding): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [fraction = '', sign, offsetHour = '00', offsetMinute = '00'] = match.slice(7);
  const [oh, om] = [Number(offsetHour), Number(offsetMinute)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60 || oh > 23 || om > 59) return undefined;
  const finer = /[1-9]/.test(fraction.slice(3));
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0')) + (finer && rounding === 'ceil' ? 1 : 0);
  const local = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, ms);
  const instant = new Date(local.getTime() - (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000);
  return instant >= DATE_TIME_RANGE.min && instant <= DATE_TIME_RANGE.max ? instant : undefined;
}
