import { STATUS_CODES } from 'node:http';

/** The media type of an error answer to a request whose `Accept` does not ask for `application/json`. */
export const PROBLEM_CONTENT_TYPE = /^application\/problem\+json(;|$)/;

/** The members of every error body (contract 1.8), sorted; a `validation-error` adds `errors`. */
export const PROBLEM_MEMBERS = ['detail', 'error', 'instance', 'message', 'status', 'statusCode', 'title', 'type'];

/** The members `body` must have, sorted: {@link PROBLEM_MEMBERS}, and `errors` when it is a `validation-error`. */
export const problemMembers = (body: { type?: unknown }): string[] =>
  String(body.type).endsWith('/problems/validation-error') ? [...PROBLEM_MEMBERS, 'errors'].sort() : PROBLEM_MEMBERS;

/** The problem type URI `name` of the test service (`PUBLIC_URL` unset: `http://127.0.0.1:<PORT>`). */
export const problemType = (name: string): RegExp => new RegExp(`^https?://[^/]+/problems/${name}$`);

/**
 * The exact error body of `status` with `message`: `about:blank` with the reason phrase as `title`, unless `type`
 * names a problem type (then `title` is any string); `instance` the request's path.
 */
export function problemBody(
  status: number,
  message: unknown,
  { type, errors }: { type?: string; errors?: unknown } = {},
): Record<string, unknown> {
  const reason = STATUS_CODES[status];
  return {
    type: type === undefined ? 'about:blank' : expect.stringMatching(problemType(type)),
    title: type === undefined ? reason : expect.any(String),
    status,
    detail: typeof message === 'string' ? message : Array.isArray(message) ? message.join('; ') : expect.any(String),
    instance: expect.stringMatching(/^\//),
    statusCode: status,
    error: reason,
    message,
    ...(errors === undefined ? {} : { errors }),
  };
}
