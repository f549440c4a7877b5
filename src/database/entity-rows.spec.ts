import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { rowMapper, selectedColumns } from './entity-rows';

/** An entity of this spec's own: a note pinned to a topic, with its writer and the instant it was written. */
@Entity('notes')
class Note {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'topic_id', type: 'integer' })
  topicId!: number;

  @Column({ type: 'text' })
  text!: string;

  @Column({ name: 'writer_sub', type: 'text' })
  writerSub!: string;

  @CreateDateColumn({ name: 'written_at', type: 'timestamptz', precision: 3 })
  writtenAt!: Date;
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
  const noteOf = rowMapper(Note);
  const row = { id: 41, topic_id: 7, text: 'Call Bob.', writer_sub: 'bob', topic_title: 'Errands' };

  it('makes the entity from the row by column name, and takes nothing else', () => {
    const writtenAt = new Date('2026-11-28T09:00:00.000Z');
    expect(noteOf({ ...row, written_at: writtenAt })).toStrictEqual(
      Object.assign(new Note(), { id: 41, topicId: 7, text: 'Call Bob.', writerSub: 'bob', writtenAt }),
    );
  });

  it.each([
    ['text (a JSON payload)', '2026-11-28T09:00:00.000Z', new Date('2026-11-28T09:00:00.000Z')],
    ['null', null, null],
    ['absent', undefined, undefined],
  ])('reads a timestamp given as %s', (_name, value, expected) => {
    expect(noteOf({ ...row, written_at: value }).writtenAt).toEqual(expected);
  });

  it('leaves text that is not a timestamp column as it is', () => {
    expect(noteOf({ ...row, text: '2026-11-28T09:00:00.000Z' }).text).toBe('2026-11-28T09:00:00.000Z');
  });
});

describe('selectedColumns', () => {
  it.each([
    [Note, 'n', 'n."id", n."topic_id", n."text", n."writer_sub", n."written_at"'],
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
