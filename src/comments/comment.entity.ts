import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Blog } from '../blogs/blog.entity';

/**
 * A comment on a blog; never edited, deleted with its blog. `createdAt` is `timestamptz(3)` from the database clock;
 * a blog's comments are listed by (`createdAt`, `id`), the index's order.
 */
@Entity({ name: 'comments' })
@Index('IDX_comments_blog_id_created_at_id', ['blogId', 'createdAt', 'id'])
export class Comment {
  /** Positive int4, ascending in creation order. */
  @PrimaryGeneratedColumn({ type: 'integer', primaryKeyConstraintName: 'PK_comments' })
  id!: number;

  @Column({ name: 'blog_id', type: 'integer' })
  blogId!: number;

  @Column({ type: 'text' })
  author!: string;

  @Column({ type: 'text' })
  body!: string;

  /** JWT `sub` (RFC 7519 §4.1.2) of the commenter; never sent to clients. */
  @Column({ name: 'owner_sub', type: 'text' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  @ManyToOne(() => Blog, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'blog_id', foreignKeyConstraintName: 'FK_comments_blog_id' })
  blog?: Blog;
}
