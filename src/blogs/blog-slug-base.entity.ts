import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A base whose suffixes a create needed (migrations `ReplaceBlogSlugGaps`, `ReserveBlogSlugSuffixes`): each free
 * suffix below `next` is a {@link BlogSlugFreed}; a create moves `next` only when no other holds the row.
 */
@Entity({ name: 'blog_slug_bases' })
export class BlogSlugBase {
  /** The slug the suffixes `-n` follow. */
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_blog_slug_bases' })
  base!: string;

  /** int8; where the search for a free suffix goes on, at least 2. */
  @Column({ type: 'bigint' })
  next!: string;
}
