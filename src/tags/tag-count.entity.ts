import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Tag } from './tag.entity';

/**
 * One tag's counter, kept by triggers on `blogs` (migrations `CreateTags`, `FoldTagCountShards`): the number of blogs
 * with the tag that are not drafts.
 */
@Entity({ name: 'tag_counts' })
// (n DESC, tag_slug): the migration alone keeps it, as TypeORM cannot describe a descending column.
@Index('IDX_tag_counts_n_tag_slug', { synchronize: false })
export class TagCount {
  @PrimaryColumn({ name: 'tag_slug', type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_tag_counts' })
  tagSlug!: string;

  /** int8. */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;

  @ManyToOne(() => Tag, { createForeignKeyConstraints: true })
  @JoinColumn({ name: 'tag_slug', foreignKeyConstraintName: 'FK_tag_counts_tag_slug' })
  tag?: Tag;
}
