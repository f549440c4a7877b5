import type { PreparedStatement, StatementLane } from '../database/statement-runner';
import { BlogFilters, BlogSortField, sortOrder } from './blog-list';
import type { BlogListQuery } from './blogs.repository';

/** The columns a `Blog` is read from, without the generated `search_vector` (large, only searched). */
export function blogColumns(withContent: boolean): string {
  return `"id", "title", ${withContent ? '"content", ' : ''}"author", "owner_sub", "created_at", "updated_at", "version"`;
}

/**
 * A list statement, the values of its parameters, and its lane: `slow` when its total is counted over its matches,
 * `long` for a search (one common word can match a tenth of all blogs).
 */
interface BoundStatement {
  readonly statement: PreparedStatement;
  readonly values: unknown[];
  readonly lane: StatementLane;
}

type Filter = keyof BlogFilters;
type Binding = (shape: BlogListQuery) => unknown;

/** Each filter's condition on `$n` (docs/api.md, "Filters" and "Search"). */
const FILTERS: Readonly<Record<Filter, (parameter: string) => string>> = {
  author: (p) => `"author" = ${p}`,
  q: (p) => `"search_vector" @@ websearch_to_tsquery('simple', ${p})`,
  createdAfter: (p) => `"created_at" > ${p}`,
  createdBefore: (p) => `"created_at" < ${p}`,
  updatedAfter: (p) => `"updated_at" > ${p}`,
};
const FILTER_NAMES = Object.keys(FILTERS) as Filter[];

/** The sort key of each field but `id`, the tie-breaker; titles compare code points, as their indexes do. */
const SORT_KEYS: Readonly<Record<Exclude<BlogSortField, 'id'>, string>> = {
  createdAt: '"created_at"',
  updatedAt: '"updated_at"',
  title: '"title" COLLATE "C"',
};

/** One statement per shape (filters given, order, keyset or not, content or not): at most 2,048. */
const statements = new Map<string, { readonly statement: PreparedStatement; readonly bindings: Binding[] }>();

/**
 * The statement of a list page with the exact total of the matching blogs, from one snapshot (docs/architecture.md,
 * "The list queries"): the total from the counter when unfiltered; a search reads its matches once, for both.
 */
export function blogListStatement(shape: BlogListQuery): BoundStatement {
  const given = FILTER_NAMES.filter((name) => shape.filters[name] !== undefined);
  const key = `${shape.sort}:${given.join(',')}:${shape.after ? 'after' : ''}:${shape.withContent ? 'content' : ''}`;
  let entry = statements.get(key);
  if (entry === undefined) {
    entry = build(shape, given, `blogs.list.${statements.size + 1}`);
    statements.set(key, entry);
  }
  const lane = shape.filters.q !== undefined ? 'long' : given.length > 0 ? 'slow' : 'fast';
  return { statement: entry.statement, values: entry.bindings.map((binding) => binding(shape)), lane };
}

function build(
  { sort, after, withContent }: BlogListQuery,
  given: readonly Filter[],
  name: string,
): { statement: PreparedStatement; bindings: Binding[] } {
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
  const conditions = given.map((filter) => FILTERS[filter](bind(filter, ({ filters }) => filters[filter])));
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';

  const { field, descending } = sortOrder(sort);
  const direction = descending ? 'DESC' : 'ASC';
  const sortKey = field === 'id' ? undefined : SORT_KEYS[field];
  const search = given.includes('q');
  /** `rows` cut to the page: after `after` in the order of `key` (if any) and `id`, then offset and limit + 1. */
  const page = (rows: string, key: string | undefined, id: string, filtered: readonly string[] = []): string => {
    const all = [...filtered];
    if (after) {
      const comparison = descending ? '<' : '>';
      const afterId = bind('afterId', (shape) => shape.after?.id);
      all.push(
        key
          ? `(${key}, ${id}) ${comparison} (${bind('afterValue', (shape) => shape.after?.value)}, ${afterId})`
          : `${id} ${comparison} ${afterId}`,
      );
    }
    const order = [...(key ? [`${key} ${direction}`] : []), `${id} ${direction}`].join(', ');
    return (
      `${rows}${all.length > 0 ? ` WHERE ${all.join(' AND ')}` : ''} ORDER BY ${order}` +
      ` LIMIT ${bind('limit', (shape) => shape.limit + 1)} OFFSET ${bind('offset', (shape) => shape.offset)}`
    );
  };

  const columns = blogColumns(withContent);
  const outerOrder = [...(sortKey ? [`p.${sortKey} ${direction}`] : []), `p."id" ${direction}`].join(', ');
  let text: string;
  if (search) {
    const matchedKey = sortKey ? `, ${sortKey} AS "key"` : '';
    const ids = page(`SELECT m."id" FROM "matches" m`, sortKey && 'm."key"', 'm."id"');
    text =
      `WITH "matches" AS MATERIALIZED (SELECT "id"${matchedKey} FROM "blogs"${where}) ` +
      `SELECT t."total", p.* FROM (SELECT count(*) AS "total" FROM "matches") t ` +
      `LEFT JOIN (SELECT ${columns} FROM "blogs" WHERE "id" IN (${ids})) p ON true ORDER BY ${outerOrder}`;
  } else {
    const total =
      conditions.length > 0
        ? `SELECT count(*) AS "total" FROM "blogs"${where}`
        : `SELECT sum("n") AS "total" FROM "blog_counts"`;
    text =
      `SELECT t."total", p.* FROM (${total}) t ` +
      `LEFT JOIN (${page(`SELECT ${columns} FROM "blogs"`, sortKey, '"id"', conditions)}) p ON true ORDER BY ${outerOrder}`;
  }
  return { statement: { name, text }, bindings };
}
