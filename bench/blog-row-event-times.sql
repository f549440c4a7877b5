-- What the comments' triggers cost a single-row INSERT and DELETE, by the shape of their triggers (docs/performance.md,
-- "The events of rows that belong to a blog"): V0 one function for the counter and the events (before migration
-- RecordBlogRowEvents), V1 the counter's row trigger beside record_blog_row_event (the migration's choice), V1b the same
-- with the payload's keys in column order, V2 a statement-level counter with transition tables. Builds its own tables;
-- run it on a scratch database only: `createdb scratch && psql -d scratch -v rounds=6 -v n=500 -f <this file>`.
-- Rounds alternate the variants (the first is warm-up); each statement runs under EXPLAIN ANALYZE, and the medians
-- are of the comments' own triggers' time per statement (foreign-key triggers left out).
\set ON_ERROR_STOP 1
CREATE TABLE "blogs" ("id" serial PRIMARY KEY);
CREATE TABLE "event_outbox" ("seq" bigserial PRIMARY KEY, "type" text NOT NULL, "data" json NOT NULL,
  "occurred_at" timestamptz(3) NOT NULL DEFAULT now());
CREATE TABLE "comments" (
  "id" SERIAL NOT NULL, "blog_id" integer NOT NULL, "author" text NOT NULL, "body" text NOT NULL,
  "owner_sub" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
  CONSTRAINT "PK_comments" PRIMARY KEY ("id"),
  CONSTRAINT "FK_comments_blog_id" FOREIGN KEY ("blog_id") REFERENCES "blogs"("id") ON DELETE CASCADE);
CREATE INDEX ON "comments" ("blog_id", "created_at", "id");
CREATE TABLE "comment_counts" ("blog_id" integer NOT NULL PRIMARY KEY REFERENCES "blogs"("id") ON DELETE CASCADE,
  "n" bigint NOT NULL DEFAULT 0);
INSERT INTO "blogs" SELECT FROM generate_series(1, 100);

