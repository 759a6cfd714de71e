-- The observed hand floor's single write (schemastore-bench postgres): 8 statements.
\set id random(1, 1000000000000)
\startpipeline
BEGIN;
SELECT pg_advisory_xact_lock(7);
INSERT INTO m (id, text, ts) VALUES (:id, 'message text here', 5);
INSERT INTO author (owner, target) VALUES (:id, 0);
INSERT INTO chatm (owner, position, target) VALUES (1, (SELECT coalesce(max(position) + 1, 0) FROM chatm WHERE owner = 1), :id);
INSERT INTO log (commit, kind, name, id, change) VALUES (:id, 'row', 'Chat', 'i:0', NULL), (:id, 'row', 'Message', 'x', NULL), (:id, 'link', 'Chat.messages', 'i:0', NULL), (:id, 'link', 'Message.author', 'x', NULL);
SELECT pg_notify('c', 'x');
COMMIT;
\endpipeline
