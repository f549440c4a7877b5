import type { HttpException } from '@nestjs/common';

/** An HTTP exception class of Nest (`NotFoundException`, …). */
export type HttpExceptionClass = abstract new (...args: never[]) => HttpException;

/** What `act` threw, or the reason `act` rejected with; fails when it did neither. */
export async function errorOf(act: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof act === 'function' ? act() : act);
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but none was thrown');
}

/** Expects `act` to throw (or reject with) a `type` of `status` whose message (or list of messages) is `message`. */
export async function expectHttpError(
  act: Promise<unknown> | (() => unknown),
  type: HttpExceptionClass,
  status: number,
  message: string | readonly string[],
): Promise<void> {
  const error = (await errorOf(act)) as HttpException;
  expect(error).toBeInstanceOf(type);
  const actual = Array.isArray(message) ? (error.getResponse() as { message?: unknown }).message : error.message;
  expect({ status: error.getStatus(), message: actual }).toEqual({ status, message });
}
