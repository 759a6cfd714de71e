#!/usr/bin/env bash
# Benchmarks/pgbench/filtered-lists.sh [users...]: the 20 youngest users of one status read
# as one select (PostgreSQL plans it) and in the steps a store on demand reads them in since
# 2026-12-08 (FilteredListRead: the status's rows, fenced, where at most 500 hold it, else a
# walk of the age index past 1,000 rows and their ties; then, if the walk found too few, the
# status's rows), on a throwaway cluster, for each table size given (default 10000 100000
# 1000000). 89% of the users are active and 10% offline, of random ages 0-98; 1% are away,
# all aged 99. Prints medians of 7 runs (ms, from psql): the one select as PostgreSQL plans it
# for each run's values, the steps on generic plans without full scans, as a store runs them
# ("rest" is the read of the status's rows that follows a walk that found too few). The
# statements are the store's (docs/PostgreSQL.md) over a table of the columns they read.
# The cluster: cluster.sh.
set -euo pipefail
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
. "$(dirname "$0")/cluster.sh"
start_cluster filtered-lists
value='("User".status = $1 AND "User".status IS NOT NULL)'
order='ORDER BY "User".age ASC NULLS FIRST, "User"."schemagen:order" ASC NULLS FIRST LIMIT $2'
one="SELECT \"User\".* FROM \"User\" WHERE $value $order"
rest_part="SELECT \"User\".*, 0 AS walked FROM (SELECT * FROM \"User\" WHERE $value OFFSET 0) AS \"User\" WHERE $value"
walk_part="SELECT \"User\".*, 1 FROM (SELECT * FROM \"User\" ORDER BY \"User\".age ASC NULLS FIRST FETCH FIRST 1000 ROWS WITH TIES) AS \"User\" WHERE $value"
steps="WITH few AS MATERIALIZED (SELECT count(*) <= 500 AS few FROM (SELECT 1 FROM \"User\" WHERE $value LIMIT 501) AS s) ($rest_part AND (SELECT few FROM few) $order) UNION ALL ($walk_part AND NOT (SELECT few FROM few) $order)"
for n in "${sizes[@]}"; do
  psql <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS "User";
CREATE TABLE "User" (id text NOT NULL PRIMARY KEY, name text NOT NULL, age bigint NOT NULL, status text NOT NULL, "schemagen:order" bigint NOT NULL);
INSERT INTO "User" SELECT 'u' || i, 'user ' || i, CASE WHEN i % 100 = 0 THEN 99 ELSE (random() * 98)::bigint END,
  CASE WHEN i % 100 = 0 THEN 'away' WHEN i % 100 <= 10 THEN 'offline' ELSE 'active' END, i FROM generate_series(0, $n - 1) i;
CREATE INDEX "User:index:ageOrdered" ON "User" (age ASC NULLS FIRST);
CREATE INDEX "User:index:statusHash" ON "User" (status ASC NULLS FIRST);
VACUUM ANALYZE;
SQL
  queries=(); names=()
  for status in active offline away; do
    queries+=("one_select('$status', 20)" "in_steps('$status', 20)"); names+=("$status: one select" "$status: steps")
  done
  queries+=("rest('away', 20)"); names+=("away: rest")
  {
    echo "PREPARE one_select(text, bigint) AS $one;"
    echo "PREPARE in_steps(text, bigint) AS $steps;"
    echo "PREPARE rest(text, bigint) AS $rest_part $order;"
    echo '\o /dev/null'
    for query in "${queries[@]}"; do
      # The steps run as a store runs them; the one select as PostgreSQL plans it.
      case $query in one_select*) ;; *) echo "SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET jit = off;" ;; esac
      echo '\timing on'
      for _ in 1 2 3 4 5 6 7; do echo "EXECUTE $query;"; done
      echo '\timing off'
      echo "RESET plan_cache_mode; RESET enable_seqscan; RESET jit;"
    done
  } > "$dir/run.sql"
  chmod a+r "$dir/run.sql"
  times=$(psql -v ON_ERROR_STOP=1 -f "$dir/run.sql" | awk '/^Time:/ {print $2}')
  printf '%s users:' "$n"
  for i in "${!names[@]}"; do
    median=$(echo "$times" | sed -n "$((i * 7 + 1)),$((i * 7 + 7))p" | sort -n | sed -n 4p)
    printf '  %s %s' "${names[$i]}" "$median"
  done
  echo
done