CREATE FUNCTION "old_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "comment_counts" ("blog_id", "n") VALUES (NEW."blog_id", 1)
    ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + 1;
    INSERT INTO "event_outbox" ("type", "data") VALUES ('comment.created', json_build_object('id', NEW."id",
      'blog_id', NEW."blog_id", 'author', NEW."author", 'body', NEW."body", 'created_at', NEW."created_at"));
  ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
    UPDATE "comment_counts" SET "n" = "n" - 1 WHERE "blog_id" = OLD."blog_id";
    INSERT INTO "event_outbox" ("type", "data")
    VALUES ('comment.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "comment_counts" ("blog_id", "n") VALUES (NEW."blog_id", 1)
    ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + 1;
  ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
    UPDATE "comment_counts" SET "n" = "n" - 1 WHERE "blog_id" = OLD."blog_id";
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "counted_added"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "comment_counts" ("blog_id", "n") SELECT "blog_id", count(*) FROM "added" GROUP BY "blog_id"
  ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + excluded."n";
  RETURN NULL;
END $$;
CREATE FUNCTION "counted_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "comment_counts" c SET "n" = c."n" - r."k"
  FROM (SELECT "blog_id", count(*) AS "k" FROM "removed" GROUP BY "blog_id") r WHERE c."blog_id" = r."blog_id";
  RETURN NULL;
END $$;

CREATE FUNCTION "event_jsonb"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "event_outbox" ("type", "data")
    VALUES (TG_ARGV[0] || '.created', (to_jsonb(NEW) - TG_ARGV[1:])::json);
  ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
    INSERT INTO "event_outbox" ("type", "data")
    VALUES (TG_ARGV[0] || '.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "event_ordered"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "event_outbox" ("type", "data")
    SELECT TG_ARGV[0] || '.created', json_object_agg(e."key", e."value" ORDER BY e."n")
    FROM json_each(row_to_json(NEW)) WITH ORDINALITY e("key", "value", "n") WHERE e."key" <> ALL (TG_ARGV[1:]);
  ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
    INSERT INTO "event_outbox" ("type", "data")
    VALUES (TG_ARGV[0] || '.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "swap"(v text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DROP TRIGGER IF EXISTS "a_old" ON "comments"; DROP TRIGGER IF EXISTS "b_counted" ON "comments";
  DROP TRIGGER IF EXISTS "b_event" ON "comments"; DROP TRIGGER IF EXISTS "s_added" ON "comments";
  DROP TRIGGER IF EXISTS "s_removed" ON "comments";
  IF v = 'V0 one function (before)' THEN
    CREATE TRIGGER "a_old" AFTER INSERT OR DELETE ON "comments" FOR EACH ROW EXECUTE FUNCTION "old_changed"();
  END IF;
  IF v IN ('V1 row counter + generic (jsonb)', 'V1b row counter + generic (ordered json)') THEN
    CREATE TRIGGER "b_counted" AFTER INSERT OR DELETE ON "comments" FOR EACH ROW EXECUTE FUNCTION "counted"();
  END IF;
  IF v = 'V2 statement counter + generic (jsonb)' THEN
    CREATE TRIGGER "s_added" AFTER INSERT ON "comments" REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "counted_added"();
    CREATE TRIGGER "s_removed" AFTER DELETE ON "comments" REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "counted_removed"();
  END IF;
  IF v IN ('V1 row counter + generic (jsonb)', 'V2 statement counter + generic (jsonb)') THEN
    CREATE TRIGGER "b_event" AFTER INSERT OR DELETE ON "comments" FOR EACH ROW EXECUTE FUNCTION "event_jsonb"('comment', 'owner_sub');
  END IF;
  IF v = 'V1b row counter + generic (ordered json)' THEN
    CREATE TRIGGER "b_event" AFTER INSERT OR DELETE ON "comments" FOR EACH ROW EXECUTE FUNCTION "event_ordered"('comment', 'owner_sub');
  END IF;
END $$;
SET client_min_messages = warning;
SELECT set_config('row_event_times.rounds', :'rounds', false), set_config('row_event_times.n', :'n', false) \g /dev/null
CREATE TEMP TABLE "samples" ("variant" text, "op" text, "us" float8);
DO $$
DECLARE
  plan json;
  ids int[];
  n int := current_setting('row_event_times.n')::int;
  variants text[] := ARRAY['V0 one function (before)', 'V1 row counter + generic (jsonb)',
    'V1b row counter + generic (ordered json)', 'V2 statement counter + generic (jsonb)'];
BEGIN
  FOR round IN 1..current_setting('row_event_times.rounds')::int LOOP
    FOR v IN 1..4 LOOP
      PERFORM "swap"(variants[v]);
      FOR i IN 1..n LOOP
        EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON) INSERT INTO "comments" ("blog_id", "author", "body", "owner_sub")
          VALUES (%s, %L, %L, %L)', 1 + i % 100, 'Bob', repeat('Nice post. ', 20), 'bob') INTO plan;
        IF round > 1 THEN
          INSERT INTO "samples" SELECT variants[v], 'insert', coalesce(sum((t->>'Time')::float8) * 1000, 0)
            FROM json_array_elements(plan->0->'Triggers') t WHERE t->>'Trigger Name' NOT LIKE 'RI_%';
        END IF;
      END LOOP;
      SELECT array_agg("id") INTO ids FROM (SELECT "id" FROM "comments" ORDER BY "id" DESC LIMIT n) s;
      FOR i IN 1..n LOOP
        EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM "comments" WHERE "id" = %s', ids[i]) INTO plan;
        IF round > 1 THEN
          INSERT INTO "samples" SELECT variants[v], 'delete', coalesce(sum((t->>'Time')::float8) * 1000, 0)
            FROM json_array_elements(plan->0->'Triggers') t WHERE t->>'Trigger Name' NOT LIKE 'RI_%';
        END IF;
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
SELECT "variant", "op", count(*) AS "statements",
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY "us")::numeric, 1) AS "median_us",
  round(percentile_cont(0.25) WITHIN GROUP (ORDER BY "us")::numeric, 1) AS "p25_us",
  round(percentile_cont(0.75) WITHIN GROUP (ORDER BY "us")::numeric, 1) AS "p75_us"
FROM "samples" GROUP BY 1, 2 ORDER BY 2 DESC, 1;
