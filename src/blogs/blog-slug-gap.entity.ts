import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A range of free suffixes `lowest` … `highest` of a base, kept by triggers (migration `AddBlogSlugGaps`). */
@Entity({ name: 'blog_slug_gaps' })
export class BlogSlugGap {
  /** The slug the suffixes `-n` follow. */
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_blog_slug_gaps' })
  base!: string;

  /** int8; the lowest free suffix of the gap, at least 2. */
  @Column({ type: 'bigint' })
  lowest!: string;

  /** int8; the highest free suffix of the gap (the last gap of a base is open: int8's maximum). */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_blog_slug_gaps' })
  highest!: string;
}
