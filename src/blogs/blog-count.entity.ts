import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A shard of the blog counter kept by triggers (migration `CountBlogs`): the total is the sum of `n`. */
@Entity({ name: 'blog_counts' })
export class BlogCount {
  /** 0 … BLOG_COUNT_SHARDS - 1, chosen by the writer's backend pid. */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_blog_counts' })
  shard!: number;

  /** int8; one shard may go below zero after deletes. */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;
}
