import type { PreparedStatement, StatementLane } from '../database/statement-runner';
import { liveTagCount, scheduledBlogs, scheduledSql, TAGGED_BLOGS, taggedSql } from '../tags/tag-sql';
import { BlogFilters, BlogSortField, SEARCH_COUNT_LIMIT, SEARCH_TOTAL_CAP, sortOrder } from './blog-list';
import { BlogListStatus, liveSql } from './blog-status';
import type { BlogListQuery } from './blogs.repository';

/**
 * The columns a `Blog` is read from, without the generated `search_vector` (large, only searched) and without its
 * tags' names, which the repository adds (docs/performance.md, "Tag names").
 */
export function blogColumns(withContent: boolean): string {
  return (
    `"id", "title", ${withContent ? '"content", ' : ''}"author", "owner_sub", "created_at", "updated_at", ` +
    `"version", "published_at", "slug", "tag_slugs"`
  );
}

/**
 * The live blogs' total: the counter (blogs that are not drafts) less the scheduled ones, which are few
 * (docs/architecture.md, "Publishing and slugs"); `now` is the parameter given.
 */
export const liveTotalSql = (now: string): string =>
  `(SELECT sum("n") FROM "blog_counts")::int8 - (SELECT count(*) FROM ${scheduledBlogs(now)})`;

/**
 * The live blogs of the author `author`: their counter (blogs that are not drafts, a row per shard) less their scheduled
 * ones, each scheduled blog's author read by its id (a join could read all of the author's blogs); `author` and `now`
 * are the parameters given.
 */
export const liveAuthorTotalSql = (author: string, now: string): string =>
  `((SELECT coalesce(sum(c."n"), 0) FROM "author_counts" c WHERE c."author" = ${author})
    - (SELECT count(*) FROM ${scheduledBlogs(now)} s
      WHERE (SELECT b."author" FROM "blogs" b WHERE b."id" = s."id") = ${author}))::int8`;

/**
 * A list statement, the values of its parameters, and its lane: `slow` when its total is counted over its matches
 * and for a search's walk (which runs again in `long` when it runs out of `slow`'s time), `long` for a search that
 * counts (one common word can match a tenth of all blogs).
 */
interface BoundStatement {
  readonly statement: PreparedStatement;
  readonly values: unknown[];
  readonly lane: StatementLane;
}

type Filter = keyof BlogFilters;
type Binding = (shape: BlogListQuery) => unknown;

/**
 * Each filter's condition on `$n` (docs/api.md, "Filters" and "Search"). The search's query is read in an InitPlan, out
 * of the planner's sight, so that its generic plan is priced as its custom ones (docs/performance.md, "A search's
 * first page").
 */
const FILTERS: Readonly<Record<Filter, (parameter: string) => string>> = {
  author: (p) => `"author" = ${p}`,
  q: (p) => `"search_vector" @@ (SELECT websearch_to_tsquery('simple', ${p}))`,
  createdAfter: (p) => `"created_at" > ${p}`,
  createdBefore: (p) => `"created_at" < ${p}`,
  updatedAfter: (p) => `"updated_at" > ${p}`,
  tag: (p) => `"tag_slugs" @> ${p}::text[]`,
};
const FILTER_NAMES = Object.keys(FILTERS) as Filter[];

/**
 * The search's condition as a function call, which no index serves: the page of a search past
 * {@link SEARCH_TOTAL_CAP} walks the index of its order and tests each blog, rather than sort every match.
 */
const WALKED_SEARCH = (p: string): string =>
  `ts_match_vq("search_vector", (SELECT websearch_to_tsquery('simple', ${p})))`;

/** Each status's condition at the instant `now()` binds (`any`: none; a draft's needs no instant). */
const STATUSES: Readonly<Record<Exclude<BlogListStatus, 'any'>, (now: () => string) => string>> = {
  published: (now) => liveSql(now()),
  scheduled: (now) => scheduledSql(now()),
  draft: () => `"published_at" IS NULL`,
};

/**
 * The sort key of each field but `id`, the tie-breaker, over a column or a parameter; titles compare code points, as
 * their indexes do. `publishedAt` puts drafts (null) last: only a list that may hold drafts needs the `COALESCE`.
 */
function sortKey(field: Exclude<BlogSortField, 'id'>, descending: boolean, status: BlogListStatus) {
  return (value: string): string => {
    switch (field) {
      case 'createdAt':
      case 'updatedAt':
        return value;
      case 'title':
        return `${value} COLLATE "C"`;
      case 'publishedAt':
        return status === 'published' || status === 'scheduled'
          ? value
          : `COALESCE(${value}, '${descending ? '-' : ''}infinity'::timestamptz)`;
    }
  };
}

