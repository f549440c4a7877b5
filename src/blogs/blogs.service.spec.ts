import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Principal } from '../auth/principal';
import { Blog } from './blog.entity';
import { BlogsService, mayUpdate, NEXT_UPDATED_AT_SQL } from './blogs.service';
import type { BlogInputDto } from './dto/blog-input.dto';

/** The chain `createQueryBuilder().update().set().whereEntity().returning().updateEntity().execute()`. */
interface UpdateBuilderMock {
  update: jest.Mock;
  set: jest.Mock;
  whereEntity: jest.Mock;
  returning: jest.Mock;
  updateEntity: jest.Mock;
  execute: jest.Mock;
}

interface RepositoryMock {
  findAndCount: jest.Mock;
  findOneBy: jest.Mock;
  create: jest.Mock;
  insert: jest.Mock;
  createQueryBuilder: jest.Mock;
}

/** What the stand-in database writes for `updated_at` (the SQL expression of the SET). */
const STORED_AT = new Date('2026-03-03T03:03:03.333Z');

/** A row of `blogs` as `RETURNING *` gives it: database column names. */
function rowOf(blog: Blog): Record<string, unknown> {
  return {
    id: blog.id,
    title: blog.title,
    content: blog.content,
    author: blog.author,
    owner_sub: blog.ownerSub,
    created_at: blog.createdAt,
    updated_at: blog.updatedAt,
  };
}

/**
 * The update chain. Its `execute` stands in for the database and TypeORM: it applies the SET to
 * the entity given to `whereEntity` (an SQL expression stores {@link STORED_AT}), as
 * `updateEntity(true)` writes the row of `RETURNING *` back onto it, and answers that one row.
 */
function makeBuilder(): UpdateBuilderMock {
  const builder = {} as UpdateBuilderMock;
  let target: Blog | undefined;
  let values: Record<string, unknown> = {};
  builder.update = jest.fn().mockReturnValue(builder);
  builder.set = jest.fn((set: Record<string, unknown>) => {
    values = set;
    return builder;
  });
  builder.whereEntity = jest.fn((entity: Blog) => {
    target = entity;
    return builder;
  });
  builder.returning = jest.fn().mockReturnValue(builder);
  builder.updateEntity = jest.fn().mockReturnValue(builder);
  builder.execute = jest.fn(async () => {
    const blog = target as Blog;
    for (const [key, value] of Object.entries(values)) {
      Object.assign(blog, { [key]: typeof value === 'function' ? STORED_AT : value });
    }
    return { affected: 1, raw: [rowOf(blog)], generatedMaps: [] };
  });
  return builder;
}

function makeBlog(overrides: Partial<Blog> = {}): Blog {
  return Object.assign(new Blog(), {
    id: 7,
    title: 'Old title',
    content: 'Old content',
    author: 'Old author',
    ownerSub: 'alice',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    updatedAt: new Date('2026-01-01T00:00:00.000Z'),
    ...overrides,
  });
}

const input: BlogInputDto = { title: 'New title', content: 'New content', author: 'New author' };
const alice: Principal = { sub: 'alice', scopes: [] };
const bob: Principal = { sub: 'bob', scopes: [] };
const admin: Principal = { sub: 'carol', scopes: ['blogs:read', 'blogs:admin'] };

