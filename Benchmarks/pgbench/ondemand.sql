-- A write on demand that assumes what it creates new: the fingerprint check numbers the
-- commit (set_config), an EXISTS check, then fused.sql's inserts reading the number.
-- (The notification inside the transaction, as until 2026-12-07.)
\set id random(1, 1000000000000)
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT pg_advisory_xact_lock(7);
SELECT 1 / (CASE WHEN (SELECT 1) IS NOT DISTINCT FROM 1 THEN 1 ELSE 0 END), set_config('schemagen.commit', ((SELECT coalesce(max(commit), 0) FROM log) + 1)::text, true);
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT 1 / (CASE WHEN EXISTS (SELECT id FROM m WHERE id IN (:id)) OR EXISTS (SELECT target, owner FROM chatm WHERE target IN (:id) ORDER BY target ASC NULLS FIRST) OR EXISTS (SELECT owner, target FROM author WHERE owner IN (:id) ORDER BY owner ASC NULLS FIRST) THEN 0 ELSE 1 END);
WITH p1 AS (INSERT INTO m (id, text, ts) SELECT * FROM (VALUES (:id::bigint, 'message text here'::text, 5::bigint)) AS row), document AS (INSERT INTO docs (id, length, terms) VALUES (:id::bigint, 3, 'a b c')), postings AS (INSERT INTO terms (term, id, count) SELECT term, :id::bigint, count FROM unnest('{a,b,c}'::text[], '{1,1,1}'::bigint[]) AS p(term, count)), p3 AS (UPDATE totals SET documents = documents + 1, length = length + 3), p4 AS (INSERT INTO chatm (owner, position, target) SELECT added.owner, coalesce((SELECT max(position) FROM chatm WHERE owner = added.owner), -1) + 1 + added.rank, added.target FROM (VALUES (0::bigint, 0::bigint, :id::bigint)) AS added(owner, rank, target)), p5 AS (INSERT INTO author (owner, target) SELECT * FROM (VALUES (:id::bigint, 0::bigint)) AS row), p6 AS (INSERT INTO log (commit, kind, name, id, change) SELECT current_setting('schemagen.commit')::bigint, * FROM unnest('{row,link}'::text[], '{Message,Chat.messages}'::text[], '{x,y}'::text[], '{NULL,NULL}'::text[])) SELECT pg_notify('c', current_setting('schemagen.commit'));
COMMIT;
\endpipeline
