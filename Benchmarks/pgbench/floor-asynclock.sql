-- floor.sql committed without waiting for the flush (the lock then goes at once), and
-- made durable by a second transaction in the same pipeline that writes to the log and
-- so waits for its flush, which covers the first: writers flushed together. (A
-- transaction that writes nothing does not wait for a flush, even holding an xid.)
\set id random(1, 1000000000000)
\startpipeline
BEGIN;
SET LOCAL synchronous_commit = off;
SELECT pg_advisory_xact_lock(7);
INSERT INTO m (id, text, ts) VALUES (:id, 'message text here', 5);
INSERT INTO author (owner, target) VALUES (:id, 0);
INSERT INTO chatm (owner, position, target) VALUES (1, (SELECT coalesce(max(position) + 1, 0) FROM chatm WHERE owner = 1), :id);
INSERT INTO log (commit, kind, name, id, change) VALUES (:id, 'row', 'Chat', 'i:0', NULL), (:id, 'row', 'Message', 'x', NULL), (:id, 'link', 'Chat.messages', 'i:0', NULL), (:id, 'link', 'Message.author', 'x', NULL);
SELECT pg_notify('c', 'x');
COMMIT;
SELECT pg_logical_emit_message(true, 'schemagen', '');
\endpipeline
