import type { DataSource } from 'typeorm';
import { tagUpsert } from '../../src/tags/tag-sql';

/** A blog to store with SQL: its slug, when it is published (null: a draft) and its tag slugs. */
export interface SeedBlog {
  readonly slug: string;
  readonly publishedAt: Date | null;
  readonly tags: readonly string[];
}

/**
 * Stores the tags `blogs` name (each named `names[slug]`, else its slug in upper case; a known tag keeps its name),
 * then `blogs` in one INSERT statement.
 */
export async function seedBlogs(
  dataSource: DataSource,
  blogs: readonly SeedBlog[],
  names: Readonly<Record<string, string>> = {},
): Promise<void> {
  const slugs = [...new Set(blogs.flatMap((blog) => blog.tags))];
  await dataSource.query(tagUpsert('$1', '$2'), [slugs, slugs.map((slug) => names[slug] ?? slug.toUpperCase())]);
  await dataSource.query(
    `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs)
     SELECT 't', 'c', 'a', 'x', r.slug, r.published_at, r.tag_slugs
     FROM json_to_recordset($1::json) AS r(slug text, published_at timestamptz, tag_slugs text[])`,
    [
      JSON.stringify(
        blogs.map(({ slug, publishedAt, tags }) => ({ slug, published_at: publishedAt, tag_slugs: tags })),
      ),
    ],
  );
}
