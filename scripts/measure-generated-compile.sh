#!/usr/bin/env bash
# Measures how long generated code takes to compile, for one or more revisions, alternating
# them in each round. The domain: 200 entities (6 fields, a mutual to-one/to-many pair, a
# one-way to-many, an ordered and a full-text index, a fragment merge rule each), applied
# with the build plugin to the `App` target of a consumer package, debug build.
#
#   scripts/measure-generated-compile.sh [-r rounds] [-p "1 4"] REV [REV...]
#
# Prints, per revision and round, the time to rebuild `App` alone (SchemaRuntime and the
# plugin already built) with all entities in one schema file, and split over four files:
# wall clock, CPU time of all processes, and the largest compiler process's memory.
set -euo pipefail

rounds=2
splits="1 4"
while [[ "${1:-}" == -* ]]; do
    case $1 in
        -r) rounds=$2 ;;
        -p) splits=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
[[ $# -ge 1 ]] || { echo "usage: $0 [-r rounds] REV [REV...]" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=consumer-package.sh
source "$repo/scripts/consumer-package.sh"
work=$(mktemp -d /tmp/schemagen-gencompile.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Writes the 200 entities into $1 as $2 schema files.
write_schemas() {
    python3 "$repo/scripts/write-domain-schemas.py" "$1" "$2" 200
}

make_consumer() {
    local package=$1 consumer=$2 parts=$3
    write_consumer_manifest "$package" "$consumer"
    write_schemas "$consumer/Sources/App" "$parts"
    printf 'import SchemaRuntime\nprint(E0(id: 1, name: "a").name)\n' >"$consumer/Sources/App/main.swift"
}

# Seconds to rebuild App alone: wall clock, then CPU (user + system, all processes), then the
# largest resident set of one compiler process in MB.
app_rebuild() {
    local consumer=$1
    swift build --package-path "$consumer" >/dev/null 2>&1
    # A new modification time on every input makes the driver recompile all of App.
    find "$consumer/Sources/App" "$consumer/.build/plugins/outputs" -name "*.swift" -exec touch {} +
    /usr/bin/time -f "%e\t%U %S\t%M" -o "$work/time" swift build --package-path "$consumer" >"$work/last.log" 2>&1 \
        || { cat "$work/last.log" >&2; return 1; }
    awk -F'\t' '{ split($2, cpu, " "); printf "%s s\t%.1f s CPU\t%d MB\n", $1, cpu[1] + cpu[2], $3 / 1024 }' "$work/time"
}

for round in $(seq 1 "$rounds"); do
    for rev in "$@"; do
        package="$work/pkg-$rev"
        [[ -d "$package" ]] || { git clone --quiet "$repo" "$package"; git -C "$package" checkout --quiet "$rev"; }
        for parts in $splits; do
            consumer="$work/consumer-$rev-$parts"
            [[ -d "$consumer" ]] || make_consumer "$package" "$consumer" "$parts"
            printf '%s\t%s\t%s file(s)\t%s\tload %s\n' "$rev" "$round" "$parts" "$(app_rebuild "$consumer")" "$(cut -d' ' -f1 /proc/loadavg)"
        done
    done
done
