import type { QueryRunner } from 'typeorm';
import { useTestApp } from './support/test-app';

// record_blog_row_event (migration RecordBlogRowEvents), the events trigger of any table of rows that belong to a blog,
// on a table of the spec's own: each case runs in a transaction rolled back after, so no event of it reaches the feed.

interface Written {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

describe('record_blog_row_event (e2e)', () => {
  const t = useTestApp();

  /** `work` on a table `notes` (a blog's, with a column `secret`) whose events trigger takes `args`, rolled back. */
  const withNotes = async <T>(args: string, work: (runner: QueryRunner, blogId: number) => Promise<T>): Promise<T> => {
    const runner = t.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`CREATE TABLE "notes" ("id" serial PRIMARY KEY,
        "blog_id" integer NOT NULL REFERENCES "blogs"("id") ON DELETE CASCADE, "text" text NOT NULL,
        "secret" text NOT NULL, "created_at" timestamptz(3) NOT NULL DEFAULT '2026-11-29T07:30:00.123Z')`);
      await runner.query(`CREATE TRIGGER "notes_record_event" AFTER INSERT OR DELETE ON "notes"
        FOR EACH ROW EXECUTE FUNCTION "record_blog_row_event"(${args})`);
      const [{ id }] = (await runner.query(`INSERT INTO "blogs" ("title", "content", "author", "owner_sub")
        VALUES ('t', 'c', 'a', 'x') RETURNING "id"`)) as [{ id: number }];
      return await work(runner, id);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  };

  /** The note events the transaction wrote, in order. */
  const written = async (runner: QueryRunner): Promise<Written[]> =>
    (await runner.query(
      `SELECT "type", "data" FROM "event_outbox" WHERE "type" LIKE 'note.%' ORDER BY "seq"`,
    )) as Written[];

  /** Inserts a note on `blogId`: its id. */
  const insert = async (runner: QueryRunner, blogId: number): Promise<number> => {
    const [{ id }] = (await runner.query(
      `INSERT INTO "notes" ("blog_id", "text", "secret") VALUES ($1, 'hi', 's3') RETURNING "id"`,
      [blogId],
    )) as [{ id: number }];
    return id;
  };

  it.each([
    ['no column', `'note'`, ['blog_id', 'created_at', 'id', 'secret', 'text']],
    ['one column', `'note', 'secret'`, ['blog_id', 'created_at', 'id', 'text']],
    ['two columns', `'note', 'secret', 'text'`, ['blog_id', 'created_at', 'id']],
  ])('with %s left out, an insert writes note.created with the other columns by name', async (_name, args, keys) => {
    const events = await withNotes(args, async (runner, blogId) => {
      const id = await insert(runner, blogId);
      return { id, blogId, events: await written(runner) };
    });

    expect(events.events.map(({ type }) => type)).toEqual(['note.created']);
    const [{ data }] = events.events;
    expect(Object.keys(data).sort()).toEqual(keys);
    expect(data).toMatchObject({ id: events.id, blog_id: events.blogId });
    if (keys.includes('created_at')) expect(data.created_at).toBe('2026-11-29T07:30:00.123+00:00');
  });

  it('a delete writes note.deleted with {id, blog_id}; a blog deleted with its notes writes none of theirs', async () => {
    const { id, blogId, events } = await withNotes(`'note', 'secret'`, async (runner, blogId) => {
      const deleted = await insert(runner, blogId);
      await runner.query(`DELETE FROM "notes" WHERE "id" = $1`, [deleted]);
      await insert(runner, blogId);
      await runner.query(`DELETE FROM "blogs" WHERE "id" = $1`, [blogId]);
      return { id: deleted, blogId, events: await written(runner) };
    });

    expect(events.map(({ type }) => type)).toEqual(['note.created', 'note.deleted', 'note.created']);
    expect(events[1].data).toEqual({ id, blog_id: blogId });
  });
});
