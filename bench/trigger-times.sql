-- What each trigger and cascade of a DELETE on blogs costs (docs/performance.md, "What a delete pays"), or with
-- -v op=insert of an INSERT ("Creates of one title"). Deletes, and commits, blogs first .. first + n - 1 (or inserts n
-- blogs as the bench's check seeds its deletes: live, no tags, slug `bench-delete-<first + k>`), one a transaction,
-- each under EXPLAIN ANALYZE; prints the median time of each trigger and of the whole statement. Run on a copy of a
-- database, never on one you keep:
--   psql -d <copy> -v first=1000001 -v n=3000 [-v op=insert] -f bench/trigger-times.sql
\if :{?op}
\else
\set op delete
\endif
SELECT set_config('trigger_times.first', :'first', false), set_config('trigger_times.n', :'n', false),
  set_config('trigger_times.op', :'op', false) \g /dev/null
CREATE TEMP TABLE trigger_times (name text, ms float8);
DO $$
DECLARE
  first int8 := current_setting('trigger_times.first')::int8;
  plan json;
  t json;
BEGIN
  FOR i IN first .. first + current_setting('trigger_times.n')::int8 - 1 LOOP
    IF current_setting('trigger_times.op') = 'insert' THEN
      EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON) INSERT INTO blogs (title, content, author, owner_sub, published_at, slug)
        VALUES (%L, %L, %L, %L, now(), %L)', 'Bench delete ' || i, 'To be deleted', 'Bench', 'bench', 'bench-delete-' || i)
        INTO plan;
    ELSE
      EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM blogs WHERE id = %s', i) INTO plan;
    END IF;
    INSERT INTO trigger_times VALUES ('(the statement)', (plan->0->>'Execution Time')::float8);
    FOR t IN SELECT * FROM json_array_elements(plan->0->'Triggers') LOOP
      INSERT INTO trigger_times
      SELECT coalesce(c.conrelid::regclass::text || ' cascade', t->>'Trigger Name'), (t->>'Time')::float8
      FROM (SELECT) _ LEFT JOIN pg_trigger g ON g.tgname = t->>'Trigger Name' AND g.tgrelid = 'blogs'::regclass
      LEFT JOIN pg_constraint c ON c.oid = g.tgconstraint;
    END LOOP;
    COMMIT;
  END LOOP;
END $$;
SELECT name, count(*) AS calls, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) * 1000)::numeric, 1) AS median_us
FROM trigger_times GROUP BY name ORDER BY median_us DESC;
