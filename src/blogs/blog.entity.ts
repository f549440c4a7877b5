import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A blog entry: the one resource of the service (spec §2). The only place that knows the table's
 * columns.
 *
 * Timestamps are `timestamptz(3)` so the database keeps exactly the millisecond precision the API
 * shows, and are set by the database clock (one clock for every replica).
 */
@Entity({ name: 'blogs' })
@Index('IDX_blogs_created_at_id', ['createdAt', 'id'])
export class Blog {
  /** Positive int4 assigned by the database, ascending in creation order. */
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'text' })
  author!: string;

  /** JWT `sub` (RFC 7519 §4.1.2) of the creator; decides who may update. Never sent to clients. */
  @Column({ name: 'owner_sub', type: 'text' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  /**
   * 1 on create, incremented by every update (in the UPDATE statement itself). The blog's strong
   * entity tag is derived from id and version (see `blog-entity-tag.ts`), so conditional requests
   * (RFC 9110 §13) need no hashing of the body.
   */
  @Column({ type: 'integer', default: 1 })
  version!: number;
}
