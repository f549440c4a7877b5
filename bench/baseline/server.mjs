// The benchmark's baseline: the blog API's four operations on `node:http` and a `pg` Pool, with no
// framework. It does the same SQL work as the service (same tables, same statements, same exact
// `total`), answers the same JSON fields and validates the id, the paging query, the body and the
// HS256 token the same minimal way, so that "service / baseline" measures what the framework and
// the service's own code cost. It is the ceiling a Node process reaches here: keep it simple and
// never make it slower than it needs to be.
//
// The list also takes `author`, `q` (full-text search), `tag` (one tag slug, its total from the tag's
// counter as the service reads it) and `cursor` (keyset paging, newest first), the filters the bench's
// scenarios use, with the same exact `total` and a signed `nextCursor` of its own format; PATCH (merge
// patch of the given fields) and DELETE complete the writes. `GET /api/v1/blogs/slug/<slug>` reads a
// blog by its slug (or an earlier one, without the service's 301) and `GET /api/v1/tags` lists the
// tags with their live counts, most blogs first. `GET /api/v1/blogs/<id>/comments` lists a live blog's
// comments oldest first with the service's statements (the blog's visibility, the exact total from its counter,
// `offset` or a `cursor` of its own format) and `POST` adds one (the service's statement, which checks the blog).
// `GET /api/v1/blogs/<id>/revisions` lists the newest of a blog's kept revisions for its owner, by `offset`, with the
// service's statement (the blog's access, the total from the newest and oldest `seq`, the page without `content`).
// `GET /api/v1/feeds/blogs.atom` writes the first Atom document of the live blogs (the service's statement, tag names
// read with it, a `next` link with a signed cursor) and `GET /api/v1/sitemaps/blogs-<n>.xml` a sitemap file (the
// service's range read), both escaped by hand, with an ETag of the text: the feeds' ceiling without a framework or
// an XML library.
//
// Environment: PORT, DATABASE_URL, JWT_SECRET, POOL_SIZE (default 10, as the service).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const INT4_MAX = 2_147_483_647;
const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;
const MAX_BODY_BYTES = 1_048_576;
const LIMITS = { title: 200, content: 100_000, author: 100 };
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SLUG_MAX_LENGTH = 200;
const TAG_SLUG_MAX_LENGTH = 50;
const secret = Buffer.from(process.env.JWT_SECRET ?? '', 'utf8');
// jit=off as the service sets it: JIT compilation costs more than these statements run.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  options: '-c jit=off',
});

const COLUMNS = 'id, title, content, author, created_at AS "createdAt", updated_at AS "updatedAt"';
/**
 * The live count of the tag ($1::text[])[1] at $2 (its counter less its scheduled blogs), the service's statements'
 * `liveTagCount`.
 */
const liveTagCount =
  `((SELECT coalesce(sum(c.n), 0) FROM tag_counts c WHERE c.tag_slug = ($1::text[])[1]) - (SELECT count(*) FROM blogs b ` +
  `WHERE b.published_at > $2 AND b.published_at < 'infinity' AND ($1::text[])[1] = ANY(b.tag_slugs)))::int8`;
