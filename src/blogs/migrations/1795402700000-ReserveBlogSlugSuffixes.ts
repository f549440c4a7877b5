import { MigrationInterface, QueryRunner } from 'typeorm';
import { ReplaceBlogSlugGaps1795401900000 } from './1795401900000-ReplaceBlogSlugGaps';

const {
  baseLockClass: BASE_LOCK_CLASS,
  baseMaxLength: BASE_MAX_LENGTH,
  freeSlugSql,
} = ReplaceBlogSlugGaps1795401900000;

/** The seed of `hashtextextended(slug, seed)`: the key of the advisory lock that reserves a suffixed slug. */
const SUFFIX_LOCK_SEED = 1795402700;

/**
 * SQL: whether `slug`, a column of a statement's rows, is no blog's, now or before: two index probes per row. `OFFSET
 * 0` keeps each `EXISTS` a subplan per row, which the planner would otherwise hash, reading both tables whole.
 */
const probedFree = (slug: string): string =>
  `NOT EXISTS (SELECT FROM "blogs" h WHERE h."slug" = ${slug} OFFSET 0) AND NOT EXISTS (SELECT FROM "blog_slugs" h WHERE h."slug" = ${slug} OFFSET 0)`;

/**
 * SQL: reserves `slug` when it is free in the statement's snapshot: its transaction-level advisory lock, or false
 * when another create holds it (never waits).
 */
const claim = (slug: string): string =>
  `(CASE WHEN ${probedFree(slug)} THEN pg_try_advisory_xact_lock(hashtextextended(${slug}, ${SUFFIX_LOCK_SEED})) ELSE false END)`;

/** The candidate `base-n` of `blog_slug_suffix`. */
const suffixed = (n: string): string => `"wanted" || '-' || ${n}`;

/**
 * Creates of one title stop queueing on their base's row (docs/architecture.md, "Publishing and slugs"): each
 * reserves its suffix with a transaction-level advisory lock that other creates pass over without waiting, and
 * `next` moves only when the base's row is not locked (`SKIP LOCKED`), never past a suffix another create holds
 * reserved. No lock that another create waits for is held through the commit, so their commits flush together.
 * The delete trigger that appends freed suffixes fires first of a delete's (PostgreSQL fires them by name): a delete
 * takes its base's advisory lock before the counters' rows, in the order a base's first create takes them.
 */
export class ReserveBlogSlugSuffixes1795402700000 implements MigrationInterface {
  name = 'ReserveBlogSlugSuffixes1795402700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // `next`: every suffix below it is held or a row of blog_slug_freed. A freed row is looked at by one create at a
    // time (locked, others skip it): taken, dropped when held again, kept when another create holds it reserved (that
    // create may roll back). A suffix is looked at again once reserved, since a create may commit it between the
    // probe's snapshot and the lock. The first free suffix in a fresh snapshot, from where the search began, bounds the
    // new `next`: one reserved by a create in flight is free there until that create commits or rolls back.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blog_slug_suffix"("wanted" text) RETURNS text LANGUAGE plpgsql AS $$
      DECLARE
        lowest int8;
        k int8;
        freed tid;
      BEGIN
        IF length("wanted") > ${BASE_MAX_LENGTH} THEN RETURN NULL; END IF;
        LOOP
          SELECT b."next" INTO lowest FROM "blog_slug_bases" b WHERE b."base" = "wanted";
          EXIT WHEN FOUND;
          PERFORM pg_advisory_xact_lock(${BASE_LOCK_CLASS}, hashtext("wanted"));
          INSERT INTO "blog_slug_bases" ("base", "next") VALUES ("wanted", 2) ON CONFLICT DO NOTHING;
        END LOOP;
        k := 0;
        LOOP
          SELECT g.ctid, g."n" INTO freed, k FROM "blog_slug_freed" g
            WHERE g."base" = "wanted" AND g."n" > k AND g."n" < lowest ORDER BY g."n" LIMIT 1 FOR UPDATE SKIP LOCKED;
          EXIT WHEN NOT FOUND;
          IF ${claim(suffixed('k'))} THEN
            IF ${freeSlugSql(suffixed('k'))} THEN
              DELETE FROM "blog_slug_freed" f WHERE f.ctid = freed;
              RETURN ${suffixed('k')};
            END IF;
          END IF;
          IF NOT (${freeSlugSql(suffixed('k'))}) THEN
            DELETE FROM "blog_slug_freed" f WHERE f.ctid = freed;
          END IF;
        END LOOP;
        k := lowest;
        LOOP
          SELECT c."n" INTO k FROM (SELECT generate_series(k, 2147483647) AS "n") c WHERE ${claim(suffixed('c."n"'))}
            LIMIT 1;
          EXIT WHEN ${freeSlugSql(suffixed('k'))};
          k := k + 1;
        END LOOP;
        PERFORM FROM "blog_slug_bases" b WHERE b."base" = "wanted" FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
          UPDATE "blog_slug_bases" b SET "next" = greatest(b."next", CASE WHEN k = lowest THEN k + 1 ELSE coalesce(
              nullif((SELECT c."n" FROM (SELECT generate_series(lowest, k) AS "n") c
                WHERE ${probedFree(suffixed('c."n"'))} LIMIT 1), k), k + 1) END)
            WHERE b."base" = "wanted";
        END IF;
        RETURN ${suffixed('k')};
      END $$`);
    await queryRunner.query(`ALTER TRIGGER "blogs_slug_freed" ON "blogs" RENAME TO "blogs_1_slug_freed"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TRIGGER "blogs_1_slug_freed" ON "blogs" RENAME TO "blogs_slug_freed"`);
    await queryRunner.query(ReplaceBlogSlugGaps1795401900000.suffixFunction);
  }
}