describe('BlogsService', () => {
  let service: BlogsService;
  let repo: RepositoryMock;
  let builder: UpdateBuilderMock;

  beforeEach(async () => {
    builder = makeBuilder();
    repo = {
      findAndCount: jest.fn(),
      findOneBy: jest.fn(),
      // Like Repository#create: a new entity instance holding the given fields.
      create: jest.fn((fields: Partial<Blog>) => Object.assign(new Blog(), fields)),
      insert: jest.fn(),
      createQueryBuilder: jest.fn(() => builder),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [BlogsService, { provide: getRepositoryToken(Blog), useValue: repo }],
    }).compile();
    service = moduleRef.get(BlogsService);
  });

  describe('list', () => {
    it('asks for newest first (createdAt DESC, id DESC) with skip = offset and take = limit', async () => {
      const items = [makeBlog({ id: 2 }), makeBlog({ id: 1 })];
      jest.spyOn(repo, 'findAndCount').mockResolvedValueOnce([items, 42]);

      await expect(service.list(5, 20)).resolves.toEqual({ items, total: 42 });

      expect(repo.findAndCount).toHaveBeenCalledTimes(1);
      expect(repo.findAndCount).toHaveBeenCalledWith({
        order: { createdAt: 'DESC', id: 'DESC' },
        skip: 20,
        take: 5,
      });
    });

    it('keeps the order of the keys: createdAt first, then id', async () => {
      jest.spyOn(repo, 'findAndCount').mockResolvedValueOnce([[], 0]);

      await service.list(10, 0);

      const options = repo.findAndCount.mock.calls[0][0] as { order: Record<string, string> };
      expect(Object.keys(options.order)).toEqual(['createdAt', 'id']);
    });

    it('returns an empty page with the true total when the offset is past the end', async () => {
      jest.spyOn(repo, 'findAndCount').mockResolvedValueOnce([[], 3]);

      await expect(service.list(10, 100)).resolves.toEqual({ items: [], total: 3 });
    });

    it('propagates repository errors', async () => {
      jest.spyOn(repo, 'findAndCount').mockRejectedValueOnce(new Error('connection lost'));

      await expect(service.list(10, 0)).rejects.toThrow('connection lost');
    });
  });

  describe('findOne', () => {
    it('returns the blog with this id', async () => {
      const blog = makeBlog();
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);

      await expect(service.findOne(7)).resolves.toBe(blog);
      expect(repo.findOneBy).toHaveBeenCalledWith({ id: 7 });
    });

    it('throws NotFoundException (404) when there is no such blog', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(null);

      await expect(service.findOne(404)).rejects.toBeInstanceOf(NotFoundException);
    });

    it('names the id in the 404 message', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(null);

      await expect(service.findOne(123)).rejects.toThrow(/123/);
    });
  });

  describe('create', () => {
    it('builds the entity with the three fields and ownerSub = the given sub, inserts it and returns it', async () => {
      jest.spyOn(repo, 'insert').mockImplementationOnce(async (entity: Blog) => {
        // What TypeORM does with RETURNING: fills the generated columns on the entity.
        Object.assign(entity, { id: 17, createdAt: new Date(0), updatedAt: new Date(0) });
        return { identifiers: [{ id: 17 }], generatedMaps: [], raw: [] };
      });

      const created = await service.create(input, 'alice');

      expect(repo.create).toHaveBeenCalledWith({
        title: 'New title',
        content: 'New content',
        author: 'New author',
        ownerSub: 'alice',
      });
      expect(repo.insert).toHaveBeenCalledTimes(1);
      const inserted = repo.insert.mock.calls[0][0] as Blog;
      expect(inserted).toBe(created);
      expect(created).toBeInstanceOf(Blog);
      expect(created).toMatchObject({ id: 17, ownerSub: 'alice', title: 'New title' });
    });

    it('does not copy extra properties of the input into the entity', async () => {
      jest.spyOn(repo, 'insert').mockResolvedValueOnce({ identifiers: [], generatedMaps: [], raw: [] });
      const sneaky = { ...input, ownerSub: 'mallory', id: 1 } as unknown as BlogInputDto;

      await expect(service.create(sneaky, 'alice')).resolves.toMatchObject({ ownerSub: 'alice' });
      const fields = repo.create.mock.calls[0][0] as Record<string, unknown>;
      expect(Object.keys(fields).sort()).toEqual(['author', 'content', 'ownerSub', 'title']);
    });

    it('propagates an insert failure', async () => {
      jest.spyOn(repo, 'insert').mockRejectedValueOnce(new Error('insert failed'));

      await expect(service.create(input, 'alice')).rejects.toThrow('insert failed');
    });
  });

  describe('update', () => {
    it('throws NotFoundException (404) and issues no UPDATE when the blog does not exist', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(null);

      await expect(service.update(7, input, alice)).rejects.toBeInstanceOf(NotFoundException);
      expect(repo.createQueryBuilder).not.toHaveBeenCalled();
      expect(builder.execute).not.toHaveBeenCalled();
    });

    it('throws ForbiddenException (403) and issues no UPDATE for a non-owner without blogs:admin', async () => {
      const blog = makeBlog({ ownerSub: 'alice' });
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);

      await expect(service.update(7, input, bob)).rejects.toBeInstanceOf(ForbiddenException);
      expect(repo.createQueryBuilder).not.toHaveBeenCalled();
      expect(builder.execute).not.toHaveBeenCalled();
      expect(blog.title).toBe('Old title');
    });

    it('forbids a scope that only resembles blogs:admin', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(makeBlog({ ownerSub: 'alice' }));

      await expect(
        service.update(7, input, { sub: 'bob', scopes: ['blogs:administrator', 'blogs'] }),
      ).rejects.toBeInstanceOf(ForbiddenException);
      expect(builder.execute).not.toHaveBeenCalled();
    });

    it('lets the owner update and returns the new values', async () => {
      const blog = makeBlog({ ownerSub: 'alice' });
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);

      const updated = await service.update(7, input, alice);

      expect(repo.findOneBy).toHaveBeenCalledWith({ id: 7 });
      expect(builder.execute).toHaveBeenCalledTimes(1);
      expect(updated).toMatchObject({
        id: 7,
        title: 'New title',
        content: 'New content',
        author: 'New author',
        ownerSub: 'alice',
        updatedAt: STORED_AT,
      });
    });

    it('lets a holder of blogs:admin update a blog of someone else', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(makeBlog({ ownerSub: 'alice' }));

      await expect(service.update(7, input, admin)).resolves.toMatchObject({
        title: 'New title',
        content: 'New content',
        author: 'New author',
        ownerSub: 'alice',
      });
      expect(builder.execute).toHaveBeenCalledTimes(1);
    });

    it('issues update(Blog).set({title,content,author,updatedAt}).whereEntity(blog).returning(*).updateEntity(true).execute()', async () => {
      const blog = makeBlog();
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);
      const sneaky = { ...input, ownerSub: 'mallory', id: 99, createdAt: new Date(0) } as unknown as BlogInputDto;

      await service.update(7, sneaky, alice);

      expect(repo.createQueryBuilder).toHaveBeenCalledTimes(1);
      expect(builder.update).toHaveBeenCalledWith(Blog);
      expect(builder.set).toHaveBeenCalledTimes(1);
      expect(builder.set.mock.calls[0][0]).toStrictEqual({
        title: 'New title',
        content: 'New content',
        author: 'New author',
        updatedAt: expect.any(Function),
      });
      expect(builder.whereEntity).toHaveBeenCalledWith(blog);
      expect(builder.returning).toHaveBeenCalledWith('*');
      expect(builder.updateEntity).toHaveBeenCalledWith(true);
      expect(builder.execute).toHaveBeenCalledTimes(1);
      // Each step is called in chain order, before execute.
      const order = [
        builder.update,
        builder.set,
        builder.whereEntity,
        builder.returning,
        builder.updateEntity,
        builder.execute,
      ].map((fn) => fn.mock.invocationCallOrder[0]);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    });

    it('sets updated_at by SQL to the time of the update, at least 1 ms past the stored value', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(makeBlog());

      await service.update(7, input, alice);

      const { updatedAt } = builder.set.mock.calls[0][0] as { updatedAt: () => string };
      expect(updatedAt()).toBe(NEXT_UPDATED_AT_SQL);
      expect(NEXT_UPDATED_AT_SQL).toBe(`GREATEST(CURRENT_TIMESTAMP, "updated_at" + interval '1 millisecond')`);
    });

    it('returns the row as the UPDATE stored it (written back from RETURNING), not the input', async () => {
      const blog = makeBlog();
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);
      const stored = makeBlog({
        title: 'Stored title',
        content: 'Stored content',
        author: 'Stored author',
        updatedAt: STORED_AT,
      });
      jest.spyOn(builder, 'execute').mockImplementationOnce(async () => {
        // updateEntity(true) makes TypeORM write the returned columns back onto the entity.
        Object.assign(blog, stored);
        return { affected: 1, raw: [rowOf(stored)], generatedMaps: [] };
      });

      const updated = await service.update(7, input, alice);

      expect(updated).toEqual(stored);
      expect(updated.createdAt).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    });

    it.each([
      ['no row back and affected 0', { affected: 0, raw: [], generatedMaps: [] }],
      ['no row back, affected not reported', { raw: [], generatedMaps: [] }],
    ])('throws NotFoundException (404) naming the id when the UPDATE changes no row (%s)', async (_label, result) => {
      const blog = makeBlog();
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(blog);
      jest.spyOn(builder, 'execute').mockResolvedValueOnce(result);

      const outcome = service.update(7, input, alice);

      await expect(outcome).rejects.toBeInstanceOf(NotFoundException);
      await expect(outcome).rejects.toThrow(/\b7\b/);
      expect(blog.title).toBe('Old title');
    });

    it('does not touch ownerSub or id even when the input carries them', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(makeBlog());
      const sneaky = { ...input, ownerSub: 'mallory', id: 99 } as unknown as BlogInputDto;

      await expect(service.update(7, sneaky, alice)).resolves.toMatchObject({ id: 7, ownerSub: 'alice' });
    });

    it('propagates a failure of the UPDATE', async () => {
      jest.spyOn(repo, 'findOneBy').mockResolvedValueOnce(makeBlog());
      jest.spyOn(builder, 'execute').mockRejectedValueOnce(new Error('update failed'));

      await expect(service.update(7, input, alice)).rejects.toThrow('update failed');
    });
  });
});

