// `--textbook`: how bench/bench.mjs runs the textbook app (bench/textbook/main.ts) beside the service. It reads and
// writes its own table, `textbook_blogs` (TypeORM's `synchronize` makes it), which mirrorBlogs fills with the
// service's blogs before each of its runs, so it reads, updates and deletes the ids the bench hands every server.

/** The textbook app's command line, from the repository's root (ts-node compiles it as it loads). */
export const TEXTBOOK_ARGS = ['-r', 'ts-node/register/transpile-only', 'bench/textbook/main.ts'];

/** The scenarios the textbook app serves: one blog by id and the writes (its creates make no slugs). */
export const TEXTBOOK_SCENARIOS = ['read-one', 'create', 'create-same-title', 'update', 'delete'];

/** Makes `textbook_blogs` a copy of the blogs' rows as they are now, its id sequence past the last of them. */
export async function mirrorBlogs(db) {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query('TRUNCATE textbook_blogs');
    await client.query(
      `INSERT INTO textbook_blogs (id, title, content, author, owner_sub, created_at, updated_at)
       SELECT id, title, content, author, owner_sub, created_at, updated_at FROM blogs`,
    );
    await client.query(
      `SELECT setval(pg_get_serial_sequence('textbook_blogs', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM blogs))`,
    );
    await client.query('COMMIT');
    await client.query('ANALYZE textbook_blogs');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
