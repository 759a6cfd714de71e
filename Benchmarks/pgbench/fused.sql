-- store.sql in 5 statements: every insert in one WITH, the plan setting in the lock's SELECT.
-- (The notification inside the transaction, as until 2026-12-07; run.sh makes
-- fused-notifyafter from this file, the store's statements since.)
\set id random(1, 1000000000000)
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT pg_advisory_xact_lock(7), set_config('plan_cache_mode', 'force_generic_plan', true);
SELECT 1 / (CASE WHEN (SELECT coalesce(max(commit), 0) FROM log) >= 0 THEN 1 ELSE 0 END);
WITH p1 AS (INSERT INTO m (id, text, ts) SELECT * FROM (VALUES (:id::bigint, 'message text here'::text, 5::bigint)) AS row), document AS (INSERT INTO docs (id, length, terms) VALUES (:id::bigint, 3, 'a b c')), postings AS (INSERT INTO terms (term, id, count) SELECT term, :id::bigint, count FROM unnest('{a,b,c}'::text[], '{1,1,1}'::bigint[]) AS p(term, count)), p3 AS (UPDATE totals SET documents = documents + 1, length = length + 3), p4 AS (INSERT INTO chatm (owner, position, target) SELECT added.owner, coalesce((SELECT max(position) FROM chatm WHERE owner = added.owner), -1) + 1 + added.rank, added.target FROM (VALUES (0::bigint, 0::bigint, :id::bigint)) AS added(owner, rank, target)), p5 AS (INSERT INTO author (owner, target) SELECT * FROM (VALUES (:id::bigint, 0::bigint)) AS row), p6 AS (INSERT INTO log (commit, kind, name, id, change) SELECT * FROM unnest(ARRAY[:id, :id]::bigint[], '{row,link}'::text[], '{Message,Chat.messages}'::text[], '{x,y}'::text[], '{NULL,NULL}'::text[])) SELECT pg_notify('c', 'x');
COMMIT;
\endpipeline
