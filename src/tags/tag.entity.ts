import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A tag, named by its slug; its `name` is the first one given for that slug. Never deleted. */
@Entity({ name: 'tags' })
export class Tag {
  /** Lower-case ASCII letters and digits joined by `-`, at most `TAG_SLUG_MAX_LENGTH`; compared by code point. */
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_tags' })
  slug!: string;

  @Column({ type: 'text' })
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;
}
