import { MigrationInterface, QueryRunner } from 'typeorm';
import { AddBlogSlugGaps1795401450000 } from './1795401450000-AddBlogSlugGaps';

/** A freed slug `base-n` (`n` without leading zeros, at most 18 digits): the base and `n` as `regexp_match` parts. */
const SUFFIXED = `'^(.+)-([1-9][0-9]{0,17})$'`;

/** Longest base whose suffixes (at most 18 digits) never cut it: `base-n` stays within 200 characters. */
const BASE_MAX_LENGTH = 181;

/**
 * The advisory lock of a base (`pg_advisory_xact_lock(BASE_LOCK_CLASS, hashtext(base))`): held shared by each delete
 * of one of its suffixes, and exclusive by the create that inserts the base's row, so that no delete misses that row.
 */
const BASE_LOCK_CLASS = 1795401900;

/** SQL: whether the slug `slug` is no blog's, now or before. */
const freeSlugSql = (slug: string): string =>
  `NOT EXISTS (SELECT FROM "blogs" h WHERE h."slug" = ${slug}) AND NOT EXISTS (SELECT FROM "blog_slugs" h WHERE h."slug" = ${slug})`;

/**
 * The lowest free suffix of a base without a lock that distinct titles share (docs/architecture.md, "Publishing and
 * slugs"): `blog_slug_bases` holds, per base a create needed a suffix of, `next` (no row: 2), and every free suffix
 * below it is a row of `blog_slug_freed`, which the deletes of slugs `base-n` append to. Creates of a free slug and
 * deletes write no shared row; the creates of one base that need a suffix lock that base's row to commit. Replaces
 * `blog_slug_gaps`, whose triggers locked the base's range on every create and delete of a slug `base-n`.
 */
export class ReplaceBlogSlugGaps1795401900000 implements MigrationInterface {
  name = 'ReplaceBlogSlugGaps1795401900000';

  /** The first key of a base's advisory lock (the second is `hashtext(base)`). */
  static readonly baseLockClass = BASE_LOCK_CLASS;

  /** Longest base whose suffixes never cut it. */
  static readonly baseMaxLength = BASE_MAX_LENGTH;

  /** SQL: whether the slug `slug` is no blog's, now or before. */
  static readonly freeSlugSql = freeSlugSql;

