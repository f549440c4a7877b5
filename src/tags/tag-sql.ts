// SQL about tags that statements of other modules embed, so that only this module names the tag tables, and the SQL of
// scheduled blogs that tag counts and blog totals both read. Blogs import it; this module imports nothing of blogs.
// Arguments are SQL expressions (`$8`, `b."tag_slugs"`), never values.

/**
 * FROM-clause SQL: the blogs scheduled at the instant `now` (a parameter), as rows (`id`, `tag_slugs`) of the function
 * `scheduled_blogs` (migration `AddScheduledBlogs`). The function plans its own query, so a statement that reads it
 * keeps its generic plan at any table size (docs/performance.md, "Scheduled blogs behind a function").
 */
export const scheduledBlogs = (now: string): string => `"scheduled_blogs"(${now})`;

/**
 * SQL: the blog `alias` is scheduled at the instant `now` (a parameter). The upper bound, true of every blog, makes the
 * condition a range to the planner, which then estimates 0.5 % of the rows rather than a third for an unknown `now`
 * (docs/performance.md, "Scheduled blogs behind a function"). Counts of scheduled blogs read {@link scheduledBlogs} instead.
 */
export const scheduledSql = (now: string, alias = ''): string =>
  `${alias}"published_at" > ${now} AND ${alias}"published_at" < 'infinity'`;

/**
 * Stores tags not yet known, `slugs[i]` named `names[i]` (`text[]` parameters), when `condition` holds; a known slug
 * keeps its first name. In slug order, so that two writers adding the same new tags never wait on each other in turn.
 */
export const tagUpsert = (slugs: string, names: string, condition = 'true'): string =>
  `INSERT INTO "tags" ("slug", "name") SELECT * FROM unnest(${slugs}::text[], ${names}::text[]) WHERE ${condition} ` +
  `ORDER BY 1 ON CONFLICT ("slug") DO NOTHING`;

/**
 * `text[]`: the names of the tags `slugs` in order, as a statement that may have stored some of them itself sees
 * them: a tag known before by its first name, a new one by its name in `names`.
 */
export const givenTagNames = (slugs: string, names: string): string =>
  `ARRAY(SELECT coalesce(t."name", g."name") FROM unnest(${slugs}::text[], ${names}::text[]) WITH ORDINALITY ` +
  `AS g("slug", "name", "i") LEFT JOIN "tags" t ON t."slug" = g."slug" ORDER BY g."i")`;

/** `text[]`: the names of the tags `tagSlugs` (a blog's `"tag_slugs"`) lists, in its order. */
export const tagNames = (tagSlugs: string): string =>
  `ARRAY(SELECT t."name" FROM unnest(${tagSlugs}) WITH ORDINALITY AS u("slug", "i") JOIN "tags" t ON t."slug" = u."slug" ORDER BY u."i")`;

/**
 * `int8`: the live blogs with the tag `slug` at the instant `now` (`published_at` ≤ now): its counter, less its
 * scheduled blogs (`published_at` > now, {@link scheduledBlogs}).
 */
export const liveTagCount = (slug: string, now: string): string =>
  `((SELECT coalesce(sum(c."n"), 0) FROM "tag_counts" c WHERE c."tag_slug" = ${slug})
    - (SELECT count(*) FROM ${scheduledBlogs(now)} b WHERE ${slug} = ANY(b."tag_slugs")))::int8`;

/**
 * FROM-clause SQL: `"blogs"` joined to their rows of `blog_tags` (`bt`), whose primary key (`tag_slug`,
 * `blog_created_at`, `blog_id`) reads one tag's blogs in list order without reading its others.
 */
export const TAGGED_BLOGS = `"blog_tags" bt JOIN "blogs" ON "blogs"."id" = bt."blog_id"`;

/** SQL: the row of {@link TAGGED_BLOGS} is of the tag `slug`; its blogs in list order are `bt."blog_created_at"`, `bt."blog_id"`. */
export const taggedSql = (slug: string): string => `bt."tag_slug" = ${slug}`;
