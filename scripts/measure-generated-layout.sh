#!/usr/bin/env bash
# Compares compile time of generated code laid out one file per entity (what schemagen writes)
# with all of a schema file's entities in one file (`--entity-files ""`, the layout before),
# for domains of growing size, alternating the two in each round. It compiles as SwiftPM's
# debug build does (batch mode, -Onone -g), against this checkout's debug SchemaRuntime.
#
#   scripts/measure-generated-layout.sh [-r rounds] [-j jobs] [SIZE...]    (default: 50 100 200)
#
# Prints wall clock, CPU time (user + system, all processes) and the largest compiler
# process's memory, per size, layout and round.
set -euo pipefail

rounds=2
jobs=2
while [[ "${1:-}" == -* ]]; do
    case $1 in
        -r) rounds=$2 ;;
        -j) jobs=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
sizes=${*:-50 100 200}

repo=$(cd "$(dirname "$0")/.." && pwd)
swift build --package-path "$repo" --product schemagen >/dev/null
swift build --package-path "$repo" --target SchemaRuntime >/dev/null
bin=$(swift build --package-path "$repo" --show-bin-path)
work=$(mktemp -d /tmp/schemagen-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT

for size in $sizes; do
    mkdir -p "$work/$size/schema"
    python3 "$repo/scripts/write-domain-schemas.py" "$work/$size/schema" 1 "$size"
    "$bin/schemagen" generate --quiet --output "$work/$size/per-entity" --schema-name AppSchema "$work/$size/schema"
    "$bin/schemagen" generate --quiet --output "$work/$size/one-file" --schema-name AppSchema --entity-files "" "$work/$size/schema"
done

for round in $(seq 1 "$rounds"); do
    for size in $sizes; do
        for layout in one-file per-entity; do
            objects=$(mktemp -d "$work/objects.XXXXXX")
            files=$(find "$work/$size/$layout" -name "*.swift" | sort)
            # shellcheck disable=SC2086
            (cd "$objects" && /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
                swiftc -module-name App -parse-as-library -c -Onone -g -swift-version 6 \
                -enable-batch-mode -j"$jobs" -I "$bin/Modules" $files >/dev/null)
            read -r wall user system memory <"$work/time"
            printf '%s entities\t%s\tround %s\t%s s\t%.1f s CPU\t%d MB\tload %s\n' "$size" "$layout" "$round" \
                "$wall" "$(echo "$user + $system" | bc)" $((memory / 1024)) "$(cut -d' ' -f1 /proc/loadavg)"
            rm -rf "$objects"
        done
    done
done
