import { Test } from '@nestjs/testing';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import { TagsRepository } from '../tags/tags.repository';
import { BlogsRepository } from './blogs.repository';

describe('BlogsRepository and errors of its writes', () => {
  let repository: BlogsRepository;
  const onPrimary = jest.fn();
  const onReplica = jest.fn();
  const onReplicaAfter = jest.fn();

  beforeEach(async () => {
    onPrimary.mockReset();
    onReplica.mockReset();
    onReplicaAfter.mockReset();
    const moduleRef = await Test.createTestingModule({
      providers: [
        BlogsRepository,
        { provide: StatementRunner, useValue: { onPrimary, onReplica, onReplicaAfter } },
        { provide: TagsRepository, useValue: {} },
      ],
    }).compile();
    repository = moduleRef.get(BlogsRepository);
  });

  const condition = { owner: 'alice', versions: {}, now: new Date(0) };
  const newBlog = {
    title: 'Same',
    content: 'c',
    author: 'a',
    ownerSub: 'alice',
    publishedAt: null,
    slug: { value: 'same', explicit: true },
    tags: { slugs: [], names: [] },
  };

  const writes: [string, () => Promise<unknown>][] = [
    ['insert', () => repository.insert(newBlog)],
    ['update', () => repository.update(7, { publication: { change: { kind: 'keep' } } } as never, condition)],
    ['delete', () => repository.delete(7, condition)],
  ];

  // No write takes two locks that another may take in the other order: a deadlock is a bug, not a retry.
  it.each(writes.flatMap(([name, write]) => ['40P01', '22001'].map((code) => [name, code, write] as const)))(
    '%s passes SQLSTATE %s on, once',
    async (_name, code, write) => {
      onPrimary.mockRejectedValueOnce(Object.assign(new Error('no'), { code }));

      await expect(write()).rejects.toThrow('no');
      expect(onPrimary).toHaveBeenCalledTimes(1);
    },
  );

  it("reads a search text's terms once, then from memory; another text's anew", async () => {
    onReplica.mockImplementation((_statement, [q]: [string]) => Promise.resolve({ rows: [{ terms: q.split(' ') }] }));

    expect(await repository.searchTerms('hello world')).toEqual(['hello', 'world']);
    expect(await repository.searchTerms('hello world')).toEqual(['hello', 'world']);
    expect(onReplica).toHaveBeenCalledTimes(1);
    expect(await repository.searchTerms('hello')).toEqual(['hello']);
    expect(onReplica).toHaveBeenCalledTimes(2);
  });

  it('counts a search, counts it deep once past the cap, then walks while the deep count holds', async () => {
    const search = { filters: { q: 'word' }, sort: '-createdAt', limit: 1, offset: 0, withContent: false } as const;
    const list = () => repository.findList({ ...search, status: 'published', now: new Date(0) });
    /** The statements run: the most matches each reads, or `walk`. */
    const run = () =>
      [
        ...onReplica.mock.calls.map(([statement]: [PreparedStatement]) => statement),
        ...onReplicaAfter.mock.calls.map(([, then]: [unknown, PreparedStatement]) => then),
      ]
        .map(({ text }: { text: string }) =>
          /"counted"/.test(text) ? /LIMIT (\d+)\), "counted"/.exec(text)?.[1] : 'walk',
        )
        .sort();
    onReplica
      .mockResolvedValueOnce({ rows: [{ total: 10_001, id: null }] })
      .mockResolvedValue({ rows: [{ position: String(100 + 9_868), id: null }] });
    onReplicaAfter.mockResolvedValue({
      first: { rows: [{ position: '100', margin: '132' }] },
      then: { rows: [{ total: 20_001, id: null }] },
    });

    for (let i = 0; i < 3; i += 1) expect(await list()).toMatchObject({ total: 10_000, totalRelation: 'gte' });
    expect(run()).toEqual(['10001', '20001', 'walk']);

    onReplica.mockResolvedValue({ rows: [{ position: String(100 + 9_869), id: null }] });
    onReplicaAfter.mockResolvedValue({
      first: { rows: [{ position: '100', margin: '132' }] },
      then: { rows: [{ total: 9_999, id: null }] },
    });
    expect(await list()).toMatchObject({ total: 9_999, totalRelation: 'eq' });
    onReplica.mockResolvedValue({ rows: [{ total: 9_999, id: null }] });
    expect(await list()).toMatchObject({ total: 9_999, totalRelation: 'eq' });
    expect(run()).toEqual(['10001', '10001', '20001', '20001', 'walk', 'walk']);
  });

  it.each([
    ['walks once in the slow lane', [], ['slow'], { total: 10_000 }],
    ['walks again in the long lane past the statement_timeout', ['57014'], ['slow', 'long'], { total: 10_000 }],
    ['walks again in the long lane past the read timeout', ['Query read timeout'], ['slow', 'long'], { total: 10_000 }],
    ['passes another error on', ['53300'], ['slow'], undefined],
    ['passes a timeout in the long lane on', ['57014', '57014'], ['slow', 'long'], undefined],
  ])('a search past the cap %s', async (_name, failures: string[], lanes: string[], answer) => {
    const search = { filters: { q: 'word' }, sort: '-createdAt', limit: 1, offset: 0, withContent: false } as const;
    const list = () => repository.findList({ ...search, status: 'published', now: new Date(0) });
    onReplica.mockResolvedValueOnce({ rows: [{ total: 10_001, id: null }] });
    onReplicaAfter.mockResolvedValue({
      first: { rows: [{ position: '100', margin: '132' }] },
      then: { rows: [{ total: 20_001, id: null }] },
    });
    await list();
    await list();
    onReplica.mockReset();
    for (const failure of failures)
      onReplica.mockRejectedValueOnce(
        Object.assign(new Error(failure === 'Query read timeout' ? failure : 'no'), {
          code: /^\d/.test(failure) ? failure : undefined,
        }),
      );
    onReplica.mockResolvedValue({ rows: [{ position: '101', id: null }] });

    const listed = list();
    await (answer === undefined ? expect(listed).rejects.toThrow() : expect(listed).resolves.toMatchObject(answer));
    expect(onReplica.mock.calls.map(([, , lane]: unknown[]) => lane)).toEqual(lanes);
  });
});
