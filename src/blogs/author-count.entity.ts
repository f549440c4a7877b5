import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A shard of one author's counter of blogs that are not drafts, kept by triggers (migration `CountBlogsByAuthor`). */
@Entity({ name: 'author_counts' })
export class AuthorCount {
  /** The blogs' `author`, as stored. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_author_counts' })
  author!: string;

  /** 0 … 15, chosen by the writer's backend pid. */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'PK_author_counts' })
  shard!: number;

  /** int8; one shard may go below zero after deletes. */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;
}