// Named statements: each connection parses and plans them once.
const SQL = {
  readOne: { name: 'read-one', text: `SELECT ${COLUMNS} FROM blogs WHERE id = $1` },
  list: {
    name: 'list',
    text:
      `WITH c AS (SELECT sum(n)::int8 AS total FROM blog_counts), keys AS (` +
      `(SELECT id FROM blogs ORDER BY created_at DESC, id DESC ` +
      `LIMIT CASE WHEN $2::int8 * 2 < (SELECT total FROM c) THEN $1 ELSE 0 END OFFSET $2) UNION ALL ` +
      `(SELECT id FROM blogs ORDER BY created_at, id ` +
      `LIMIT CASE WHEN $2::int8 * 2 >= (SELECT total FROM c) THEN greatest(least($1, (SELECT total FROM c) - $2), 0) ELSE 0 END ` +
      `OFFSET greatest((SELECT total FROM c) - $2 - $1, 0))) ` +
      `SELECT c.total, p.* FROM c LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM blogs WHERE id IN (SELECT id FROM keys) ` +
      `ORDER BY created_at DESC, id DESC) p ON true`,
  },
  create: {
    name: 'create',
    text: `INSERT INTO blogs (title, content, author, owner_sub) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
  },
  update: {
    name: 'update',
    text:
      `UPDATE blogs SET title = COALESCE($2, title), content = COALESCE($3, content), author = COALESCE($4, author), ` +
      `updated_at = GREATEST(CURRENT_TIMESTAMP, updated_at + interval '1 millisecond'), version = version + 1 ` +
      `WHERE id = $1 AND owner_sub = $5 RETURNING ${COLUMNS}`,
  },
  delete: { name: 'delete', text: `DELETE FROM blogs WHERE id = $1 AND owner_sub = $2 RETURNING id` },
  // Keyset page after ($1, $2), one row more than asked to tell whether another page follows.
  after: {
    name: 'after',
    text:
      `WITH c AS (SELECT sum(n)::int8 AS total FROM blog_counts), page AS (SELECT ${COLUMNS} FROM blogs ` +
      `WHERE (created_at, id) < ($1::timestamptz, $2::int4) ORDER BY created_at DESC, id DESC LIMIT $3::int4 + 1) ` +
      `SELECT c.total, page.* FROM c LEFT JOIN page ON true ORDER BY page."createdAt" DESC, page.id DESC`,
  },
  author: {
    name: 'author',
    text:
      `WITH page AS (SELECT ${COLUMNS} FROM blogs WHERE author = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) ` +
      `SELECT (SELECT count(*) FROM blogs WHERE author = $1) AS total, page.* FROM (VALUES (1)) one ` +
      `LEFT JOIN page ON true ORDER BY page."createdAt" DESC, page.id DESC`,
  },
  // Up to 10,001 matches once, as the service reads them: the total (10000 past that) and, within it, the page;
  // past it the page walks the order's index.
  search: {
    name: 'search',
    text:
      `WITH matches AS MATERIALIZED (SELECT id, created_at FROM blogs ` +
      `WHERE search_vector @@ websearch_to_tsquery('simple', $1) LIMIT 10001), ` +
      `counted AS (SELECT count(*) AS n FROM matches), ` +
      `page AS (SELECT ${COLUMNS} FROM blogs WHERE id IN (` +
      `(SELECT id FROM matches WHERE (SELECT n FROM counted) <= 10000 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) ` +
      `UNION ALL (SELECT id FROM blogs WHERE (SELECT n FROM counted) > 10000 ` +
      `AND ts_match_vq(search_vector, websearch_to_tsquery('simple', $1)) ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3))) ` +
      `SELECT least((SELECT n FROM counted), 10000) AS total, page.* FROM (VALUES (1)) one ` +
      `LEFT JOIN page ON true ORDER BY page."createdAt" DESC, page.id DESC`,
  },
  // The blog whose slug is $1, else the one that held it before.
  readSlug: {
    name: 'read-slug',
    text:
      `SELECT ${COLUMNS} FROM blogs WHERE id = COALESCE((SELECT id FROM blogs WHERE slug = $1), ` +
      `(SELECT blog_id FROM blog_slugs WHERE slug = $1))`,
  },
  // The live blogs with the tag $1 (a one-element text[]) at $2, newest first: $3 is one more than asked.
  tag: {
    name: 'tag',
    text:
      `SELECT t.total, p.* FROM (SELECT ${liveTagCount} AS total) t LEFT JOIN (SELECT ${COLUMNS} FROM blogs ` +
      `WHERE tag_slugs @> $1::text[] AND COALESCE(published_at, 'infinity') <= $2 ORDER BY created_at DESC, id DESC ` +
      `LIMIT $3 OFFSET $4) p ON true ORDER BY p."createdAt" DESC, p.id DESC`,
  },
  // Tags with live blogs at $3 (counters less scheduled blogs), most blogs first, $1 from $2, and their number.
  tags: {
    name: 'tags',
    text:
      `WITH live AS (SELECT d.slug, sum(d.n)::int8 AS count FROM (SELECT c.tag_slug AS slug, c.n FROM tag_counts c ` +
      `UNION ALL SELECT s.slug, -1 FROM blogs b CROSS JOIN LATERAL unnest(b.tag_slugs) AS s(slug) ` +
      `WHERE b.published_at > $3 AND b.published_at < 'infinity') d GROUP BY d.slug HAVING sum(d.n) > 0) ` +
      `SELECT n.total, p.* FROM (SELECT count(*)::int8 AS total FROM live) n LEFT JOIN (SELECT t.slug, t.name, l.count ` +
      `FROM live l JOIN tags t ON t.slug = l.slug ORDER BY count DESC, slug LIMIT $1 OFFSET $2) p ON true ` +
      `ORDER BY count DESC, slug`,
  },
};

Object.assign(SQL, {
  // The feed's first 21 live blogs at $1, newest publishedAt first, with their tags' names.
  feed: {
    name: 'feed',
    text:
      `SELECT b.id, b.title, b.content, b.author, b.slug, b.published_at, b.updated_at, ARRAY(SELECT t.name FROM ` +
      `unnest(b.tag_slugs) WITH ORDINALITY u(slug, i) JOIN tags t ON t.slug = u.slug ORDER BY u.i) AS tag_names ` +
      `FROM blogs b WHERE b.published_at <= $1 ORDER BY b.published_at DESC, b.id DESC LIMIT 21`,
  },
  // The live blogs at $1 with ids $2 to $3.
  sitemap: {
    name: 'sitemap',
    text: `SELECT id, slug, updated_at FROM blogs WHERE id BETWEEN $2::int4 AND $3::int4 AND published_at <= $1 ORDER BY id`,
  },
});

const XML_ESCAPES = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' };
/** `text` with what XML 1.0 forbids left out and markup escaped. */
const xml = (text) =>
  String(text)
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/[<>&"]/g, (c) => XML_ESCAPES[c]);
const PUBLIC = `http://127.0.0.1:${process.env.PORT ?? 3000}`;

/** Sends `text` as `type` with an ETag of its SHA-256, as the service does. */
function sendDocument(res, type, text) {
  const etag = `"${createHash('sha256').update(text).digest().subarray(0, 16).toString('base64url')}"`;
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(text), etag });
  res.end(text);
}

