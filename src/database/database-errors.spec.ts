import { ArgumentsHost, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { QueryFailedError } from 'typeorm';
import { AllExceptionsFilter, ErrorBody, RETRY_AFTER_SECONDS } from '../common/filters/all-exceptions.filter';
import { DatabaseError } from 'pg';
import {
  isDatabaseUnavailableError,
  isDeadlock,
  isForeignKeyViolation,
  isUniqueViolation,
  mapDatabaseUnavailable,
  mapTransactionRollback,
} from './database-errors';

const withCode = (code: string, message = `error ${code}`): Error => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailableError', () => {
  describe('unavailable (true)', () => {
    it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])(
      'socket error %s',
      (code) => {
        expect(isDatabaseUnavailableError(withCode(code))).toBe(true);
      },
    );

    it.each(['08000', '08003', '08006', '08001', '53300', '57014', '57P01', '57P02', '57P03'])(
      'SQLSTATE %s',
      (code) => {
        expect(isDatabaseUnavailableError(withCode(code))).toBe(true);
      },
    );

    it('ECONNREFUSED nested in driverError (TypeORM)', () => {
      expect(isDatabaseUnavailableError({ message: 'query failed', driverError: withCode('ECONNREFUSED') })).toBe(true);
    });

    it('a real TypeORM QueryFailedError wrapping 57P01', () => {
      const error = new QueryFailedError(
        'SELECT 1',
        [],
        withCode('57P01', 'terminating connection due to administrator command'),
      );

      expect(isDatabaseUnavailableError(error)).toBe(true);
    });

    it('ECONNREFUSED in cause', () => {
      expect(isDatabaseUnavailableError(new Error('wrapped', { cause: withCode('ECONNREFUSED') }))).toBe(true);
    });

    it('ECONNREFUSED inside an AggregateError (IPv4 and IPv6 attempts)', () => {
      const error = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], '');

      expect(isDatabaseUnavailableError(error)).toBe(true);
    });

    it('an AggregateError nested in driverError', () => {
      const error = { driverError: new AggregateError([new Error('x'), withCode('ECONNREFUSED')]) };

      expect(isDatabaseUnavailableError(error)).toBe(true);
    });

    it.each([
      'timeout exceeded when trying to connect',
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Client has encountered a connection error and is not queryable',
      'Query read timeout',
    ])('node-postgres message %p', (message) => {
      expect(isDatabaseUnavailableError(new Error(message))).toBe(true);
    });
  });

  describe('not unavailable (false)', () => {
    it('a unique violation 23505', () => {
      expect(isDatabaseUnavailableError(withCode('23505', 'duplicate key value violates unique constraint'))).toBe(
        false,
      );
    });

    it('a QueryFailedError for a unique violation', () => {
      const error = new QueryFailedError('INSERT …', [], withCode('23505', 'duplicate key value'));

      expect(isDatabaseUnavailableError(error)).toBe(false);
    });

    it.each(['42P01', '22001', '42601', '40001', '57000', '57P04', '23503'])('SQLSTATE %s', (code) => {
      expect(isDatabaseUnavailableError(withCode(code))).toBe(false);
    });

    it('a plain Error', () => {
      expect(isDatabaseUnavailableError(new Error('something broke'))).toBe(false);
    });

    it.each([[undefined], [null], ['ECONNREFUSED'], [42], [{}]])('%p', (value) => {
      expect(isDatabaseUnavailableError(value)).toBe(false);
    });

    it('an SQLSTATE that only starts like class 08', () => {
      expect(isDatabaseUnavailableError(withCode('080000'))).toBe(false);
    });

    it('a self-referencing cause does not loop forever', () => {
      const error = new Error('loop') as Error & { cause?: unknown };
      error.cause = error;

      expect(isDatabaseUnavailableError(error)).toBe(false);
    });
  });
});

describe('AllExceptionsFilter with mapDatabaseUnavailable', () => {
  const response = { fake: 'response' };
  let adapter: { reply: jest.Mock; setHeader: jest.Mock };
  let filter: AllExceptionsFilter;
  const request = { url: '/api/v1/blogs', headers: {} };
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }),
  } as unknown as ArgumentsHost;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation();
    adapter = { reply: jest.fn(), setHeader: jest.fn() };
    filter = new AllExceptionsFilter(
      { httpAdapter: adapter } as unknown as HttpAdapterHost,
      [mapDatabaseUnavailable],
      'http://127.0.0.1:3000',
    );
  });

  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['57P01', 'terminating connection due to administrator command'],
  ])('answers a QueryFailedError whose driverError has code %s with 503 and Retry-After', (code, driverMessage) => {
    const driverError = Object.assign(new Error(driverMessage), { code });
    const error = new QueryFailedError('SELECT * FROM blogs WHERE id = $1', [7], driverError);

    filter.catch(error, host);

    expect(adapter.setHeader).toHaveBeenCalledWith(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
    expect(RETRY_AFTER_SECONDS).toBe(5);
    const [, body, status] = adapter.reply.mock.calls[0] as [unknown, ErrorBody, number];
    expect(status).toBe(503);
    expect(body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
    expect(typeof body.message).toBe('string');
    const text = JSON.stringify(body);
    expect(text).not.toContain('SELECT');
    expect(text).not.toContain(driverMessage);
    expect(text).not.toContain(code);
  });

  it('answers a QueryFailedError-like object with a nested driverError code with 503', () => {
    const error = Object.assign(new Error('Query failed'), {
      query: 'SELECT 1',
      driverError: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
    });

    filter.catch(error, host);

    expect(adapter.reply.mock.calls[0][2]).toBe(503);
    expect(adapter.setHeader).toHaveBeenCalledWith(response, 'Retry-After', '5');
  });

  it('maps nothing else', () => {
    expect(mapDatabaseUnavailable(new Error('SELECT failed'))).toBeUndefined();
  });
});

