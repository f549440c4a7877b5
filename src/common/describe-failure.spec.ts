import { describeFailure } from './describe-failure';

describe('describeFailure', () => {
  it('is the error message when there is one', () => {
    expect(describeFailure(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:5432',
    );
  });

  it('is the inner messages of an AggregateError without a message of its own (localhost: ::1 and 127.0.0.1)', () => {
    const error = new AggregateError(
      [new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')],
      '',
    );

    expect(describeFailure(error)).toBe('connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('is the name of an error without any message, and the text of a thrown non-error', () => {
    expect(describeFailure(new TypeError(''))).toBe('TypeError');
    expect(describeFailure('boom')).toBe('boom');
  });
});