async function atomFeed(res) {
  const { rows } = await pool.query({ ...SQL.feed, values: [new Date()] });
  const entries = rows.slice(0, 20);
  const updated = entries.reduce((max, row) => (row.updated_at > max ? row.updated_at : max), new Date(0));
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><id>${PUBLIC}/api/v1/feeds/blogs.atom</id>`,
    `<title>Blog</title><updated>${updated.toISOString()}</updated><link rel="self" href="${PUBLIC}/api/v1/feeds/blogs.atom"/>`,
  ];
  if (rows.length > 20) {
    const last = entries[19];
    parts.push(
      `<link rel="next" href="${PUBLIC}/api/v1/feeds/blogs.atom?cursor=${cursorAfter({ createdAt: last.published_at, id: last.id })}"/>`,
    );
  }
  for (const row of entries) {
    parts.push(
      `<entry><id>${PUBLIC}/api/v1/blogs/${row.id}</id><title type="text">${xml(row.title)}</title>` +
        `<link rel="alternate" href="${PUBLIC}/api/v1/blogs/slug/${row.slug}"/><published>${row.published_at.toISOString()}</published>` +
        `<updated>${row.updated_at.toISOString()}</updated><author><name>${xml(row.author)}</name></author>` +
        row.tag_names.map((name) => `<category term="${xml(name)}" label="${xml(name)}"/>`).join('') +
        `<content type="text">${xml(row.content)}</content></entry>`,
    );
  }
  parts.push('</feed>');
  sendDocument(res, 'application/atom+xml; charset=utf-8', parts.join(''));
}

async function sitemapFile(res, n) {
  const { rows } = await pool.query({ ...SQL.sitemap, values: [new Date(), (n - 1) * 50_000 + 1, n * 50_000] });
  if (rows.length === 0) return error(res, 404, 'Not Found');
  const parts = ['<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
  for (const row of rows) {
    parts.push(
      `<url><loc>${PUBLIC}/api/v1/blogs/slug/${row.slug}</loc><lastmod>${row.updated_at.toISOString()}</lastmod></url>`,
    );
  }
  parts.push('</urlset>');
  sendDocument(res, 'application/xml; charset=utf-8', parts.join(''));
}

/** A comment's columns, of the row `c`, and who may read its blog, of the row `b`: the service's statements. */
const COMMENT_COLUMNS = `c."id", c."blog_id", c."author", c."body", c."owner_sub", c."created_at"`;
const BLOG_ACCESS = `b."owner_sub" AS "blog_owner_sub", b."published_at" AS "blog_published_at"`;
const commentPage = (where, paging) =>
  `SELECT ${BLOG_ACCESS}, COALESCE((SELECT "n" FROM "comment_counts" WHERE "blog_id" = $1), 0) AS "total", p.* ` +
  `FROM "blogs" b LEFT JOIN LATERAL (SELECT ${COMMENT_COLUMNS} FROM "comments" c WHERE c."blog_id" = b."id"${where} ` +
  `ORDER BY c."created_at", c."id" ${paging}) p ON true WHERE b."id" = $1 ORDER BY p."created_at", p."id"`;
Object.assign(SQL, {
  // Blog $1, its comment count and $2 of its comments after $3 of them / after ($3, $4).
  comments: { name: 'comments', text: commentPage('', 'LIMIT $2 OFFSET $3') },
  commentsAfter: {
    name: 'comments-after',
    text: commentPage(` AND (c."created_at", c."id") > ($3::timestamptz, $4::int4)`, 'LIMIT $2'),
  },
  // Blog $1, the number of its newest $2 revisions and $3 of them after $4 of them, newest first (no content).
  revisions: {
    name: 'revisions',
    text:
      `SELECT ${BLOG_ACCESS}, coalesce(s."total", 0) AS "total", p.* FROM "blogs" b ` +
      `CROSS JOIN LATERAL (SELECT max(n."seq") - $2::int AS "above", ` +
      `least(max(n."seq") - min(n."seq") + 1, $2::int) AS "total" FROM "blog_revisions" n WHERE n."blog_id" = b."id") s ` +
      `LEFT JOIN LATERAL (SELECT r."version", r."title", r."author", r."tag_slugs", r."created_at", r."changed" ` +
      `FROM "blog_revisions" r WHERE r."blog_id" = b."id" AND r."seq" > s."above" ` +
      `ORDER BY r."version" DESC LIMIT $3 OFFSET $4) p ON true WHERE b."id" = $1 ORDER BY p."version" DESC`,
  },
  // Comment ($2, $3, $4) on blog $1 if it is live at $5; one row without a comment when it is not, none without it.
  createComment: {
    name: 'create-comment',
    text:
      `WITH "blog" AS (SELECT "id", "owner_sub", "published_at" FROM "blogs" WHERE "id" = $1), ` +
      `"stored" AS (INSERT INTO "comments" ("blog_id", "author", "body", "owner_sub") ` +
      `SELECT "id", $2, $3, $4 FROM "blog" WHERE "published_at" <= $5 ` +
      `RETURNING "id", "blog_id", "author", "body", "owner_sub", "created_at") ` +
      `SELECT ${BLOG_ACCESS}, c.* FROM "blog" b LEFT JOIN "stored" c ON true`,
  },
});
const COMMENT_LIMITS = { author: 100, body: 10_000 };

/** The answer of a comment row. */
const commentOf = (row) => ({
  id: row.id,
  blogId: row.blog_id,
  author: row.author,
  body: row.body,
  createdAt: row.created_at,
});

/** `base64url(blogId createdAt id) + "." + base64url(HMAC-SHA256)` of a page's last comment. */
function commentCursorAfter(comment) {
  const payload = Buffer.from(`${comment.blogId} ${comment.createdAt.toISOString()} ${comment.id}`).toString(
    'base64url',
  );
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

/** [createdAt, id] of a comment cursor this server made for blog `blogId`, else undefined. */
function commentPositionOf(cursor, blogId) {
  const [payload, signature = ''] = cursor.split('.');
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [blog, createdAt, id] = Buffer.from(payload, 'base64url').toString().split(' ');
  return Number(blog) === blogId ? [createdAt, Number(id)] : undefined;
}

/** Whether a blog published at `publishedAt` (null: a draft) is live at `now`. */
const live = (publishedAt, now) => publishedAt !== null && publishedAt <= now;

async function listComments(res, blogId, params) {
  const limit = intParam(params.get('limit'), 1, 100, 10);
  const offset = intParam(params.get('offset'), 0, INT4_MAX, 0);
  const cursor = params.get('cursor');
  if (limit === undefined || offset === undefined || (cursor !== null && params.has('offset'))) {
    return error(res, 400, 'bad query');
  }
  const position = cursor === null ? undefined : commentPositionOf(cursor, blogId);
  if (cursor !== null && position === undefined) return error(res, 400, 'bad cursor');
  const { rows } =
    position === undefined
      ? await pool.query({ ...SQL.comments, values: [blogId, limit + 1, offset] })
      : await pool.query({ ...SQL.commentsAfter, values: [blogId, limit + 1, ...position] });
  if (rows.length === 0 || !live(rows[0].blog_published_at, new Date())) return error(res, 404, 'Not Found');
  const comments = rows[0].id === null ? [] : rows.slice(0, limit).map(commentOf);
  const nextCursor = rows.length > limit ? commentCursorAfter(comments[comments.length - 1]) : null;
  const total = Number(rows[0].total);
  return send(res, 200, { data: comments, total, limit, offset: position === undefined ? offset : null, nextCursor });
}

/** Revisions kept per blog, as the service's default `REVISIONS_KEPT`. */
const REVISIONS_KEPT = 50;

async function listRevisions(req, res, blogId, params) {
  const sub = subject(req.headers.authorization);
  if (!sub) return error(res, 401, 'Unauthorized');
  const limit = intParam(params.get('limit'), 1, 100, 10);
  const offset = intParam(params.get('offset'), 0, INT4_MAX, 0);
  if (limit === undefined || offset === undefined) return error(res, 400, 'bad query');
  const { rows } = await pool.query({ ...SQL.revisions, values: [blogId, REVISIONS_KEPT, limit + 1, offset] });
  if (rows.length === 0 || rows[0].blog_owner_sub !== sub) return error(res, 404, 'Not Found or not yours');
  const data =
    rows[0].version === null
      ? []
      : rows.slice(0, limit).map(({ version, title, author, tag_slugs: tags, created_at: createdAt, changed }) => ({
          version,
          title,
          author,
          tags,
          createdAt,
          changed,
        }));
  const payload = Buffer.from(`${blogId} ${data.at(-1)?.version}`).toString('base64url');
  const nextCursor =
    rows.length > limit ? `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}` : null;
  return send(res, 200, { data, total: Number(rows[0].total), limit, offset, nextCursor });
}

async function createComment(req, res, blogId) {
  const sub = subject(req.headers.authorization);
  if (!sub) return error(res, 401, 'Unauthorized');
  const body = JSON.parse(await readBody(req));
  if (!validFields(body, Object.keys(COMMENT_LIMITS), COMMENT_LIMITS) || Object.keys(body).length !== 2) {
    return error(res, 400, 'bad body');
  }
  const now = new Date();
  const { rows } = await pool.query({ ...SQL.createComment, values: [blogId, body.author, body.body, sub, now] });
  if (rows.length === 0) return error(res, 404, 'Not Found');
  if (rows[0].id === null) {
    return rows[0].blog_owner_sub === sub ? error(res, 409, 'Not published') : error(res, 404, 'Not Found');
  }
  return send(res, 201, commentOf(rows[0]), { location: `/api/v1/comments/${rows[0].id}` });
}

/** `base64url(createdAt ISO string + " " + id) + "." + base64url(HMAC-SHA256)` of a page's last blog. */
function cursorAfter(blog) {
  const payload = Buffer.from(`${blog.createdAt.toISOString()} ${blog.id}`).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

/** [createdAt, id] of a cursor this server made, else undefined. */
function positionOf(cursor) {
  const [payload, signature = ''] = cursor.split('.');
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [createdAt, id] = Buffer.from(payload, 'base64url').toString().split(' ');
  return [createdAt, Number(id)];
}

function send(res, status, body, headers) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function error(res, status, message) {
  send(res, status, { statusCode: status, error: 'Error', message });
}

/** Sends the list envelope of `rows` (each with the page's `total`; one row without a blog for an empty page). */
function sendPage(res, rows, limit, offset, more) {
  const total = Number(rows[0].total);
  const blogs = rows[0].id === null ? [] : rows.slice(0, limit).map(({ total: _t, ...blog }) => blog);
  const nextCursor = more ? cursorAfter(blogs[blogs.length - 1]) : null;
  send(res, 200, { data: blogs, total, limit, offset, nextCursor });
}

function intParam(text, min, max, fallback) {
  if (text === null) return fallback;
  if (!CANONICAL_INTEGER.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/** The token's `sub` when it is a valid HS256 JWT with an `exp` in the future, else undefined. */
function subject(authorization) {
  const match = /^Bearer +([^ ]+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const [header, payload, signature] = match[1].split('.');
  if (!signature) return undefined;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    if (typeof claims.exp !== 'number' || claims.exp + 30 < Date.now() / 1000) return undefined;
    return typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

function validInput(body) {
  return validFields(body, Object.keys(LIMITS)) && Object.keys(body).length === 3;
}

function validPatch(body) {
  return validFields(body, Object.keys(body)) && Object.keys(body).length > 0;
}

function validFields(body, fields, limits = LIMITS) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  for (const field of fields) {
    const max = Object.hasOwn(limits, field) ? limits[field] : undefined;
    const value = body[field];
    if (max === undefined) return false;
    if (
      typeof value !== 'string' ||
      value.length < 1 ||
      value.length > max ||
      value.trim() === '' ||
      value.includes('\0')
    ) {
      return false;
    }
  }
  return true;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req, res) {
  const url = new URL(req.url, 'http://x');
  const path = url.pathname;
  if (path === '/health/live') return send(res, 200, { status: 'ok' });
  if (path === '/api/v1/tags' && req.method === 'GET') {
    const params = url.searchParams;
    const limit = intParam(params.get('limit'), 1, 100, 10);
    const offset = intParam(params.get('offset'), 0, INT4_MAX, 0);
    if (limit === undefined || offset === undefined || (params.get('sort') ?? '-count') !== '-count') {
      return error(res, 400, 'bad query');
    }
    const { rows } = await pool.query({ ...SQL.tags, values: [limit, offset, new Date()] });
    const data =
      rows[0].slug === null ? [] : rows.map(({ slug, name, count }) => ({ slug, name, count: Number(count) }));
    return send(res, 200, { data, total: Number(rows[0].total), limit, offset });
  }
  if (path === '/api/v1/feeds/blogs.atom' && req.method === 'GET') return atomFeed(res);
  const sitemap = /^\/api\/v1\/sitemaps\/blogs-([1-9][0-9]{0,5})\.xml$/.exec(path);
  if (sitemap && req.method === 'GET') return sitemapFile(res, Number(sitemap[1]));
  if (!path.startsWith('/api/v1/blogs')) return error(res, 404, 'Not Found');
  const rest = path.slice('/api/v1/blogs'.length);

  if (rest === '' && req.method === 'GET') {
    const params = url.searchParams;
    const limit = intParam(params.get('limit'), 1, 100, 10);
    const offset = intParam(params.get('offset'), 0, INT4_MAX, 0);
    const [author, q, cursor, tag] = ['author', 'q', 'cursor', 'tag'].map((name) => params.get(name));
    if (limit === undefined || offset === undefined) return error(res, 400, 'bad query');
    if ((author !== null && (author.length < 1 || author.length > 100)) || (q !== null && q.length > 200)) {
      return error(res, 400, 'bad query');
    }
    if (tag !== null) {
      if (tag.length > TAG_SLUG_MAX_LENGTH || !SLUG.test(tag)) return error(res, 400, 'bad tag');
      const { rows } = await pool.query({ ...SQL.tag, values: [[tag], new Date(), limit + 1, offset] });
      return sendPage(res, rows, limit, offset, rows.length > limit);
    }
    if (cursor !== null) {
      const position = positionOf(cursor);
      if (position === undefined) return error(res, 400, 'bad cursor');
      const { rows } = await pool.query({ ...SQL.after, values: [...position, limit] });
      return sendPage(res, rows, limit, null, rows.length > limit);
    }
    const [statement, filter] = author !== null ? [SQL.author, author] : q !== null ? [SQL.search, q] : [SQL.list];
    const values = filter === undefined ? [limit, offset] : [filter, limit, offset];
    const { rows } = await pool.query({ ...statement, values });
    const count = rows[0].id === null ? 0 : rows.length;
    return sendPage(res, rows, limit, offset, offset + count < Number(rows[0].total));
  }
  if (rest === '' && req.method === 'POST') {
    const sub = subject(req.headers.authorization);
    if (!sub) return error(res, 401, 'Unauthorized');
    const body = JSON.parse(await readBody(req));
    if (!validInput(body)) return error(res, 400, 'bad body');
    const { rows } = await pool.query({ ...SQL.create, values: [body.title, body.content, body.author, sub] });
    return send(res, 201, rows[0], { location: `/api/v1/blogs/${rows[0].id}` });
  }
  if (rest.startsWith('/slug/') && req.method === 'GET') {
    const slug = rest.slice('/slug/'.length);
    if (slug.length > SLUG_MAX_LENGTH || !SLUG.test(slug)) return error(res, 400, 'bad slug');
    const { rows } = await pool.query({ ...SQL.readSlug, values: [slug] });
    return rows.length === 0 ? error(res, 404, 'Not Found') : send(res, 200, rows[0]);
  }
  const comments = /^\/([^/]+)\/comments$/.exec(rest);
  if (comments && (req.method === 'GET' || req.method === 'POST')) {
    const blogId = intParam(comments[1], 1, INT4_MAX, undefined);
    if (blogId === undefined) return error(res, 400, 'bad id');
    return req.method === 'GET' ? listComments(res, blogId, url.searchParams) : createComment(req, res, blogId);
  }
  const revisions = /^\/([^/]+)\/revisions$/.exec(rest);
  if (revisions && req.method === 'GET') {
    const blogId = intParam(revisions[1], 1, INT4_MAX, undefined);
    if (blogId === undefined) return error(res, 400, 'bad id');
    return listRevisions(req, res, blogId, url.searchParams);
  }
  const idText = rest.startsWith('/') ? rest.slice(1) : undefined;
  if (idText === undefined) return error(res, 404, 'Not Found');
  const id = intParam(idText, 1, INT4_MAX, undefined);

  if (req.method === 'GET') {
    if (id === undefined) return error(res, 400, 'bad id');
    const { rows } = await pool.query({ ...SQL.readOne, values: [id] });
    return rows.length === 0 ? error(res, 404, 'Not Found') : send(res, 200, rows[0]);
  }
  if (req.method === 'PUT' || req.method === 'PATCH' || req.method === 'DELETE') {
    const sub = subject(req.headers.authorization);
    if (!sub) return error(res, 401, 'Unauthorized');
    if (id === undefined) return error(res, 400, 'bad id');
    if (req.method === 'DELETE') {
      const { rows } = await pool.query({ ...SQL.delete, values: [id, sub] });
      if (rows.length === 0) return error(res, 404, 'Not Found or not yours');
      res.writeHead(204).end();
      return undefined;
    }
    const body = JSON.parse(await readBody(req));
    if (req.method === 'PUT' ? !validInput(body) : !validPatch(body)) return error(res, 400, 'bad body');
    const values = [id, body.title ?? null, body.content ?? null, body.author ?? null, sub];
    const { rows } = await pool.query({ ...SQL.update, values });
    return rows.length === 0 ? error(res, 404, 'Not Found or not yours') : send(res, 200, rows[0]);
  }
  return error(res, 404, 'Not Found');
}

const server = createServer((req, res) => {
  handle(req, res).catch((cause) => {
    console.error(cause);
    if (!res.headersSent) error(res, 500, 'Internal Server Error');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3001), '127.0.0.1', () =>
  console.log(`baseline listening on ${server.address().port}`),
);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => pool.end().then(() => process.exit(0))));
}
