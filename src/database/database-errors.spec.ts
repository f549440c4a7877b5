import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailableError } from './database-errors';

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