const SORT_COLUMNS: Readonly<Record<Exclude<BlogSortField, 'id'>, string>> = {
  createdAt: '"created_at"',
  updatedAt: '"updated_at"',
  title: '"title"',
  publishedAt: '"published_at"',
};

/**
 * Rows read (limit + 1) that a first page of a search, one tag or one author writes into its text, the least one ≥ the
 * page's:
 * with `LIMIT $n` or an `OFFSET`, PostgreSQL prices the generic plan for a tenth of the matching blogs and plans every
 * request anew (docs/performance.md, "One tag's first page").
 */
const FIRST_PAGE_ROWS = [11, 21, 51, 101] as const;

/**
 * {@link FIRST_PAGE_ROWS} for `shape` when it is a first page (offset 0) of a search, or read in order through
 * `blog_tags` or an index of `author` with the author's counter as its total; else undefined.
 */
function firstPageRows(shape: BlogListQuery, given: readonly Filter[]): number | undefined {
  if (shape.offset !== 0) return undefined;
  const fixed =
    given.includes('q') || readsTagIndex(shape, sortOrder(shape.sort).field) || countingFilter(shape) === 'author';
  if (!fixed) return undefined;
  return FIRST_PAGE_ROWS.find((rows) => rows > shape.limit);
}

/**
 * One statement per shape (filters given, order, keyset, content, status, owner, one tag, rows of a tag's first page):
 * a few thousand at most.
 */
const statements = new Map<string, { readonly statement: PreparedStatement; readonly bindings: Binding[] }>();

/**
 * The position of the blogs' writes: the last value of the change feed's sequence, which every write of a blog row
 * advances (its trigger adds an event to `event_outbox`); not transactional, so read before a count's snapshot or
 * after a page's (docs/architecture.md, "The list queries").
 */
export const WRITE_POSITION_SQL = `(SELECT CASE WHEN "is_called" THEN "last_value" ELSE "last_value" - 1 END
  FROM "event_outbox_seq_seq")`;

/**
 * The write position and the writes it may miss: one per transaction in flight (the server's connections and prepared
 * transactions; each of the service's writes stores one blog) and the 32 values a replica sees a sequence logged ahead.
 */
export const SEARCH_POSITION: PreparedStatement = {
  name: 'blogs.search-position',
  text: `SELECT ${WRITE_POSITION_SQL} AS "position", current_setting('max_connections')::int8
    + current_setting('max_prepared_transactions')::int8 + 32 AS "margin"`,
};

/**
 * How a search reads its total: `count` up to one past {@link SEARCH_TOTAL_CAP}; `deep` up to
 * {@link SEARCH_COUNT_LIMIT}, leaving room for writes; `walk` not at all, reading its page past the cap and the write
 * position ({@link WRITE_POSITION_SQL}).
 */
export type SearchTotal = 'count' | 'deep' | 'walk';

/**
 * The statement of a list page with the exact total of the matching blogs, from one snapshot (docs/architecture.md,
 * "The list queries"): the total from the counter when unfiltered; a search reads its matches once, for both, as
 * `total` says.
 */
export function blogListStatement(shape: BlogListQuery, total: SearchTotal = 'count'): BoundStatement {
  const given = FILTER_NAMES.filter((name) => shape.filters[name] !== undefined);
  const rows = firstPageRows(shape, given);
  const search = given.includes('q') ? total : 'count';
  const key =
    `${shape.sort}:${given.join(',')}:${shape.after ? 'after' : ''}:${shape.withContent ? 'content' : ''}:` +
    `${shape.status}:${shape.owner === undefined ? '' : 'owner'}:${shape.filters.tag?.length === 1 ? 'one-tag' : ''}:` +
    `${rows ?? ''}:${search}`;
  let entry = statements.get(key);
  if (entry === undefined) {
    entry = build(shape, given, `blogs.list.${statements.size + 1}`, rows, search);
    statements.set(key, entry);
  }
  const counted =
    (given.length > 0 && countingFilter(shape) === undefined) ||
    shape.status !== 'published' ||
    shape.owner !== undefined;
  // One tag's page in another order than creation sorts or walks the tag's blogs: no index bounds it.
  const sorted = given.includes('tag') && !readsTagIndex(shape, sortOrder(shape.sort).field);
  const lane = search === 'walk' ? 'slow' : given.includes('q') ? 'long' : counted || sorted ? 'slow' : 'fast';
  return { statement: entry.statement, values: entry.bindings.map((binding) => binding(shape)), lane };
}

