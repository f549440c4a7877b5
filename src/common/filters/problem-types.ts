import {
  BadRequestException,
  ConflictException,
  HttpException,
  HttpStatus,
  UnprocessableEntityException,
} from '@nestjs/common';

/** A problem type a client acts on (RFC 9457 §4): its status, title, and the page `GET /problems/<name>` serves. */
export interface ProblemType {
  readonly status: number;
  readonly title: string;
  /** What the problem means, one paragraph. */
  readonly meaning: string;
  /** What a client does about it, one paragraph. */
  readonly action: string;
}

/** The problem types of contract 1.8, by name; each is `<PUBLIC_URL>/problems/<name>` (docs/api.md, "Errors"). */
export const PROBLEM_TYPES = {
  'validation-error': {
    status: HttpStatus.BAD_REQUEST,
    title: 'The request is not valid',
    meaning:
      'A path parameter, a query parameter or the body breaks a rule of the operation. `errors` lists each broken ' +
      'rule: `pointer` is a JSON Pointer (RFC 6901) into the body (`""` is the whole body), `parameter` names a ' +
      'query or path parameter.',
    action: 'Correct the values `errors` names and send the request again; the same request fails the same way.',
  },
  'precondition-failed': {
    status: HttpStatus.PRECONDITION_FAILED,
    title: 'A precondition failed',
    meaning:
      'The `If-Match` or `If-None-Match` condition does not hold: the resource changed since you read it (or exists ' +
      'when you asked it not to). Nothing was changed.',
    action: 'Read the resource again, apply your change to what you read, and send it with the new `ETag`.',
  },
  'slug-taken': {
    status: HttpStatus.CONFLICT,
    title: 'The slug is taken',
    meaning: "The `slug` in the body is another resource's slug; slugs are unique. Nothing was changed.",
    action: 'Choose another slug (or leave it out to have one made from the title) and send the request again.',
  },
  'rate-limited': {
    status: HttpStatus.TOO_MANY_REQUESTS,
    title: 'Too many requests',
    meaning:
      'The client spent its budget of requests (reads per client address, writes per token subject). Nothing was ' +
      'changed.',
    action: 'Wait the seconds `Retry-After` gives, then send the request again.',
  },
  'idempotency-key-reused': {
    status: HttpStatus.UNPROCESSABLE_ENTITY,
    title: 'The Idempotency-Key was used for another request',
    meaning:
      'The `Idempotency-Key` was sent before with another method, path or body. Nothing was changed, and the ' +
      "first request's answer is kept for the key.",
    action: 'Send a new request with a new key; repeat a request only with the same key, method, path and body.',
  },
  'idempotency-key-in-flight': {
    status: HttpStatus.CONFLICT,
    title: 'A request with this Idempotency-Key is in progress',
    meaning: 'The first request with this `Idempotency-Key` has not been answered yet.',
    action: 'Retry the same request after a moment: it is answered as the first one once that one is done.',
  },
} as const satisfies Record<string, ProblemType>;

/** The name of a problem type: `validation-error`, `slug-taken`, … */
export type ProblemTypeName = keyof typeof PROBLEM_TYPES;

/** One broken rule of a `validation-error`: a JSON Pointer into the body, or a query or path parameter's name. */
export type InvalidParam =
  { readonly detail: string; readonly pointer: string } | { readonly detail: string; readonly parameter: string };

/** An exception answered as the problem type `problemType` (RFC 9457 §3.1 `type`). */
export interface TypedProblem {
  readonly problemType: ProblemTypeName;
}

/**
 * 400 `validation-error`: `message` keeps the 1.x message(s); `errors` lists each broken rule for the filter.
 * @see InvalidParam
 */
export class ValidationProblemException extends BadRequestException implements TypedProblem {
  readonly problemType = 'validation-error';

  constructor(
    message: string | string[],
    readonly errors: readonly InvalidParam[],
  ) {
    super(message);
  }

  /** A 400 of one message about the query or path parameter `name`. */
  static parameter(name: string, message: string, asList = false): ValidationProblemException {
    return new ValidationProblemException(asList ? [message] : message, [{ detail: message, parameter: name }]);
  }

  /** A 400 of one message about the body at the JSON Pointer `pointer` (`''`: the whole body). */
  static body(pointer: string, message: string, asList = false): ValidationProblemException {
    return new ValidationProblemException(asList ? [message] : message, [{ detail: message, pointer }]);
  }
}

/** 409 `slug-taken`: the slug is another resource's. */
export class SlugTakenException extends ConflictException implements TypedProblem {
  readonly problemType = 'slug-taken';
}

/** 409 `idempotency-key-in-flight`: the first request with the key is not answered yet. */
export class IdempotencyKeyInFlightException extends ConflictException implements TypedProblem {
  readonly problemType = 'idempotency-key-in-flight';
}

/** 422 `idempotency-key-reused`: the key was used with another method, path or body. */
export class IdempotencyKeyReusedException extends UnprocessableEntityException implements TypedProblem {
  readonly problemType = 'idempotency-key-reused';
}

/** Problem types every exception of a status has, whoever throws it. */
const TYPE_OF_STATUS: Readonly<Partial<Record<number, ProblemTypeName>>> = {
  [HttpStatus.PRECONDITION_FAILED]: 'precondition-failed',
  [HttpStatus.TOO_MANY_REQUESTS]: 'rate-limited',
};

/** The problem type of `exception` answered with `status`, or undefined for `about:blank`. */
export function problemTypeOf(exception: unknown, status: number): ProblemTypeName | undefined {
  const named = (exception as Partial<TypedProblem> | null)?.problemType;
  if (exception instanceof HttpException && named !== undefined && named in PROBLEM_TYPES) return named;
  return TYPE_OF_STATUS[status];
}

/** RFC 6901: one reference token, `~` as `~0` and `/` as `~1`. */
export const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON Pointer (RFC 6901) of the path `tokens`: `['tags', '3']` → `/tags/3`; `[]` → `''` (the whole document). */
export const jsonPointer = (tokens: readonly string[]): string =>
  tokens.map((token) => `/${escapePointerToken(token)}`).join('');
