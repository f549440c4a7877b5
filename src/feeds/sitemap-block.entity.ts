import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Ids per block of `sitemap_blocks`: block `b` holds the blogs with ids `b * 1000 + 1` to `(b + 1) * 1000`. */
export const SITEMAP_BLOCK_IDS = 1000;

/**
 * What the sitemap index reads instead of the blogs: per block of {@link SITEMAP_BLOCK_IDS} ids and shard, blogs that
 * are not drafts and the newest `updatedAt` among them, kept by triggers (migrations `AddSitemapBlocks`,
 * `FoldSitemapBlocks`); a block's figures are the sum of its rows' `n` and `stale` and the newest of their `updatedAt`.
 */
@Entity({ name: 'sitemap_blocks' })
export class SitemapBlock {
  /** `(id - 1) / 1000` of its blogs: a sitemap file of a multiple of 1000 ids holds whole blocks. */
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'PK_sitemap_blocks' })
  block!: number;

  /** 0 … 15, the writer's backend pid modulo 16, so that concurrent creates rarely wait on one row. */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_sitemap_blocks' })
  shard!: number;

  /** Blogs of the block that are not drafts (live or scheduled), as this shard counted them. */
  @Column({ name: 'n', type: 'integer', default: 0 })
  count!: number;

  /**
   * Removals (deletes, blogs made drafts again) this row counted since the block was last folded: while the block's sum
   * is above 0, its newest `updated_at` may be a removed blog's, and readers take it from the block's blogs.
   */
  @Column({ name: 'stale', type: 'integer', default: 0 })
  stale!: number;

  /** The newest `updated_at` of those blogs, or newer while the block is stale; null when there are none. */
  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, nullable: true })
  updatedAt!: Date | null;
}