/** Orders that an index of `author` serves: an author's page in another order sorts all of the author's blogs. */
const AUTHOR_INDEXED_ORDERS: ReadonlySet<BlogSortField> = new Set(['createdAt', 'updatedAt', 'title']);

/**
 * The filter whose counter is the total, for live blogs of every owner filtered by it alone: one tag, or the author in
 * an order one of its indexes serves; else undefined.
 */
function countingFilter({ filters, status, owner, sort }: BlogListQuery): 'tag' | 'author' | undefined {
  const given = FILTER_NAMES.filter((name) => filters[name] !== undefined);
  if (status !== 'published' || owner !== undefined || given.length !== 1) return undefined;
  if (given[0] === 'author') return AUTHOR_INDEXED_ORDERS.has(sortOrder(sort).field) ? 'author' : undefined;
  return given[0] === 'tag' && filters.tag?.length === 1 ? 'tag' : undefined;
}

/** Whether a page that is no search is read in order through `blog_tags`: one tag, in creation order. */
function readsTagIndex({ filters }: BlogListQuery, field: BlogSortField): boolean {
  return field === 'createdAt' && filters.tag?.length === 1;
}

/**
 * The statement of the shape of `query`; `firstRows`: the {@link firstPageRows} it reads, written into its text;
 * `total`: how a search reads its total.
 */
