import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row of the blog counter: the number of blogs is the sum of `n` over all rows. Written only
 * by the triggers of migration `CountBlogs1795400000000` (in the transaction of each insert), read
 * by the list for its exact `total` without scanning `blogs`.
 */
@Entity({ name: 'blog_counts' })
export class BlogCount {
  /** 0 … BLOG_COUNT_SHARDS - 1: a writing connection adds to the row of its backend pid. */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_blog_counts' })
  shard!: number;

  /** Blogs counted in this row (int8; may go below zero on one row after deletes). */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;
}
