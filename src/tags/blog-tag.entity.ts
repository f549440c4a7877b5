import { Entity, PrimaryColumn } from 'typeorm';

/**
 * A blog's tag, kept by triggers on `blogs` (migration `IndexBlogsByTag`): with its primary key in list order, a tag's
 * newest blogs are read in order, as `IDX_blogs_created_at_id` serves the plain list (docs/architecture.md, "Tags").
 */
@Entity({ name: 'blog_tags' })
export class BlogTag {
  @PrimaryColumn({ name: 'tag_slug', type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_blog_tags' })
  tagSlug!: string;

  /** The blog's `created_at`, which never changes. */
  @PrimaryColumn({
    name: 'blog_created_at',
    type: 'timestamptz',
    precision: 3,
    primaryKeyConstraintName: 'PK_blog_tags',
  })
  blogCreatedAt!: Date;

  @PrimaryColumn({ name: 'blog_id', type: 'integer', primaryKeyConstraintName: 'PK_blog_tags' })
  blogId!: number;
}