function build(
  query: BlogListQuery,
  given: readonly Filter[],
  name: string,
  firstRows?: number,
  total: SearchTotal = 'count',
): { statement: PreparedStatement; bindings: Binding[] } {
  const { sort, after, withContent, status, owner } = query;
  const bindings: Binding[] = [];
  const parameters = new Map<string, string>();
  const bind = (id: string, binding: Binding): string => {
    let parameter = parameters.get(id);
    if (parameter === undefined) {
      bindings.push(binding);
      parameter = `$${bindings.length}`;
      parameters.set(id, parameter);
    }
    return parameter;
  };
  const filterConditions = given.map((filter) => FILTERS[filter](bind(filter, ({ filters }) => filters[filter])));
  // Only the filters' own conditions make the total a count: the status and the owner alone do not.
  const filtered = filterConditions.length > 0 || status !== 'published' || owner !== undefined;
  const now = (): string => bind('now', (shape) => shape.now);
  /** The status's condition; `hidden`: with `now` out of the planner's sight (below). */
  const statusCondition = (hidden = false): string[] =>
    status === 'any' ? [] : [STATUSES[status](hidden ? () => `(SELECT ${now()}::timestamptz)` : now)];
  const conditions = [...filterConditions, ...statusCondition()];
  const ownerCondition = owner === undefined ? [] : [`"owner_sub" = ${bind('owner', (shape) => shape.owner)}`];
  conditions.push(...ownerCondition);
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';

  const { field, descending } = sortOrder(sort);
  const direction = descending ? 'DESC' : 'ASC';
  /** The sort key over a column, row or parameter reference (none for `id`). */
  const keyOf = field === 'id' ? undefined : sortKey(field, descending, status);
  const column = field === 'id' ? '' : SORT_COLUMNS[field];
  const search = given.includes('q');
  /** `rows` cut to the page: after `after` in the order of `key` (if any) and `id`, then `limit` (else offset and limit + 1). */
  const page = (
    rows: string,
    key: string | undefined,
    id: string,
    filters: readonly string[] = [],
    limit?: string,
  ): string => {
    const all = [...filters];
    if (after) {
      const comparison = descending ? '<' : '>';
      const afterId = bind('afterId', (shape) => shape.after?.id);
      const afterValue = (): string => keyOf!(bind('afterValue', (shape) => shape.after?.value));
      all.push(key ? `(${key}, ${id}) ${comparison} (${afterValue()}, ${afterId})` : `${id} ${comparison} ${afterId}`);
    }
    const order = [...(key ? [`${key} ${direction}`] : []), `${id} ${direction}`].join(', ');
    const cut =
      limit ?? ` LIMIT ${bind('limit', (shape) => shape.limit + 1)} OFFSET ${bind('offset', (shape) => shape.offset)}`;
    return `${rows}${all.length > 0 ? ` WHERE ${all.join(' AND ')}` : ''} ORDER BY ${order}${cut}`;
  };

  const columns = blogColumns(withContent);
  const outerOrder = [...(keyOf ? [`${keyOf(`p.${column}`)} ${direction}`] : []), `p."id" ${direction}`].join(', ');
  let text: string;
  if (search) {
    // The matches read for the total stop one past the cap (at SEARCH_COUNT_LIMIT when deep); within the cap they hold
    // every match, and the page is cut from them; past it the page walks the order's index, testing each blog, as a walk does with no count
    // (docs/architecture.md, "The list queries").
    const matchedKey = keyOf ? `, ${keyOf(column)} AS "key"` : '';
    const fixedRows = firstRows === undefined ? undefined : ` LIMIT ${firstRows}`;
    const within = `(SELECT "n" FROM "counted") <= ${SEARCH_TOTAL_CAP}`;
    const fromMatches = page(`SELECT m."id" FROM "matches" m`, keyOf && 'm."key"', 'm."id"', [within], fixedRows);
    const walk = total === 'walk';
    const past = walk ? [] : [`(SELECT "n" FROM "counted") > ${SEARCH_TOTAL_CAP}`];
    const walking = [
      ...given.map((filter, i) => (filter === 'q' ? WALKED_SEARCH(bind('q', () => undefined)) : filterConditions[i])),
      ...statusCondition(),
      ...ownerCondition,
    ];
    const walked = page(`SELECT "id" FROM "blogs"`, keyOf?.(column), '"id"', [...past, ...walking], fixedRows);
    const limit = firstRows === undefined ? '' : ` LIMIT ${bind('limit', (shape) => shape.limit + 1)}`;
    text = walk
      ? `SELECT ${WRITE_POSITION_SQL} AS "position", p.* FROM (SELECT) t ` +
        `LEFT JOIN (SELECT ${columns} FROM "blogs" WHERE "id" IN (${walked})) p ON true ORDER BY ${outerOrder}${limit}`
      : `WITH "matches" AS MATERIALIZED (SELECT "id"${matchedKey} FROM "blogs"${where} ` +
        `LIMIT ${total === 'deep' ? SEARCH_COUNT_LIMIT : SEARCH_TOTAL_CAP + 1}), ` +
        `"counted" AS (SELECT count(*) AS "n" FROM "matches") ` +
        `SELECT t."n" AS "total", p.* FROM "counted" t ` +
        `LEFT JOIN (SELECT ${columns} FROM "blogs" WHERE "id" IN ((${fromMatches}) UNION ALL (${walked}))) p ON true ` +
        `ORDER BY ${outerOrder}${limit}`;
  } else {
    const counter = countingFilter(query);
    const author = (): string => bind('author', ({ filters }) => filters.author);
    const total =
      counter === 'tag'
        ? `SELECT ${liveTagCount(`(${bind('tag', ({ filters }) => filters.tag)}::text[])[1]`, now())} AS "total"`
        : counter === 'author'
          ? `SELECT ${liveAuthorTotalSql(author(), now())} AS "total"`
          : filtered
            ? `SELECT count(*) AS "total" FROM "blogs"${where}`
            : `SELECT ${liveTotalSql(now())} AS "total"`;
    // Through blog_tags, the tag and the instant are read in InitPlans: a custom plan that saw a popular tag (its rows
    // many, so the page's share of them small) or the instant (every blog live) would be priced below the generic
    // plan, which PostgreSQL would then never keep, planning every request anew (docs/performance.md, "One tag's
    // first page").
    const fixedRows = firstRows === undefined ? undefined : ` LIMIT ${firstRows}`;
    const rows = readsTagIndex(query, field)
      ? page(
          `SELECT ${columns} FROM ${TAGGED_BLOGS}`,
          'bt."blog_created_at"',
          'bt."blog_id"',
          [
            taggedSql(`(SELECT (${bind('tag', ({ filters }) => filters.tag)}::text[])[1])`),
            ...filterConditions.filter((_, i) => given[i] !== 'tag'),
            ...statusCondition(true),
            ...ownerCondition,
          ],
          fixedRows,
        )
      : page(`SELECT ${columns} FROM "blogs"`, keyOf?.(column), '"id"', conditions, fixedRows);
    // A first page of fixed rows is cut to the page's own limit + 1 here.
    const limit = firstRows === undefined ? '' : ` LIMIT ${bind('limit', (shape) => shape.limit + 1)}`;
    text = `SELECT t."total", p.* FROM (${total}) t LEFT JOIN (${rows}) p ON true ORDER BY ${outerOrder}${limit}`;
  }
  return { statement: { name, text }, bindings };
}
