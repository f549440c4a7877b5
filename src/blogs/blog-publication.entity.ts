import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A blog scheduled for a later instant, until the events job makes its `blog.published` (kept by a trigger). */
@Entity({ name: 'blog_publications' })
@Index('IDX_blog_publications_published_at', ['publishedAt'])
export class BlogPublication {
  @PrimaryColumn({ name: 'blog_id', type: 'integer', primaryKeyConstraintName: 'PK_blog_publications' })
  blogId!: number;

  @Column({ name: 'published_at', type: 'timestamptz', precision: 3 })
  publishedAt!: Date;
}
