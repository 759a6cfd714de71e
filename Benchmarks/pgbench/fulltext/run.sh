#!/usr/bin/env bash
# Benchmarks/pgbench/fulltext/run.sh [documents]: full-text postings as the store keeps them
# on PostgreSQL (a row per term and document) beside one array of terms per document under
# a GIN index, on a throwaway cluster filled with `documents` (default 100,000; setup.sql):
# the queries a ranked `matches` makes (the ids holding one term, rare or in 1% of the
# documents, or two terms; the count holding a term in 10%), a document's insert, and the
# queries again after those inserts (a GIN index's pending list then holds them). Each
# script runs 3 times in turn under pgbench; prints each run's latency (ms). Needs
# PostgreSQL's server binaries; as root, the cluster runs as the postgres user.
set -euo pipefail
documents=${1:-100000}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/pgbench" ] || { echo "pgbench not found (install postgresql)"; exit 1; }
dir=$(mktemp -d /tmp/pgbench-fulltext-XXXXXX)
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cp "$here"/*.sql "$dir/"
[ "$(id -u)" = 0 ] && chown -R postgres "$dir"
as "$bin/initdb" -D "$dir/data" -A trust >/dev/null
as "$bin/pg_ctl" start -D "$dir/data" -w -l "$dir/log" -o "-k $dir -c listen_addresses= -c fsync=off -c shared_buffers=512MB" >/dev/null
trap 'as "$bin/pg_ctl" stop -D "$dir/data" -m immediate >/dev/null; rm -rf "$dir"' EXIT
as "$bin/psql" -h "$dir" -q -v n="$documents" -f "$dir/setup.sql" postgres
echo "$documents documents; load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
runs() {
  local seconds=$1; shift
  declare -A results
  for round in 1 2 3; do
    for script in "$@"; do
      latency=$(as "$bin/pgbench" -h "$dir" -n -M prepared -T "$seconds" -f "$dir/$script.sql" postgres 2>&1 | awk '/latency average/ {print $4}')
      results[$script]="${results[$script]:-} $latency"
    done
  done
  for script in "$@"; do echo "  $script:${results[$script]}"; done
}
echo "queries (ms):"
runs 3 ids_btree_rare ids_gin_rare ids_btree_c1 ids_gin_c1 ids_btree_two ids_gin_two df_btree_c10 df_gin_c10
echo "inserts (ms):"
runs 4 w_btree w_gin w_ginnofu
echo "queries after the inserts (ms):"
runs 3 ids_gin_rare ids_btree_rare ids_gin_c1 ids_btree_c1 df_gin_c10 df_btree_c10
