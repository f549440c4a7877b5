import { ValidateBy, ValidationOptions } from 'class-validator';

/** Event ids: int8 in decimal digits, without sign or leading zero. */
export const EVENT_ID_PATTERN = /^(0|[1-9][0-9]{0,18})$/;

/** Largest PostgreSQL `bigint` (int8). */
const INT8_MAX = 2n ** 63n - 1n;

/** Whether `value` is an event id: {@link EVENT_ID_PATTERN} and at most int8's largest value. */
const isEventId = (value: unknown): value is string =>
  typeof value === 'string' && EVENT_ID_PATTERN.test(value) && BigInt(value) <= INT8_MAX;

/** Property rule: an event id ({@link isEventId}). */
export const IsEventId = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isEventId', validator: { validate: isEventId } }, options);
