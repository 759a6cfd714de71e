#!/usr/bin/env bash
# Benchmarks/pgbench/related-lists.sh [messages...]: a chat's newest 20 messages read as one
# join (PostgreSQL plans it) and in the steps a store on demand reads them in since
# 2026-12-07 (RelatedListRead: the owner's links when it has at most 500, else a walk of
# the timestamp index past 1,000 rows and their ties), on a throwaway cluster, for each
# table size given (default 10000 100000 1000000). The messages lie in chats of 1,000 with
# random timestamps, beside a chat "old" of 300 holding the oldest and a chat "new" of
# 1,000 holding the newest. Prints medians of 7 runs (ms, from psql, PostgreSQL choosing
# its plans for each run's values as it does for a store's reads); "links" is the read of
# every link that follows a walk that found too few rows. The statements are the store's
# (docs/PostgreSQL.md, "Related lists are read in bounded steps") without its joins of the
# messages' authors. The cluster: cluster.sh.
set -euo pipefail
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
. "$(dirname "$0")/cluster.sh"
start_cluster related-lists
join='SELECT "Message".* FROM "Message" JOIN "Chat.messages" ON "Chat.messages".target = "Message".id WHERE "Chat.messages".owner = $1 ORDER BY "Message"."timestamp" DESC NULLS LAST, "Chat.messages".position ASC NULLS FIRST LIMIT $2'
links_part='SELECT "Message".*, 0 AS walked FROM "Chat.messages" CROSS JOIN LATERAL (SELECT * FROM "Message" WHERE "Chat.messages".target = "Message".id OFFSET 0) AS "Message" WHERE "Chat.messages".owner = $1'
walk_part='SELECT "Message".*, 1 FROM (SELECT * FROM "Message" ORDER BY "Message"."timestamp" DESC NULLS LAST FETCH FIRST 1000 ROWS WITH TIES) AS "Message" CROSS JOIN LATERAL (SELECT * FROM "Chat.messages" WHERE "Chat.messages".target = "Message".id OFFSET 0) AS "Chat.messages" WHERE "Chat.messages".owner = $1'
order='ORDER BY "Message"."timestamp" DESC NULLS LAST, "Chat.messages".position ASC NULLS FIRST LIMIT $2'
steps="WITH few AS MATERIALIZED (SELECT count(*) <= 500 AS few FROM (SELECT 1 FROM \"Chat.messages\" WHERE \"Chat.messages\".owner = \$1 LIMIT 501) AS s) ($links_part AND (SELECT few FROM few) $order) UNION ALL ($walk_part AND NOT (SELECT few FROM few) $order)"
for n in "${sizes[@]}"; do
  psql <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS "Message", "Chat.messages";
CREATE TABLE "Message" (id text NOT NULL PRIMARY KEY, text text NOT NULL, "timestamp" double precision NOT NULL);
CREATE TABLE "Chat.messages" (owner text NOT NULL, position bigint NOT NULL, target text NOT NULL, PRIMARY KEY (owner, target));
INSERT INTO "Message" SELECT 'old ' || i, 'hello', i FROM generate_series(0, 299) i;
INSERT INTO "Chat.messages" SELECT 'old', i, 'old ' || i FROM generate_series(0, 299) i;
INSERT INTO "Message" SELECT 'm ' || i, 'hello', 300 + random() * $n FROM generate_series(0, $n - 1) i;
INSERT INTO "Chat.messages" SELECT 'c' || (1 + i % ($n / 1000)), i, 'm ' || i FROM generate_series(0, $n - 1) i;
INSERT INTO "Message" SELECT 'new ' || i, 'hello', 10 * $n + i FROM generate_series(0, 999) i;
INSERT INTO "Chat.messages" SELECT 'new', i, 'new ' || i FROM generate_series(0, 999) i;
CREATE UNIQUE INDEX "Chat.messages:order" ON "Chat.messages" (owner, position);
CREATE INDEX "Chat.messages:target" ON "Chat.messages" (target);
CREATE INDEX "Message:timestamp" ON "Message" ("timestamp" DESC NULLS LAST);
VACUUM ANALYZE;
SQL
  queries=(); names=()
  for chat in old new c1; do
    queries+=("one_join('$chat', 20)" "in_steps('$chat', 20)"); names+=("$chat: join" "$chat: steps")
  done
  queries+=("every_link('c1', 20)"); names+=("c1: links")
  {
    echo "PREPARE one_join(text, bigint) AS $join;"
    echo "PREPARE in_steps(text, bigint) AS $steps;"
    echo "PREPARE every_link(text, bigint) AS $links_part $order;"
    echo '\o /dev/null'
    echo '\timing on'
    for query in "${queries[@]}"; do for _ in 1 2 3 4 5 6 7; do echo "EXECUTE $query;"; done; done
  } > "$dir/run.sql"
  chmod a+r "$dir/run.sql"
  times=$(psql -v ON_ERROR_STOP=1 -f "$dir/run.sql" | awk '/^Time:/ {print $2}')
  printf '%s messages:' "$n"
  for i in "${!names[@]}"; do
    median=$(echo "$times" | sed -n "$((i * 7 + 1)),$((i * 7 + 7))p" | sort -n | sed -n 4p)
    printf '  %s %s' "${names[$i]}" "$median"
  done
  echo
done
