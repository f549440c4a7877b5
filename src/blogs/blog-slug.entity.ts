import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Blog } from './blog.entity';

/** An earlier slug of a blog, which redirects to its current one (kept by a trigger); freed with the blog. */
@Entity({ name: 'blog_slugs' })
export class BlogSlug {
  @PrimaryColumn({ type: 'text', collation: 'C', primaryKeyConstraintName: 'PK_blog_slugs' })
  slug!: string;

  @Index('IDX_blog_slugs_blog_id')
  @Column({ name: 'blog_id', type: 'integer' })
  blogId!: number;

  @ManyToOne(() => Blog, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'blog_id', foreignKeyConstraintName: 'FK_blog_slugs_blog_id' })
  blog?: Blog;
}
