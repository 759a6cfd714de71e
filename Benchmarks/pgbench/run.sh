#!/usr/bin/env bash
# Benchmarks/pgbench/run.sh [seconds] [rounds] [script...]: the single-write scripts beside
# this file under pgbench (prepared statements, pipeline mode) on a throwaway cluster, the
# scripts alternated round by round; prints each script's median latency (ms) and
# throughput (transactions/s). Defaults:
# 5 s per run, 5 rounds, floor store fused no-postings unindexed (the last two made from
# store.sql: without its postings, and with them into tables without indexes); fused-gin
# (made from fused.sql, below), fused-nopostings (fused.sql without the full-text postings
# and totals), ondemand (a write on demand assuming what it creates new),
# ondemand-nocheck (the same without its check that it does), floor-nolock (floor.sql
# without the writers' lock, each message at a position of its own so that writers at
# once do not collide), floor-nolock-nonotify (that without its NOTIFY) and
# floor-asynclock (floor.sql committed without waiting for the flush, then made durable by
# a second transaction in the same pipeline, so that writers' flushes go together) and
# floor-notifyafter (floor.sql notifying after its commit, in a transaction of its own that
# does not wait for a flush) and fused-notifyafter (fused.sql so: the store's statements
# since 2026-12-07) on request.
# CLIENTS=n runs n connections at once on each of DATABASES=m databases (default 1 and 1;
# a figure of transactions/s adds the databases' up); PG_SETTINGS="name=value ..." adds
# server settings after fsync=off (PG_SETTINGS="fsync=on commit_delay=1000
# commit_siblings=0": a durable server whose flushes take a millisecond, as a network
# disk's may). Needs PostgreSQL's server binaries (Debian: postgresql); as root, the
# cluster runs as the postgres user.
set -euo pipefail
seconds=${1:-5}; rounds=${2:-5}; shift $(( $# > 2 ? 2 : $# ))
scripts=("$@"); [ ${#scripts[@]} -gt 0 ] || scripts=(floor store fused no-postings unindexed)
here=$(cd "$(dirname "$0")" && pwd)
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/pgbench" ] || { echo "pgbench not found (install postgresql)"; exit 1; }
dir=$(mktemp -d /tmp/pgbench-XXXXXX)
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
cp "$here"/*.sql "$dir/"
# Two variants of store.sql: without the postings, and with them into unindexed tables;
# one of fused.sql: each document's terms an array under PostgreSQL's GIN index instead of
# a row per term (its pending list takes new entries in bulk).
grep -v "WITH document" "$here/store.sql" > "$dir/no-postings.sql"
sed 's/INTO terms /INTO terms_unindexed /; s/INTO docs /INTO docs_unindexed /' "$here/store.sql" > "$dir/unindexed.sql"
sed "s/document AS (INSERT INTO docs .*AS p(term, count)), /document AS (INSERT INTO docs_gin (id, length, terms) VALUES (:id::bigint, 3, '{a,b,c}')), /" \
  "$here/fused.sql" > "$dir/fused-gin.sql"
sed "s/document AS (INSERT INTO docs .*p3 AS (UPDATE totals [^)]*), //" "$here/fused.sql" > "$dir/fused-nopostings.sql"
grep -v "EXISTS" "$here/ondemand.sql" > "$dir/ondemand-nocheck.sql"
grep -v "advisory" "$here/floor.sql" | sed "s/(SELECT coalesce(max(position) + 1, 0) FROM chatm WHERE owner = 1)/:id/" > "$dir/floor-nolock.sql"
grep -v "pg_notify" "$dir/floor-nolock.sql" > "$dir/floor-nolock-nonotify.sql"
# The second transaction writes a WAL record so that it waits for a flush: one that only
# holds an xid (pg_current_xact_id()) does not.
sed "s/^BEGIN;/BEGIN;\nSET LOCAL synchronous_commit = off;/; s/^COMMIT;/COMMIT;\nSELECT pg_logical_emit_message(true, 'schemagen', '');/" \
  "$here/floor.sql" > "$dir/floor-asynclock.sql"
sed "/pg_notify/d; s/^COMMIT;/COMMIT;\nSELECT set_config('synchronous_commit', 'off', true), pg_notify('c', 'x');/" "$here/floor.sql" > "$dir/floor-notifyafter.sql"
sed "s/, p6 AS (\(INSERT INTO log .*\)) SELECT pg_notify('c', 'x');/ \1;/; s/^COMMIT;/COMMIT;\nSELECT set_config('synchronous_commit', 'off', true), pg_notify('c', 'x');/" \
  "$here/fused.sql" > "$dir/fused-notifyafter.sql"
[ "$(id -u)" = 0 ] && chown postgres "$dir"/*.sql
as "$bin/initdb" -D "$dir/data" -A trust >/dev/null
as "$bin/pg_ctl" start -D "$dir/data" -w -l "$dir/log" -o "-k $dir -c listen_addresses= -c fsync=off$(for setting in ${PG_SETTINGS:-}; do printf ' -c %s' "$setting"; done)" >/dev/null
trap 'as "$bin/pg_ctl" stop -D "$dir/data" -m immediate >/dev/null; rm -rf "$dir"' EXIT
clients=${CLIENTS:-1}
databases=$(seq 1 "${DATABASES:-1}" | sed 's/^/db/')
for database in $databases; do
  as "$bin/createdb" -h "$dir" "$database"
  as "$bin/psql" -h "$dir" -q -f "$dir/setup.sql" "$database"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime); $clients client(s) on each of ${DATABASES:-1} database(s); settings: fsync=off ${PG_SETTINGS:-}"
declare -A results rates
for ((round = 1; round <= rounds; round++)); do
  for script in "${scripts[@]}"; do
    # Every database at once; a run that fails (its error shown) counts for nothing.
    for database in $databases; do
      as "$bin/pgbench" -h "$dir" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -f "$dir/$script.sql" "$database" > "$dir/out-$database" 2>&1 &
    done
    failed=0
    for database in $databases; do wait -n || failed=1; done
    if [ $failed = 1 ]; then
      echo "$script failed in round $round:"; tail -q -n 3 "$dir"/out-*; continue
    fi
    # The first database's latency; the databases' transactions/s added up.
    latency=$(awk '/latency average/ {print $4}' "$dir/out-db1")
    results[$script]="${results[$script]:-} $latency"
    rates[$script]="${rates[$script]:-} $(cat "$dir"/out-db* | awk '/^tps/ {sum += $3} END {printf "%.0f", sum}')"
  done
done
for script in "${scripts[@]}"; do
  median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
  echo "$script: median $(median "${results[$script]:-}") ms, $(median "${rates[$script]:-}") transactions/s (runs:${results[$script]:-})"
done
