import { ArgumentMetadata, BadRequestException, PipeTransform } from '@nestjs/common';
import { globalPipes } from '../../src/common/pipes/global-pipes';
import { errorOf, HttpExceptionClass } from './http-error';

/** The application's global pipes, then `routePipes`, as Nest runs them for one parameter described by `metadata`. */
export function globalPipesFor(metadata: ArgumentMetadata, routePipes: readonly PipeTransform[] = []) {
  /** What the pipes make of `value`. */
  async function runPipes(value: unknown): Promise<unknown> {
    let v = value;
    for (const pipe of [...globalPipes(), ...routePipes]) v = await pipe.transform(v, metadata);
    return v;
  }

  /** The exception of `type` the pipes throw for `value`; fails when they throw none or another. */
  async function rejectionOf<T extends InstanceType<HttpExceptionClass>>(
    value: unknown,
    type: abstract new (...args: never[]) => T,
  ): Promise<T> {
    const error = await errorOf(runPipes(value));
    expect(error).toBeInstanceOf(type);
    return error as T;
  }

  /** The messages of the 400 the pipes answer for `value`, always as an array. */
  async function messagesOf(value: unknown): Promise<string[]> {
    const error = await rejectionOf(value, BadRequestException);
    expect(error.getStatus()).toBe(400);
    const message = (error.getResponse() as { message: string | string[] }).message;
    return Array.isArray(message) ? message : [message];
  }

  return { runPipes, rejectionOf, messagesOf };
}
