import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Blog } from '../blogs/blog.entity';

/**
 * One revision of a blog: its text after a write that changed `title`, `content`, `author` or tags, kept by the
 * triggers of migration `AddBlogRevisions`; deleted with its blog, or once `REVISIONS_KEPT` newer ones exist.
 */
@Entity({ name: 'blog_revisions' })
@Index('IDX_blog_revisions_blog_id_seq', ['blogId', 'seq'], { unique: true })
export class BlogRevision {
  /** The blog it is a revision of. */
  @PrimaryColumn({ name: 'blog_id', type: 'integer', primaryKeyConstraintName: 'PK_blog_revisions' }) blogId!: number;

  /** The blog's version after the write (the one its entity tag names). */
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'PK_blog_revisions' }) version!: number;

  /** 1, 2, … per blog without gaps, in write order: what the prune counts by. */
  @Column({ type: 'integer' }) seq!: number;

  /** The blog's `title`, `content` and `author` after the write. */
  @Column({ type: 'text' }) title!: string;
  @Column({ type: 'text' }) content!: string;
  @Column({ type: 'text' }) author!: string;

  /** The slugs of its tags, in the order given; their names are in `tags`. */
  @Column({ name: 'tag_slugs', type: 'text', array: true })
  tagSlugs!: string[];

  /** The write's time (the blog's `createdAt` or `updatedAt` after it). */
  @Column({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;

  /** The properties that differ from the revision before (all four for the first). */
  @Column({ type: 'text', array: true })
  changed!: string[];

  @ManyToOne(() => Blog, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'blog_id', foreignKeyConstraintName: 'FK_blog_revisions_blog_id' })
  blog?: Blog;
}
