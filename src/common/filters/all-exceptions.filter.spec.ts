import {
  ArgumentsHost,
  BadRequestException,
  ConflictException,
  PreconditionFailedException,
  UnprocessableEntityException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  Logger,
  NotFoundException,
  UnauthorizedException,
  ServiceUnavailableException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ThrottlerException } from '@nestjs/throttler';
import { STATUS_CODES } from 'node:http';
import { QueryFailedError } from 'typeorm';
import { BearerTokenException } from '../../auth/bearer-token.exception';
import {
  AllExceptionsFilter,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_ERROR_MESSAGES,
  PROBLEM_MEDIA_TYPE,
  problemContentType,
  RETRY_AFTER_SECONDS,
} from './all-exceptions.filter';
import {
  IdempotencyKeyInFlightException,
  IdempotencyKeyReusedException,
  PROBLEM_TYPES,
  ProblemTypeName,
  SlugTakenException,
  ValidationProblemException,
} from './problem-types';

interface FakeAdapter {
  reply: jest.Mock;
  setHeader: jest.Mock;
}

const PUBLIC_URL = 'https://api.blog.example';

/** The `about:blank` problem of `status` for the request `/api/v1/blogs`. */
const problem = (status: number, error: string, message: string | string[]): Record<string, unknown> => ({
  type: 'about:blank',
  title: error,
  status,
  detail: typeof message === 'string' ? message : message.join('; '),
  instance: '/api/v1/blogs',
  statusCode: status,
  error,
  message,
});

