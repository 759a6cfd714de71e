# Sourced by the benchmarks that time statements on a throwaway cluster (related-lists.sh,
# filtered-lists.sh): `start_cluster <name>` finds PostgreSQL's server binaries (Debian:
# postgresql), starts a cluster without fsync in a temporary folder, listening on a Unix
# socket there only (as root, it runs as the postgres user), stops and removes it when the
# script exits, and defines `as` (run as the cluster's user) and `psql` (a session on it).
start_cluster() {
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -x "$bin/psql" ] || { echo "psql not found (install postgresql)"; exit 1; }
  dir=$(mktemp -d "/tmp/$1-XXXXXX")
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as "$bin/initdb" -D "$dir/data" -A trust >/dev/null
  as "$bin/pg_ctl" start -D "$dir/data" -w -l "$dir/log" -o "-k $dir -c listen_addresses= -c fsync=off" >/dev/null
  trap 'as "$bin/pg_ctl" stop -D "$dir/data" -m immediate >/dev/null; rm -rf "$dir"' EXIT
}
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql() { as "$bin/psql" -h "$dir" -q -X "$@" postgres; }