describe('mayUpdate', () => {
  const blog = { ownerSub: 'alice' };

  it('allows the owner', () => {
    expect(mayUpdate(blog, { sub: 'alice', scopes: [] })).toBe(true);
  });

  it('allows a holder of blogs:admin who is not the owner', () => {
    expect(mayUpdate(blog, { sub: 'bob', scopes: ['blogs:admin'] })).toBe(true);
  });

  it('allows blogs:admin among other scopes', () => {
    expect(mayUpdate(blog, { sub: 'bob', scopes: ['openid', 'blogs:admin', 'profile'] })).toBe(true);
  });

  it('refuses a non-owner without scopes', () => {
    expect(mayUpdate(blog, { sub: 'bob', scopes: [] })).toBe(false);
  });

  it('refuses blogs:administrator (no prefix match)', () => {
    expect(mayUpdate(blog, { sub: 'bob', scopes: ['blogs:administrator'] })).toBe(false);
  });

  it('refuses other look-alike scopes', () => {
    expect(mayUpdate(blog, { sub: 'bob', scopes: ['blogs:Admin', 'blogs', 'admin', ' blogs:admin'] })).toBe(false);
  });

  it('compares sub exactly (case-sensitive)', () => {
    expect(mayUpdate(blog, { sub: 'Alice', scopes: [] })).toBe(false);
  });
});
