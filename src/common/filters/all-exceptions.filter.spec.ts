import {
  ArgumentsHost,
  BadRequestException,
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
import { QueryFailedError } from 'typeorm';
import { BearerTokenException } from '../../auth/bearer-token.exception';
import {
  AllExceptionsFilter,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_ERROR_MESSAGES,
  RETRY_AFTER_SECONDS,
} from './all-exceptions.filter';

interface FakeAdapter {
  reply: jest.Mock;
  setHeader: jest.Mock;
}

const PUBLIC_URL = 'https://api.blog.example';

describe('AllExceptionsFilter', () => {
  let adapter: FakeAdapter;
  let filter: AllExceptionsFilter;
  let host: ArgumentsHost;
  let loggerError: jest.SpyInstance;
  const response = { fake: 'response' };
  const request = { url: '/api/v1/blogs', method: 'GET' };

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
    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 404, error: 'Not Found', message: 'Blog 7 not found' },
      404,
    );
    expect(headers()).toEqual({ 'Cache-Control': 'no-store' });
  });

  it('keeps the message array of a ValidationPipe-style BadRequestException', () => {
    const messages = ['title must be a string', 'property id should not exist'];

    filter.catch(new BadRequestException(messages), host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 400, error: 'Bad Request', message: messages },
      400,
    );
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

    expect(adapter.reply.mock.calls[0][1]).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'id must be a positive integer no greater than 2147483647',
    });
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
    expect(headers()).toEqual({ 'Cache-Control': 'no-store' });
  });

  it('answers 415 with the reason phrase', () => {
    filter.catch(new UnsupportedMediaTypeException('Content-Type must be application/json'), host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 415, error: 'Unsupported Media Type', message: 'Content-Type must be application/json' },
      415,
    );
  });

  it('answers BearerTokenException.invalid with 401 and WWW-Authenticate: Bearer error="invalid_token"', () => {
    filter.catch(BearerTokenException.invalid('token expired'), host);

    expect(adapter.setHeader).toHaveBeenCalledWith(response, 'WWW-Authenticate', 'Bearer error="invalid_token"');
    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 401, error: 'Unauthorized', message: 'Invalid bearer token: token expired' },
      401,
    );
  });

  it('answers BearerTokenException.missing with 401 and WWW-Authenticate: Bearer', () => {
    filter.catch(BearerTokenException.missing(), host);

    expect(headers()).toEqual({ 'Cache-Control': 'no-store', 'WWW-Authenticate': 'Bearer' });
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
      { statusCode: 413, error: 'Payload Too Large', message: 'request entity too large' },
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

    expect(adapter.reply).toHaveBeenCalledWith(response, { statusCode: status, error, message }, status);
    expect(loggerError).not.toHaveBeenCalled();
  });

  it('does not trust a status on an error that is not exposed', () => {
    const exception = Object.assign(new Error('SELECT internal detail'), { status: 404, expose: false });

    filter.catch(exception, host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' },
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

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 503, error: 'Service Unavailable', message: 'Try later' },
      503,
    );
    expect(headers()['Retry-After']).toBe(String(RETRY_AFTER_SECONDS));
    expect(loggerError).toHaveBeenCalledWith('Try later: connect ECONNREFUSED');
  });

  it('answers an unknown Error with 500 "Internal server error" and no SQL or driver text', () => {
    const error = new Error('SELECT secret FROM x failed');

    filter.catch(error, host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' },
      500,
    );
    const text = JSON.stringify(adapter.reply.mock.calls[0][1]);
    expect(text).not.toContain('SELECT');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('at ');
    expect(headers()).toEqual({ 'Cache-Control': 'no-store' });
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
    expect(body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' });
  });

  it('answers a thrown non-Error value with 500', () => {
    filter.catch('a string was thrown', host);

    expect(adapter.reply).toHaveBeenCalledWith(
      response,
      { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' },
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
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'statusCode']);
  });
});