describe('AllExceptionsFilter', () => {
  let adapter: FakeAdapter;
  let filter: AllExceptionsFilter;
  let host: ArgumentsHost;
  let loggerError: jest.SpyInstance;
  const response = { fake: 'response' };
  const request = { url: '/api/v1/blogs?limit=5', method: 'GET', headers: {} };

  beforeEach(() => {
    loggerError = jest.spyOn(Logger.prototype, 'error').mockImplementation();
    adapter = { reply: jest.fn(), setHeader: jest.fn() };
    filter = new AllExceptionsFilter({ httpAdapter: adapter } as unknown as HttpAdapterHost, [], PUBLIC_URL);
    host = {
      switchToHttp: () => ({ getResponse: () => response, getRequest: () => request, getNext: () => undefined }),
      getType: () => 'http',
      getArgs: () => [request, response],
      getArgByIndex: (i: number) => [request, response][i],
    } as unknown as ArgumentsHost;
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  const headers = (): Record<string, string> =>
    Object.fromEntries(adapter.setHeader.mock.calls.map(([, name, value]) => [name as string, value as string]));

  it('answers NotFoundException with 404 and the JSON error body', () => {
    filter.catch(new NotFoundException('Blog 7 not found'), host);

    expect(adapter.reply).toHaveBeenCalledTimes(1);
    expect(adapter.reply).toHaveBeenCalledWith(response, problem(404, 'Not Found', 'Blog 7 not found'), 404);
    expect(headers()).toEqual({ 'Cache-Control': 'no-store', 'Content-Type': PROBLEM_MEDIA_TYPE });
  });

  it('keeps the message array of a ValidationPipe-style BadRequestException', () => {
    const messages = ['title must be a string', 'property id should not exist'];

    filter.catch(new BadRequestException(messages), host);

    expect(adapter.reply).toHaveBeenCalledWith(response, problem(400, 'Bad Request', messages), 400);
  });

  it('caps the message: at most MAX_ERROR_MESSAGES messages of at most MAX_ERROR_MESSAGE_LENGTH characters', () => {
    const long = `property ${'k'.repeat(1_000_000)} should not exist`;
    filter.catch(new BadRequestException(Array.from({ length: 1_000 }, () => long)), host);
    filter.catch(new BadRequestException(long), host);

    const [[, listBody], [, stringBody]] = adapter.reply.mock.calls as [unknown, { message: unknown }][];
    const list = listBody.message as string[];
    expect(list).toHaveLength(MAX_ERROR_MESSAGES);
    expect(list.every((m) => m.length === MAX_ERROR_MESSAGE_LENGTH && m.endsWith('…'))).toBe(true);
    expect(stringBody.message).toBe(list[0]);
  });

  it('keeps a plain string message of a BadRequestException', () => {
    filter.catch(new BadRequestException('id must be a positive integer no greater than 2147483647'), host);

    expect(adapter.reply.mock.calls[0][1]).toEqual(
      problem(400, 'Bad Request', 'id must be a positive integer no greater than 2147483647'),
    );
  });

  it('answers ForbiddenException with 403 and no WWW-Authenticate', () => {
    filter.catch(
      new ForbiddenException(
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may update it',
      ),
      host,
    );

    expect(adapter.reply.mock.calls[0][1]).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    expect(adapter.reply.mock.calls[0][2]).toBe(403);
    expect(headers()).toEqual({ 'Cache-Control': 'no-store', 'Content-Type': PROBLEM_MEDIA_TYPE });
  });

  it('answers 415 with the reason phrase', () => {
    filter.catch(new UnsupportedMediaTypeException('Content-Type must be application/json'), host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(415, 'Unsupported Media Type', 'Content-Type must be application/json'),
      415,
    );
  });

  it('answers BearerTokenException.invalid with 401 and WWW-Authenticate: Bearer error="invalid_token"', () => {
    filter.catch(BearerTokenException.invalid('token expired'), host);

    expect(adapter.setHeader).toHaveBeenCalledWith(response, 'WWW-Authenticate', 'Bearer error="invalid_token"');
    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(401, 'Unauthorized', 'Invalid bearer token: token expired'),
      401,
    );
  });

  it('answers BearerTokenException.missing with 401 and WWW-Authenticate: Bearer', () => {
    filter.catch(BearerTokenException.missing(), host);

    expect(headers()).toEqual({
      'Cache-Control': 'no-store',
      'Content-Type': PROBLEM_MEDIA_TYPE,
      'WWW-Authenticate': 'Bearer',
    });
    expect(adapter.reply.mock.calls[0][2]).toBe(401);
  });

  it('answers a plain UnauthorizedException with WWW-Authenticate: Bearer', () => {
    filter.catch(new UnauthorizedException(), host);

    expect(adapter.setHeader).toHaveBeenCalledWith(response, 'WWW-Authenticate', 'Bearer');
    expect(adapter.reply.mock.calls[0][1]).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('takes back what a public read set: no-store, no Surrogate-Key', () => {
    const removeHeader = jest.fn();
    const publicResponse = { removeHeader };
    const publicHost = {
      ...host,
      switchToHttp: () => ({ getResponse: () => publicResponse, getRequest: () => request, getNext: () => undefined }),
    } as unknown as ArgumentsHost;

    filter.catch(new NotFoundException(), publicHost);

    expect(adapter.setHeader).toHaveBeenCalledWith(publicResponse, 'Cache-Control', 'no-store');
    expect(removeHeader).toHaveBeenCalledWith('Surrogate-Key');
  });

  it('sets the header before replying', () => {
    filter.catch(BearerTokenException.missing(), host);

    expect(adapter.setHeader.mock.invocationCallOrder[0]).toBeLessThan(adapter.reply.mock.invocationCallOrder[0]);
  });

  it('answers HttpException 413 with error "Payload Too Large"', () => {
    filter.catch(new HttpException('request entity too large', 413), host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(413, 'Payload Too Large', 'request entity too large'),
      413,
    );
  });

  it.each([
    [413, 'request entity too large', 'Payload Too Large'],
    [415, 'unsupported charset "LATIN1"', 'Unsupported Media Type'],
    [400, 'request aborted', 'Bad Request'],
  ])('answers a body-parser client error (http-errors, expose: true) %d with its status', (status, message, error) => {
    const exception = Object.assign(new Error(message), { status, statusCode: status, expose: true, type: 'x' });

    filter.catch(exception, host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      expect.objectContaining({ status, detail: message, statusCode: status, error, message }),
      status,
    );
    expect(loggerError).not.toHaveBeenCalled();
  });

  it('does not trust a status on an error that is not exposed', () => {
    const exception = Object.assign(new Error('SELECT internal detail'), { status: 404, expose: false });

    filter.catch(exception, host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(500, 'Internal Server Error', 'Internal server error'),
      500,
    );
  });

  it('does not pass through an exposed 5xx status with its message', () => {
    const exception = Object.assign(new Error('SELECT internal detail'), { status: 502, expose: true });

    filter.catch(exception, host);

    const [, body, status] = adapter.reply.mock.calls[0];
    expect(status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('SELECT');
  });

  it('answers what a mapper makes of an error: its status, Retry-After on 503, no driver text', () => {
    const mapped = new ServiceUnavailableException('Try later', { cause: new Error('connect ECONNREFUSED') });
    filter = new AllExceptionsFilter(
      { httpAdapter: adapter } as unknown as HttpAdapterHost,
      [() => mapped],
      PUBLIC_URL,
    );

    filter.catch(new Error('connect ECONNREFUSED'), host);

    expect(adapter.reply).toHaveBeenCalledWith(response, problem(503, 'Service Unavailable', 'Try later'), 503);
    expect(headers()['Retry-After']).toBe(String(RETRY_AFTER_SECONDS));
    expect(loggerError).toHaveBeenCalledWith('Try later: connect ECONNREFUSED');
  });

  it('answers an unknown Error with 500 "Internal server error" and no SQL or driver text', () => {
    const error = new Error('SELECT secret FROM x failed');

    filter.catch(error, host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(500, 'Internal Server Error', 'Internal server error'),
      500,
    );
    const text = JSON.stringify(adapter.reply.mock.calls[0][1]);
    expect(text).not.toContain('SELECT');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('at ');
    expect(headers()).toEqual({ 'Cache-Control': 'no-store', 'Content-Type': PROBLEM_MEDIA_TYPE });
  });

  it('logs an unknown error with its stack', () => {
    const error = new Error('SELECT secret FROM x failed');

    filter.catch(error, host);

    expect(loggerError).toHaveBeenCalledWith(error.message, error.stack);
  });

  it('answers a QueryFailedError that is not a connection problem (23505) with 500 and no SQL', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "pk"'), {
      code: '23505',
    });

    filter.catch(new QueryFailedError('INSERT INTO blogs VALUES ($1)', ['x'], driverError), host);

    const [, body, status] = adapter.reply.mock.calls[0];
    expect(status).toBe(500);
    expect(body).toEqual(problem(500, 'Internal Server Error', 'Internal server error'));
  });

  it('answers a thrown non-Error value with 500', () => {
    filter.catch('a string was thrown', host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      problem(500, 'Internal Server Error', 'Internal server error'),
      500,
    );
  });

  it('logs a 5xx HttpException', () => {
    filter.catch(new InternalServerErrorException(), host);

    expect(loggerError).toHaveBeenCalled();
    expect(adapter.reply.mock.calls[0][2]).toBe(500);
  });

  it('does not log 4xx HttpExceptions as errors', () => {
    filter.catch(new NotFoundException(), host);

    expect(loggerError).not.toHaveBeenCalled();
  });

  it('keeps only the text of an HttpException whose response object has a non-string message', () => {
    filter.catch(new HttpException({ message: { nested: 'object' }, extra: 'x' }, 422), host);

    const [, body, status] = adapter.reply.mock.calls[0];
    expect(status).toBe(422);
    expect(body.error).toBe('Unprocessable Entity');
    expect(typeof body.message).toBe('string');
    expect(Object.keys(body).sort()).toEqual([
      'detail',
      'error',
      'instance',
      'message',
      'status',
      'statusCode',
      'title',
      'type',
    ]);
  });

  it.each<[string, HttpException, number, string]>([
    ['412', new PreconditionFailedException('Blog 7 has changed'), 412, 'precondition-failed'],
    ['429', new ThrottlerException('Too many requests; retry after 3 s'), 429, 'rate-limited'],
    ['409 slug', new SlugTakenException("slug is another blog's slug: choose another one"), 409, 'slug-taken'],
    ['409 in flight', new IdempotencyKeyInFlightException('in progress'), 409, 'idempotency-key-in-flight'],
    ['422', new IdempotencyKeyReusedException('used with another request'), 422, 'idempotency-key-reused'],
  ])('names the problem type of a %s, with its title', (_name, exception, status, type) => {
    filter.catch(exception, host);

    const [, body] = adapter.reply.mock.calls[0] as [unknown, Record<string, unknown>];
    expect(body).toMatchObject({
      type: `${PUBLIC_URL}/problems/${type}`,
      title: PROBLEM_TYPES[type as ProblemTypeName].title,
      status,
      statusCode: status,
      error: STATUS_CODES[status],
    });
    expect(body).not.toHaveProperty('errors');
  });

  it.each<[string, HttpException]>([
    ['a 409 of another cause', new ConflictException('Blog 7 is not published')],
    ['a 422 of another cause', new UnprocessableEntityException('no')],
    ['a plain 400', new BadRequestException('If-Match must be * or a list of entity tags')],
  ])('answers %s as about:blank', (_name, exception) => {
    filter.catch(exception, host);

    expect(adapter.reply.mock.calls[0][1]).toMatchObject({
      type: 'about:blank',
      title: STATUS_CODES[exception.getStatus()],
    });
  });

  it('answers a validation-error with its errors, each detail capped, at most MAX_ERROR_MESSAGES of them', () => {
    const long = 'x'.repeat(MAX_ERROR_MESSAGE_LENGTH + 10);
    const errors = Array.from({ length: MAX_ERROR_MESSAGES + 5 }, (_, i) => ({ detail: long, pointer: `/tags/${i}` }));
    filter.catch(
      new ValidationProblemException([long], [{ detail: 'limit must be an integer', parameter: 'limit' }, ...errors]),
      host,
    );

    const [, body] = adapter.reply.mock.calls[0] as [
      unknown,
      { type: string; title: string; errors: { detail: string }[] },
    ];
    expect(body.type).toBe(`${PUBLIC_URL}/problems/validation-error`);
    expect(body.title).toBe(PROBLEM_TYPES['validation-error'].title);
    expect(body.errors).toHaveLength(MAX_ERROR_MESSAGES);
    expect(body.errors[0]).toEqual({ detail: 'limit must be an integer', parameter: 'limit' });
    expect(body.errors[1]).toEqual({ detail: `${long.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…`, pointer: '/tags/0' });
  });

  it.each<[string | undefined, string]>([
    [undefined, 'application/problem+json'],
    ['*/*', 'application/problem+json'],
    ['application/*', 'application/problem+json'],
    ['application/json', 'application/json'],
    ['Application/JSON; charset=utf-8', 'application/json'],
    ['text/html, application/json;q=0.9', 'application/json'],
    ['application/json, application/problem+json', 'application/problem+json'],
    ['application/problem+json;q=0.5, application/json', 'application/problem+json'],
    ['application/json;q=0', 'application/problem+json'],
    ['text/html', 'application/problem+json'],
  ])('answers Accept: %p with Content-Type %s', (accept, type) => {
    expect(problemContentType(accept)).toBe(type);
  });
});
