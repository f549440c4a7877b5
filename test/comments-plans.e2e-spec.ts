import type { DataSource } from 'typeorm';
import { BlogVisibility } from '../src/blogs/blog-visibility';
import { StatementRunner } from '../src/database/statement-runner';
import type { CommentListPosition } from '../src/comments/comment-list-cursor';
import { CommentsRepository } from '../src/comments/comments.repository';
import { bulkSeed } from './support/bulk-seed';
import { useRepositoryModule } from './support/repository-module';
import { RecordedStatement, StatementRecorder } from './support/statement-recorder';

// The page statements of a blog's comments over one blog's 10,000 (docs/performance.md, "A blog's first comments"):
// the first page and a cursor's read their rows through the index in page order and stop there, and PostgreSQL keeps
// their generic plans.

/** A plan node of `EXPLAIN (FORMAT JSON)`, with the fields read here. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly Plans?: PlanNode[];
}

/** Every node of `plan`, depth first. */
const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

describe("a blog's comment pages and their plans (e2e)", () => {
  const recorder = new StatementRecorder();
  const db = useRepositoryModule(recorder);
  let dataSource: DataSource;
  let comments: CommentsRepository;
  let blogId: number;

  beforeAll(async () => {
    dataSource = db.dataSource;
    comments = new CommentsRepository(db.moduleRef.get(StatementRunner), new BlogVisibility());
    const blogs = await dataSource.query<{ id: number }[]>(
      `INSERT INTO blogs (title, content, author, owner_sub, published_at)
       SELECT 'blog ' || n, 'text', 'author', 'owner', now() - interval '1 day' FROM generate_series(1, 5) n RETURNING id`,
    );
    blogId = blogs[0].id;
    for (const { id } of blogs) {
      await bulkSeed(
        dataSource,
        id === blogId ? 10_000 : 2_000,
        `INSERT INTO comments (blog_id, author, body, owner_sub, created_at)
         SELECT $3, 'reader', 'comment ' || n, 'reader', timestamptz '2025-01-01T00:00:00Z' + n * interval '1 second'
         FROM generate_series($1::int, $2::int) n`,
        [id],
      );
    }
    // As autovacuum leaves them.
    await dataSource.query('VACUUM ANALYZE comments, comment_counts, blogs');
  });

  /** The 5,000th of the blog's comments, where the cursor's page starts. */
  async function middle(): Promise<CommentListPosition> {
    const [row] = await dataSource.query<{ id: number; created_at: Date }[]>(
      `SELECT "id", "created_at" FROM "comments" WHERE "blog_id" = $1 ORDER BY "created_at", "id" OFFSET 4999 LIMIT 1`,
      [blogId],
    );
    return { id: row.id, value: new Date(row.created_at) };
  }

  /** The statement `findPage` sends for the page of `limit` (the first, or after `after`). */
  async function pageStatement(limit: number, after?: CommentListPosition): Promise<RecordedStatement> {
    recorder.statements.length = 0;
    const page = await comments.findPage(blogId, { limit, offset: 0, after });
    expect([page.items.length, page.total, page.more]).toEqual([limit, 10_000, true]);
    expect(recorder.statements).toHaveLength(1);
    return recorder.statements[0];
  }

  /** A parameter as an SQL literal, for EXECUTE. */
  const literal = (value: unknown): string => (value instanceof Date ? `'${value.toISOString()}'` : String(value));

  describe.each([
    ['the first page', false],
    ["a cursor's page", true],
  ])('%s', (_name, cursor) => {
    it.each([1, 10, 100])('of %d reads that many comments and one more, through the index', async (limit) => {
      const { sql, parameters } = await pageStatement(limit, cursor ? await middle() : undefined);
      expect(sql).not.toMatch(/OFFSET/);

      const rows = await dataSource.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        [...parameters],
      );

      const scans = nodesOf(rows[0]['QUERY PLAN'][0].Plan).filter((node) => node['Node Type'].includes('Scan'));
      const commentScans = scans.filter((node) => node['Index Name'] === 'IDX_comments_blog_id_created_at_id');
      expect(commentScans.map((node) => node['Actual Rows'])).toEqual([limit + 1]);
      expect(scans.filter((node) => node['Node Type'] === 'Seq Scan' && node['Actual Rows']! > 100)).toEqual([]);
    });

    it('keeps its generic plan: the page is not planned anew on each request', async () => {
      const { sql, parameters } = await pageStatement(10, cursor ? await middle() : undefined);
      const counts = await dataSource.transaction(async (manager) => {
        await manager.query(`PREPARE comments_page AS ${sql}`);
        for (let i = 0; i < 10; i += 1)
          await manager.query(`EXECUTE comments_page(${parameters.map(literal).join(', ')})`);
        const [row] = await manager.query<{ generic: number; custom: number }[]>(
          `SELECT generic_plans::int AS "generic", custom_plans::int AS "custom"
           FROM pg_prepared_statements WHERE name = 'comments_page'`,
        );
        await manager.query('DEALLOCATE comments_page');
        return row;
      });
      expect(counts).toEqual({ generic: 5, custom: 5 });
    });
  });
});
