import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** The text of a blog that full-text search matches: `title` and `content`, split into words by the `simple` configuration. */
const BLOG_SEARCH_VECTOR = `to_tsvector('simple'::regconfig, "title" || ' ' || "content")`;

/**
 * A blog entry. Timestamps are `timestamptz(3)` (the API's millisecond precision) from the database clock.
 * Each list order has an index ending in `id`, its tie-breaker (docs/architecture.md, "The list queries").
 */
@Entity({ name: 'blogs' })
// (created_at, id) and (author, created_at, id), each INCLUDE (published_at): the migrations alone keep them, as
// TypeORM cannot describe INCLUDE.
@Index('IDX_blogs_created_at_id', { synchronize: false })
@Index('IDX_blogs_updated_at_id', ['updatedAt', 'id'])
@Index('IDX_blogs_author_created_at_id', { synchronize: false })
@Index('IDX_blogs_author_updated_at_id', ['author', 'updatedAt', 'id'])
// Title orders compare code points ("title" COLLATE "C"), an expression TypeORM cannot describe: the migration alone keeps them.
@Index('IDX_blogs_title_c_id', { synchronize: false })
@Index('IDX_blogs_author_title_c_id', { synchronize: false })
@Index('IDX_blogs_search_vector', ['searchVector'], { type: 'gin' })
@Index('IDX_blogs_slug', ['slug'], { unique: true })
@Index('IDX_blogs_published_at_id', ['publishedAt', 'id'])
@Index('IDX_blogs_tag_slugs', ['tagSlugs'], { type: 'gin' })
@Index('IDX_blogs_owner_sub_created_at_id', ['ownerSub', 'createdAt', 'id'])
export class Blog {
  /** Positive int4, ascending in creation order. */
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'text' })
  author!: string;

  /** JWT `sub` (RFC 7519 §4.1.2) of the creator; never sent to clients. */
  @Column({ name: 'owner_sub', type: 'text' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  /** 1 on create, incremented by every update; the entity tag is `"<id>-<version>"`. */
  @Column({ type: 'integer', default: 1 })
  version!: number;

  /** When the blog is, was or will be published; null for a draft. The status follows from it and the clock. */
  @Column({ name: 'published_at', type: 'timestamptz', precision: 3, nullable: true })
  publishedAt!: Date | null;

  /** The blog's URL name, unique among all blogs; its earlier ones are in `blog_slugs`. */
  @Column({ type: 'text', collation: 'C' })
  slug!: string;

  /** The slugs of its tags, in the order given; the tags' names are in `tags`. */
  @Column({ name: 'tag_slugs', type: 'text', array: true, default: () => "'{}'" })
  tagSlugs!: string[];

  /** The names of its tags in the order of {@link tagSlugs}, read with the blog from `tags`; not a column. */
  tags!: string[];

  /** The words of {@link BLOG_SEARCH_VECTOR}, kept by the database; only queries read it, never clients. */
  @Column({
    name: 'search_vector',
    type: 'tsvector',
    generatedType: 'STORED',
    asExpression: BLOG_SEARCH_VECTOR,
    select: false,
    insert: false,
    update: false,
  })
  searchVector?: string;
}
