import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Blog } from '../blogs/blog.entity';

/** The number of one blog's comments, kept by triggers on `comments` (migration `CreateComments`); none before the first. */
@Entity({ name: 'comment_counts' })
export class CommentCount {
  @PrimaryColumn({ name: 'blog_id', type: 'integer', primaryKeyConstraintName: 'PK_comment_counts' })
  blogId!: number;

  /** int8. */
  @Column({ name: 'n', type: 'bigint', default: 0 })
  count!: string;

  @ManyToOne(() => Blog, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'blog_id', foreignKeyConstraintName: 'FK_comment_counts_blog_id' })
  blog?: Blog;
}
