import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A blog entry. Timestamps are `timestamptz(3)` (the API's millisecond precision) from the database clock. */
@Entity({ name: 'blogs' })
@Index('IDX_blogs_created_at_id', ['createdAt', 'id'])
export class Blog {
  /** Positive int4, ascending in creation order. */
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'text' })
  author!: string;

  /** JWT `sub` (RFC 7519 §4.1.2) of the creator; never sent to clients. */
  @Column({ name: 'owner_sub', type: 'text' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  /** 1 on create, incremented by every update; the entity tag is `"<id>-<version>"`. */
  @Column({ type: 'integer', default: 1 })
  version!: number;
}
