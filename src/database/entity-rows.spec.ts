import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { rowMapper, selectedColumns } from './entity-rows';

/** An entity of this spec's own, declared as a feature's would be. */
@Entity('notes')
class Note {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'blog_id', type: 'integer' })
  blogId!: number;

  @Column({ type: 'text' })
  author!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'owner_sub', type: 'text' })
  ownerSub!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt!: Date;
}

/** An entity with a column a plain read leaves out, a last-change instant and a timestamp by type. */
@Entity('drafts')
class Draft {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'text' })
  title!: string;

  @Column({ name: 'search_vector', type: 'tsvector', select: false })
  searchVector!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;
}

describe('rowMapper', () => {
  const commentOf = rowMapper(Note);
  const row = { id: 41, blog_id: 7, author: 'Bob', body: 'Nice post.', owner_sub: 'bob', blog_owner_sub: 'alice' };

  it('makes the entity from the row by column name, and takes nothing else', () => {
    const createdAt = new Date('2026-11-28T09:00:00.000Z');
    const comment = commentOf({ ...row, created_at: createdAt });
    expect(comment).toStrictEqual(
      Object.assign(new Note(), {
        id: 41,
        blogId: 7,
        author: 'Bob',
        body: 'Nice post.',
        ownerSub: 'bob',
        createdAt,
      }),
    );
  });

  it.each([
    ['text (a JSON payload)', '2026-11-28T09:00:00.000Z', new Date('2026-11-28T09:00:00.000Z')],
    ['null', null, null],
    ['absent', undefined, undefined],
  ])('reads a timestamp given as %s', (_name, value, expected) => {
    expect(commentOf({ ...row, created_at: value }).createdAt).toEqual(expected);
  });

  it('leaves text that is not a timestamp column as it is', () => {
    expect(commentOf({ ...row, body: '2026-11-28T09:00:00.000Z' }).body).toBe('2026-11-28T09:00:00.000Z');
  });
});

describe('selectedColumns', () => {
  it.each([
    [Note, 'c', 'c."id", c."blog_id", c."author", c."body", c."owner_sub", c."created_at"'],
    [Draft, 'b', 'b."id", b."title", b."updated_at", b."published_at"'],
  ])('lists the columns of %p that a read selects, in declaration order', (entity, alias, expected) => {
    expect(selectedColumns(entity, alias)).toBe(expected);
  });
});

describe('rowMapper of an entity with instants of every kind', () => {
  it.each([
    ['updatedAt', 'updated_at'],
    ['publishedAt', 'published_at'],
  ] as const)('%s given as text becomes a Date', (property, column) => {
    const draft = rowMapper(Draft)({ id: 1, title: 'T', [column]: '2026-11-28T09:00:00.000Z' });
    expect(draft[property]).toEqual(new Date('2026-11-28T09:00:00.000Z'));
  });
});
