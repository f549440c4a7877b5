import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Tag } from './tag.entity';

/**
 * A shard of one tag's counter, kept by triggers on `blogs` (migration `CreateTags`): the sum of `n` over the shards
 * is the number of blogs with the tag that are not drafts.
 */
@Entity({ name: 'tag_counts' })
export class TagCount {
  @PrimaryColumn({ name: 'tag_slug', type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_tag_counts' })
  tagSlug!: string;

  /** 0 … TAG_COUNT_SHARDS - 1, chosen by the writer's backend pid. */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_tag_counts' })
  shard!: number;

  /** int8; one shard may go below zero after deletes. */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;

  @ManyToOne(() => Tag, { createForeignKeyConstraints: true })
  @JoinColumn({ name: 'tag_slug', foreignKeyConstraintName: 'FK_tag_counts_tag_slug' })
  tag?: Tag;
}
