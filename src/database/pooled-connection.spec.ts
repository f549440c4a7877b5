import { EventEmitter } from 'node:events';
import { Connection, Lease, onConnection } from './pooled-connection';

describe('onConnection', () => {
  const connection = Object.assign(new EventEmitter(), {
    query: () => Promise.resolve({ rows: [] }),
  }) as EventEmitter & Connection;
  let release: jest.Mock;
  const lent = (): Promise<Lease> => Promise.resolve([connection, release]);

  beforeEach(() => (release = jest.fn()));

  it('gives the connection back as sound after the work', async () => {
    await expect(onConnection(lent(), () => Promise.resolve('done'))).resolves.toBe('done');
    expect(release).toHaveBeenCalledWith(undefined);
  });

  it.each<[string, Error, boolean]>([
    ['as broken when the database failed under it', Object.assign(new Error('lost'), { code: 'ECONNRESET' }), true],
    ['as sound when the statement failed', Object.assign(new Error('duplicate key'), { code: '23505' }), false],
  ])('gives it back %s, and rethrows', async (_name, error, broken) => {
    await expect(onConnection(lent(), () => Promise.reject(error))).rejects.toBe(error);
    expect(release).toHaveBeenCalledWith(broken ? error : undefined);
  });

  it('takes the error event of a lent connection and gives it back as broken, listening no more', async () => {
    const lost = new Error('Connection terminated unexpectedly');

    await onConnection(lent(), () => {
      connection.emit('error', lost);
      return Promise.resolve();
    });

    expect(release).toHaveBeenCalledWith(lost);
    expect(connection.listenerCount('error')).toBe(0);
  });

  it('does not run the work when no connection is lent', async () => {
    const work = jest.fn();
    const refused = new Error('connect ECONNREFUSED');

    await expect(onConnection(Promise.reject(refused), work)).rejects.toBe(refused);
    expect(work).not.toHaveBeenCalled();
  });
});