describe('mapTransactionRollback', () => {
  it.each([
    ['a deadlock (40P01)', withCode('40P01')],
    ['a serialization failure (40001)', withCode('40001')],
    ["TypeORM's QueryFailedError around a deadlock", new QueryFailedError('UPDATE …', [], withCode('40P01'))],
    ['an object whose driverError is a deadlock', { driverError: withCode('40P01') }],
  ])('%s → 503, the driver error its cause', (_name, error) => {
    const mapped = mapTransactionRollback(error);

    expect(mapped?.getStatus()).toBe(503);
    expect(mapped?.message).toBe('The request met a concurrent write and was rolled back; retry');
    expect(mapped?.cause).toBe(error);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a lost connection', withCode('ECONNREFUSED')],
    ['a plain Error', new Error('40P01')],
    ['null', null],
  ])('%s → nothing', (_name, error) => {
    expect(mapTransactionRollback(error)).toBeUndefined();
  });
});

describe('isUniqueViolation', () => {
  const violation = (constraint: unknown) => Object.assign(withCode('23505'), { constraint });

  it.each([
    ['of a listed index', violation('IDX_a'), true],
    ['of another index', violation('IDX_b'), false],
    ['without a constraint', violation(undefined), false],
    ['another SQLSTATE', Object.assign(withCode('23503'), { constraint: 'IDX_a' }), false],
    ['not an object', 'IDX_a', false],
  ])('%s → %j', (_name, error, expected) => {
    expect(isUniqueViolation(error, ['IDX_a'])).toBe(expected);
  });
});

describe('isDeadlock', () => {
  it.each([
    ['SQLSTATE 40P01', withCode('40P01'), true],
    ['a serialization failure (40001)', withCode('40001'), false],
    ['a unique violation', withCode('23505'), false],
    ['not an object', '40P01', false],
    ['null', null, false],
  ])('%s → %j', (_name, error, expected) => {
    expect(isDeadlock(error)).toBe(expected);
  });
});

/**
 * A foreign-key violation as each driver throws it: `pg`'s `DatabaseError` with the fields its protocol parser sets, and
 * PGlite's (an Error of the same fields plus `query` and `params`), recorded from an `INSERT` whose parent is missing.
 */
function foreignKeyViolations(constraint: string): [string, unknown][] {
  const message = `insert or update on table "comments" violates foreign key constraint "${constraint}"`;
  const fields = {
    severity: 'ERROR',
    code: '23503',
    detail: 'Key (blog_id)=(5) is not present in table "blogs".',
    schema: 'public',
    table: 'comments',
    constraint,
    file: 'ri_triggers.c',
    routine: 'ri_ReportViolation',
  };
  const pg = Object.assign(new DatabaseError(message, 203, 'error'), fields, { line: '2650' });
  const pglite = Object.assign(new Error(message), { length: 203, name: 'error' }, fields, {
    line: '2783',
    query: 'INSERT INTO "comments" ("blog_id") VALUES ($1)',
    params: [5],
  });
  return [
    ['pg', pg],
    ['PGlite', pglite],
    ["TypeORM's QueryFailedError around pg's", new QueryFailedError('INSERT …', [5], pg)],
  ];
}

describe('isForeignKeyViolation', () => {
  describe.each(foreignKeyViolations('FK_comments_blog'))('%s error', (_driver, error) => {
    it('is one, of any constraint when none is named', () => {
      expect(isForeignKeyViolation(error)).toBe(true);
    });

    it('is one of its constraint', () => {
      expect(isForeignKeyViolation(error, ['FK_other', 'FK_comments_blog'])).toBe(true);
    });

    it('is none of other constraints', () => {
      expect(isForeignKeyViolation(error, ['FK_other'])).toBe(false);
      expect(isForeignKeyViolation(error, [])).toBe(false);
    });

    it('is no unique violation, nor a database outage', () => {
      expect(isUniqueViolation(error, ['FK_comments_blog'])).toBe(false);
      expect(isDatabaseUnavailableError(error)).toBe(false);
    });
  });

  it.each([
    ['a unique violation', Object.assign(withCode('23505'), { constraint: 'FK_a' })],
    ['a not-null violation', withCode('23502')],
    ['an error without code', new Error('insert or update violates foreign key constraint')],
    ['not an object', '23503'],
    ['null', null],
  ])('%s is none', (_name, error) => {
    expect(isForeignKeyViolation(error)).toBe(false);
  });

  it('a violation without a constraint name is none of named constraints', () => {
    expect(isForeignKeyViolation(withCode('23503'), ['FK_a'])).toBe(false);
    expect(isForeignKeyViolation(withCode('23503'))).toBe(true);
  });
});
