import { Entity, PrimaryColumn } from 'typeorm';

/**
 * A suffix `n` of `base` that a transaction freed, appended by triggers (migration `ReplaceBlogSlugGaps`) and taken or
 * dropped by the next create of the base that needs a suffix; it may be held again meanwhile.
 */
@Entity({ name: 'blog_slug_freed' })
export class BlogSlugFreed {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_blog_slug_freed' })
  base!: string;

  /** int8; at least 2. */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_blog_slug_freed' })
  n!: string;

  /** int8; the freeing transaction's `txid_current()`, so that concurrent frees of one slug never conflict. */
  @PrimaryColumn({
    name: 'transaction_id',
    type: 'bigint',
    primaryKeyConstraintName: 'PK_blog_slug_freed',
    default: () => 'txid_current()',
  })
  transactionId!: string;
}