  /**
   * SQL: the function `blog_slug_suffix(base)`, the lowest free `base-n` (null: a base too long to keep whole): the
   * lowest free of the freed suffixes below `next`, else the first free from `next` on, which moves `next` past it,
   * under the base's row lock to commit. Each statement sees the commits before it, so creates that queued on the
   * base's row take the next suffix without a retry; a freed row is removed before its slug is looked at, so a slug
   * freed meanwhile keeps its own row.
   */
  static readonly suffixFunction = `
    CREATE OR REPLACE FUNCTION "blog_slug_suffix"("wanted" text) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      lowest int8;
      n int8;
    BEGIN
      IF length("wanted") > ${BASE_MAX_LENGTH} THEN RETURN NULL; END IF;
      LOOP
        SELECT b."next" INTO lowest FROM "blog_slug_bases" b WHERE b."base" = "wanted" FOR UPDATE;
        EXIT WHEN FOUND;
        PERFORM pg_advisory_xact_lock(${BASE_LOCK_CLASS}, hashtext("wanted"));
        INSERT INTO "blog_slug_bases" ("base", "next") VALUES ("wanted", 2) ON CONFLICT DO NOTHING;
      END LOOP;
      LOOP
        WITH "taken" AS (DELETE FROM "blog_slug_freed" f WHERE f."base" = "wanted" AND f."n" = (
            SELECT min(g."n") FROM "blog_slug_freed" g WHERE g."base" = "wanted" AND g."n" < lowest)
          RETURNING f."n")
        SELECT min(t."n") INTO n FROM "taken" t;
        EXIT WHEN n IS NULL;
        IF ${freeSlugSql(`"wanted" || '-' || n`)} THEN
          RETURN "wanted" || '-' || n;
        END IF;
      END LOOP;
      n := lowest;
      WHILE NOT (${freeSlugSql(`"wanted" || '-' || n`)}) LOOP
        n := n + 1;
      END LOOP;
      UPDATE "blog_slug_bases" b SET "next" = n + 1 WHERE b."base" = "wanted";
      RETURN "wanted" || '-' || n;
    END $$`;

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no slug changes between the backfill and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs", "blog_slugs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "blog_slug_bases" ("base" text COLLATE "C" NOT NULL, "next" bigint NOT NULL, CONSTRAINT "PK_blog_slug_bases" PRIMARY KEY ("base"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "blog_slug_freed" ("base" text COLLATE "C" NOT NULL, "n" bigint NOT NULL, "transaction_id" bigint NOT NULL DEFAULT txid_current(), CONSTRAINT "PK_blog_slug_freed" PRIMARY KEY ("base", "n", "transaction_id"))`,
    );
    // The gaps name every free suffix: each base's lowest one is where its search starts (2 needs no row).
    await queryRunner.query(
      `INSERT INTO "blog_slug_bases" ("base", "next")
        SELECT "base", min("lowest") FROM "blog_slug_gaps" GROUP BY "base" HAVING min("lowest") > 2`,
    );
    await new AddBlogSlugGaps1795401450000().down(queryRunner);
    await queryRunner.query(ReplaceBlogSlugGaps1795401900000.suffixFunction);
    // Appends a freed `base-n` (n ≥ 2) of a base that has a row (without one, every suffix is at or above 2): a row of
    // its own per transaction, so no writer waits for another's. The shared lock waits only for a create inserting the
    // base's row, whose search may have passed over this slug before it was freed.
    await queryRunner.query(`
      CREATE FUNCTION "blog_slugs_freed"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        m text[] := regexp_match(OLD."slug", ${SUFFIXED});
      BEGIN
        IF m[2] <> '1' THEN
          PERFORM pg_advisory_xact_lock_shared(${BASE_LOCK_CLASS}, hashtext(m[1]));
          IF EXISTS (SELECT FROM "blog_slug_bases" b WHERE b."base" = m[1]) THEN
            INSERT INTO "blog_slug_freed" ("base", "n") VALUES (m[1], m[2]::int8) ON CONFLICT DO NOTHING;
          END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blog_slugs_freed_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "blog_slug_bases";
        DELETE FROM "blog_slug_freed";
        RETURN NULL;
      END $$`);
    // Row-level, with a WHEN that PostgreSQL evaluates before calling the function: a slug without a suffix pays
    // nothing. A slug a blog leaves goes to blog_slugs still held, and a slug taken needs no row: creates pass over
    // held suffixes.
    for (const table of ['blogs', 'blog_slugs']) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_slug_freed" AFTER DELETE ON "${table}" FOR EACH ROW
          WHEN (OLD."slug" ~ ${SUFFIXED}) EXECUTE FUNCTION "blog_slugs_freed"()`,
      );
      await queryRunner.query(
        `CREATE TRIGGER "${table}_slugs_truncated" AFTER TRUNCATE ON "${table}"
          FOR EACH STATEMENT EXECUTE FUNCTION "blog_slugs_freed_truncated"()`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['blogs', 'blog_slugs']) {
      await queryRunner.query(`DROP TRIGGER "${table}_slugs_truncated" ON "${table}"`);
      await queryRunner.query(`DROP TRIGGER "${table}_slug_freed" ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION "blog_slugs_freed_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blog_slugs_freed"()`);
    await queryRunner.query(`DROP FUNCTION "blog_slug_suffix"(text)`);
    await queryRunner.query(`DROP TABLE "blog_slug_freed"`);
    await queryRunner.query(`DROP TABLE "blog_slug_bases"`);
    // Rebuilds the gaps from the slugs held.
    await new AddBlogSlugGaps1795401450000().up(queryRunner);
  }
}
