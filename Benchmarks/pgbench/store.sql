-- A resident store's single write as its statements reached the server before they were
-- fused (fused.sql): 11 statements.
\set id random(1, 1000000000000)
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT pg_advisory_xact_lock(7);
SELECT 1 / (CASE WHEN (SELECT coalesce(max(commit), 0) FROM log) >= 0 THEN 1 ELSE 0 END);
SET LOCAL plan_cache_mode = force_generic_plan;
INSERT INTO m (id, text, ts) SELECT * FROM (VALUES (:id::bigint, 'message text here'::text, 5::bigint)) AS row;
WITH document AS (INSERT INTO docs (id, length, terms) VALUES (:id::bigint, 3, 'a b c')), postings AS (INSERT INTO terms (term, id, count) SELECT term, :id::bigint, count FROM unnest('{a,b,c}'::text[], '{1,1,1}'::bigint[]) AS p(term, count)) UPDATE totals SET documents = documents + 1, length = length + 3;
INSERT INTO chatm (owner, position, target) SELECT added.owner, coalesce((SELECT max(position) FROM chatm WHERE owner = added.owner), -1) + 1 + added.rank, added.target FROM (VALUES (0::bigint, 0::bigint, :id::bigint)) AS added(owner, rank, target);
INSERT INTO author (owner, target) SELECT * FROM (VALUES (:id::bigint, 0::bigint)) AS row;
INSERT INTO log (commit, kind, name, id, change) SELECT * FROM unnest(ARRAY[:id, :id]::bigint[], '{row,link}'::text[], '{Message,Chat.messages}'::text[], '{x,y}'::text[], '{NULL,NULL}'::text[]);
SELECT pg_notify('c', 'x');
COMMIT;
\endpipeline
