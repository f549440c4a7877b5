/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Response } from 'supertest';
import { bearer, expectJsonError, expectUnauthorized, messagesOf } from './support/blog-api';
import { SeedBlog, seedBlogs } from './support/tag-seed';
import { useTestApp } from './support/test-app';
import { problemBody } from './support/problem';

// GET /api/v1/tags and /api/v1/tags/:slug over HTTP, with blogs stored by SQL: a tag counts the blogs published now
// or earlier; drafts and blogs scheduled for later do not count, and a tag without such a blog is not listed.

const TAGS = '/api/v1/tags';
const DAY = 86_400_000;

const live = (slug: string, ...tags: string[]): SeedBlog => ({ slug, publishedAt: new Date(Date.now() - DAY), tags });
const draft = (slug: string, ...tags: string[]): SeedBlog => ({ slug, publishedAt: null, tags });
const later = (slug: string, ...tags: string[]): SeedBlog => ({ slug, publishedAt: new Date(Date.now() + DAY), tags });

interface TagBody {
  slug: string;
  name: string;
  count: number;
}

interface TagListBody {
  data: TagBody[];
  total: number;
  limit: number;
  offset: number;
}

describe('GET /api/v1/tags and /api/v1/tags/:slug (e2e)', () => {
  const t = useTestApp();

  beforeAll(async () => {
    // Live counts: nestjs 3, a-b 3, a0 2, ab 1, z 1; slugs in code-point order: a-b < a0 < ab < nestjs < z.
    await seedBlogs(
      t.dataSource,
      [
        live('b1', 'nestjs', 'a-b', 'a0'),
        live('b2', 'nestjs', 'a-b', 'ab'),
        live('b3', 'a-b', 'nestjs', 'a0', 'z'),
        live('b4'),
        draft('b5', 'drafts-only', 'nestjs'),
        later('b6', 'scheduled-only', 'nestjs'),
        live('b7', 'deleted-only'),
      ],
      { nestjs: 'NestJS', 'a-b': 'A/B' },
    );
    await seedBlogs(t.dataSource, [live('b8', 'nestjs')], { nestjs: 'nestjs (a later spelling)' });
    await t.dataSource.query(`DELETE FROM blogs WHERE slug IN ('b7', 'b8')`);
  });

  /** The 200 answer of `GET /tags<query>`: its body and headers. */
  const list = async (query: string): Promise<{ body: TagListBody; headers: Response['headers'] }> => {
    const res = await t.http.get(`${TAGS}${query}`);
    expect(res.status).toBe(200);
    return { body: res.body as TagListBody, headers: res.headers };
  };

  it('lists the tags with live blogs, most first and ties by slug, in {data, total, totalRelation, limit, offset} without cursor', async () => {
    const res = await list('');

    expect(res.body).toStrictEqual({
      data: [
        { slug: 'a-b', name: 'A/B', count: 3 },
        { slug: 'nestjs', name: 'NestJS', count: 3 },
        { slug: 'a0', name: 'A0', count: 2 },
        { slug: 'ab', name: 'AB', count: 1 },
        { slug: 'z', name: 'Z', count: 1 },
      ],
      total: 5,
      totalRelation: 'eq',
      limit: 10,
      offset: 0,
    });
    expect(res.headers.link).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it.each([
    ['?sort=-count', ['a-b', 'nestjs', 'a0', 'ab', 'z']],
    ['?sort=slug', ['a-b', 'a0', 'ab', 'nestjs', 'z']],
    ['?sort=slug&limit=2', ['a-b', 'a0']],
    ['?sort=slug&limit=2&offset=2', ['ab', 'nestjs']],
    ['?limit=2&offset=4', ['z']],
    ['?offset=5', []],
    ['?offset=2147483647&limit=100', []],
  ])('GET %s lists %j; total counts every listed tag', async (query, slugs) => {
    const { body } = await list(query);

    expect({ slugs: body.data.map((tag) => tag.slug), total: body.total }).toEqual({ slugs, total: 5 });
  });

  it('echoes the effective limit and offset', async () => {
    const { body } = await list('?limit=3&offset=1');

    expect({ limit: body.limit, offset: body.offset, size: body.data.length }).toEqual({
      limit: 3,
      offset: 1,
      size: 3,
    });
  });

  it.each([
    ['?cursor=x', 'property cursor should not exist'],
    ['?sort=count', 'sort must be one of -count, slug'],
    ['?sort=-slug', 'sort must be one of -count, slug'],
    ['?limit=0', 'limit must not be less than 1'],
    ['?limit=101', 'limit must not be greater than 100'],
    ['?offset=-1', 'offset must be an integer in decimal digits, without sign or leading zeros'],
    ['?q=nest', 'property q should not exist'],
  ])('GET %s is 400: %s', async (query, message) => {
    const res = await t.http.get(`${TAGS}${query}`);

    expectJsonError(res, 400);
    expect(messagesOf(res)).toContain(message);
  });

  it.each([
    ['nestjs', { slug: 'nestjs', name: 'NestJS', count: 3 }],
    ['a-b', { slug: 'a-b', name: 'A/B', count: 3 }],
    ['z', { slug: 'z', name: 'Z', count: 1 }],
  ])('GET /tags/%s answers the tag with its first name and live count', async (slug, tag) => {
    const res = await t.http.get(`${TAGS}/${slug}`);

    expect({ status: res.status, body: res.body as unknown }).toStrictEqual({ status: 200, body: tag });
  });

  it.each(['unknown', 'drafts-only', 'scheduled-only', 'deleted-only'])(
    'GET /tags/%s is 404: no live blog has it',
    async (slug) => {
      const res = await t.http.get(`${TAGS}/${slug}`);

      expectJsonError(res, 404);
      expect(res.body).toEqual(problemBody(404, `Tag ${slug} not found`));
    },
  );

  // A tag slug has at most 50 characters: a longer one can name no tag.
  it.each(['NestJS', 'a_b', 'a--b', '-a', 'a%20b', '%C3%A4', 'x'.repeat(51), 'x'.repeat(201)])(
    'GET /tags/%s is 400 naming slug',
    async (slug) => {
      const res = await t.http.get(`${TAGS}/${slug}`);

      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual([expect.stringMatching(/^slug must be a slug: /)]);
    },
  );

  it('counts a blog that is published, and no longer one made a draft', async () => {
    await t.dataSource.query(`UPDATE blogs SET published_at = now() - interval '1 second' WHERE slug = 'b6'`);
    await expect(t.http.get(`${TAGS}/scheduled-only`)).resolves.toMatchObject({ status: 200, body: { count: 1 } });

    await t.dataSource.query(`UPDATE blogs SET published_at = NULL WHERE slug = 'b6'`);
    const res = await t.http.get(`${TAGS}/scheduled-only`);
    expectJsonError(res, 404);
    expect((await list('')).body.data.map((tag) => tag.slug)).not.toContain('scheduled-only');
  });
});

describe('tags with READS_REQUIRE_AUTH=true (e2e)', () => {
  const t = useTestApp({ READS_REQUIRE_AUTH: 'true' });

  it.each([TAGS, `${TAGS}/nestjs`])('GET %s needs a token', async (path) => {
    expectUnauthorized(await t.http.get(path));
    const res = await t.http.get(path).set('Authorization', bearer(t.token('alice')));
    expect(res.status).toBe(path === TAGS ? 200 : 404);
  });
});
