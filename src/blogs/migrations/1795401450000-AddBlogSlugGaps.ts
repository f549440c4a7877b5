import { MigrationInterface, QueryRunner } from 'typeorm';

/** The highest suffix a gap reaches: the open end of the last gap of every base (suffixes have at most 18 digits). */
const OPEN_END = '9223372036854775807';

/** A held slug `base-n` (`n` ≥ 2 without leading zeros, at most 18 digits): the base and `n` as `regexp_match` parts. */
const SUFFIXED = `'^(.+)-([1-9][0-9]{0,17})$'`;

/**
 * The free suffixes of each base as gaps (docs/architecture.md, "Publishing and slugs"): `blog_slug_gaps` holds, for
 * every base of a held slug `base-n`, the ranges of `n` ≥ 2 that no blog holds as current or earlier slug, kept by
 * triggers on `blogs` and `blog_slugs`, so that the lowest free suffix is the first gap, one index lookup.
 */
export class AddBlogSlugGaps1795401450000 implements MigrationInterface {
  name = 'AddBlogSlugGaps1795401450000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no slug changes between the backfill and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs", "blog_slugs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "blog_slug_gaps" ("base" text COLLATE "C" NOT NULL, "lowest" bigint NOT NULL, "highest" bigint NOT NULL, CONSTRAINT "PK_blog_slug_gaps" PRIMARY KEY ("base", "highest"))`,
    );
    await queryRunner.query(`
      INSERT INTO "blog_slug_gaps" ("base", "lowest", "highest")
      WITH "held" AS (
        SELECT DISTINCT m[1] AS "base", m[2]::int8 AS "n"
        FROM (SELECT "slug" FROM "blogs" UNION ALL SELECT "slug" FROM "blog_slugs") s,
          regexp_match(s."slug", ${SUFFIXED}) m
        WHERE m[2]::int8 >= 2)
      SELECT "base", "previous" + 1, "n" - 1
      FROM (SELECT "base", "n", lag("n", 1, 1::int8) OVER (PARTITION BY "base" ORDER BY "n") AS "previous" FROM "held") h
      WHERE "n" > "previous" + 1
      UNION ALL
      SELECT "base", max("n") + 1, ${OPEN_END} FROM "held" GROUP BY "base"`);
    // Takes `n` of `base` out of its gap: the gap that holds it shrinks, splits or goes (no gap holds it: held already).
    await queryRunner.query(`
      CREATE FUNCTION "blog_slug_taken"("held" text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        m text[] := regexp_match("held", ${SUFFIXED});
        n int8 := m[2]::int8;
        gap "blog_slug_gaps";
      BEGIN
        IF n < 2 THEN RETURN; END IF;
        -- The first held suffix of a base: the gaps below and above it.
        INSERT INTO "blog_slug_gaps" ("base", "lowest", "highest") VALUES (m[1], n + 1, ${OPEN_END}) ON CONFLICT DO NOTHING;
        IF FOUND THEN
          IF n > 2 THEN
            INSERT INTO "blog_slug_gaps" ("base", "lowest", "highest") VALUES (m[1], 2, n - 1);
          END IF;
          RETURN;
        END IF;
        -- The open gap always exists: a gap a concurrent writer replaced is found again in a later snapshot.
        LOOP
          SELECT * INTO gap FROM "blog_slug_gaps" g WHERE g."base" = m[1] AND g."highest" >= n
            ORDER BY g."highest" LIMIT 1 FOR UPDATE;
          EXIT WHEN FOUND;
        END LOOP;
        IF gap."lowest" > n THEN RETURN; END IF;
        IF gap."lowest" = n AND gap."highest" = n THEN
          DELETE FROM "blog_slug_gaps" g WHERE g."base" = m[1] AND g."highest" = n;
        ELSIF gap."lowest" = n THEN
          UPDATE "blog_slug_gaps" g SET "lowest" = n + 1 WHERE g."base" = m[1] AND g."highest" = gap."highest";
        ELSE
          UPDATE "blog_slug_gaps" g SET "highest" = n - 1 WHERE g."base" = m[1] AND g."highest" = gap."highest";
          IF gap."highest" > n THEN
            INSERT INTO "blog_slug_gaps" ("base", "lowest", "highest") VALUES (m[1], n + 1, gap."highest");
          END IF;
        END IF;
      END $$`);
    // Gives `n` of `base` back once no blog holds the slug: it joins the gaps next to it, or becomes one.
    await queryRunner.query(`
      CREATE FUNCTION "blog_slug_freed"("held" text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        m text[] := regexp_match("held", ${SUFFIXED});
        n int8 := m[2]::int8;
        above "blog_slug_gaps";
        below "blog_slug_gaps";
      BEGIN
        IF n < 2 OR EXISTS (SELECT FROM "blogs" b WHERE b."slug" = $1)
          OR EXISTS (SELECT FROM "blog_slugs" s WHERE s."slug" = $1) THEN
          RETURN;
        END IF;
        -- Gaps are locked from the higher down; writers that lock gaps in another order meet a deadlock (40P01), which the
        -- repository runs again.
        SELECT * INTO above FROM "blog_slug_gaps" g WHERE g."base" = m[1] AND g."highest" >= n
          ORDER BY g."highest" LIMIT 1 FOR UPDATE;
        IF NOT FOUND OR above."lowest" <= n THEN RETURN; END IF;
        SELECT * INTO below FROM "blog_slug_gaps" g WHERE g."base" = m[1] AND g."highest" = n - 1 FOR UPDATE;
        IF above."lowest" = n + 1 THEN
          IF FOUND THEN
            DELETE FROM "blog_slug_gaps" g WHERE g."base" = m[1] AND g."highest" = n - 1;
          END IF;
          UPDATE "blog_slug_gaps" g SET "lowest" = COALESCE(below."lowest", n)
            WHERE g."base" = m[1] AND g."highest" = above."highest";
        ELSIF FOUND THEN
          UPDATE "blog_slug_gaps" g SET "highest" = n WHERE g."base" = m[1] AND g."highest" = n - 1;
        ELSE
          INSERT INTO "blog_slug_gaps" ("base", "lowest", "highest") VALUES (m[1], n, n);
        END IF;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blog_slugs_held"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM "blog_slug_freed"(OLD."slug");
        ELSE
          PERFORM "blog_slug_taken"(NEW."slug");
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blog_slugs_held_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "blog_slug_gaps";
        RETURN NULL;
      END $$`);
    // Row-level, with a WHEN that PostgreSQL evaluates before calling the function: a slug without a suffix pays nothing.
    // A slug a blog leaves goes to blog_slugs still held, so inserts there take nothing (and lock no gap); one an
    // explicit create or a rename takes from blog_slugs leaves it held by the blog.
    await queryRunner.query(
      `CREATE TRIGGER "blogs_slug_taken" AFTER INSERT ON "blogs" FOR EACH ROW
        WHEN (NEW."slug" ~ ${SUFFIXED}) EXECUTE FUNCTION "blog_slugs_held"()`,
    );
    for (const table of ['blogs', 'blog_slugs']) {
      await queryRunner.query(
        `CREATE TRIGGER "${table}_slug_freed" AFTER DELETE ON "${table}" FOR EACH ROW
          WHEN (OLD."slug" ~ ${SUFFIXED}) EXECUTE FUNCTION "blog_slugs_held"()`,
      );
    }
    await queryRunner.query(
      `CREATE TRIGGER "blogs_slug_renamed" AFTER UPDATE OF "slug" ON "blogs" FOR EACH ROW
        WHEN (OLD."slug" <> NEW."slug" AND NEW."slug" ~ ${SUFFIXED}) EXECUTE FUNCTION "blog_slugs_held"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_slug_gaps_truncated" AFTER TRUNCATE ON "blogs"
        FOR EACH STATEMENT EXECUTE FUNCTION "blog_slugs_held_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "blogs_slug_gaps_truncated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_slug_renamed" ON "blogs"`);
    for (const table of ['blogs', 'blog_slugs']) {
      await queryRunner.query(`DROP TRIGGER "${table}_slug_freed" ON "${table}"`);
    }
    await queryRunner.query(`DROP TRIGGER "blogs_slug_taken" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blog_slugs_held_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blog_slugs_held"()`);
    await queryRunner.query(`DROP FUNCTION "blog_slug_freed"(text)`);
    await queryRunner.query(`DROP FUNCTION "blog_slug_taken"(text)`);
    await queryRunner.query(`DROP TABLE "blog_slug_gaps"`);
  }
}
