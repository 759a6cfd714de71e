#!/usr/bin/env bash
# Measures the build times that docs/Performance.md records, for one or more revisions of
# this repository, alternating the revisions in each round so machine load hits them alike.
#
#   scripts/measure-build-times.sh [-r rounds] REV [REV...]
#
# Per revision and round, in a fresh clone:
#   package-release   clean `swift build -c release` of this package
#   package-noop      the `swift build -c release` right after it (should do nothing)
#   package-debug     clean `swift build`
#   consumer-release  clean release build of a consumer package (chat schemas, plugin applied)
#   consumer-edit     its release rebuild after editing only its own main.swift
# and, for the two no-op/edit builds, how many compiler jobs SwiftPM ran for the generator
# (SchemaGenCore or schemagen; should be 0). Prints one tab-separated line per measurement.
set -euo pipefail

rounds=2
if [[ "${1:-}" == "-r" ]]; then rounds=$2; shift 2; fi
[[ $# -ge 1 ]] || { echo "usage: $0 [-r rounds] REV [REV...]" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=consumer-package.sh
source "$repo/scripts/consumer-package.sh"
work=$(mktemp -d /tmp/schemagen-buildtimes.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Seconds taken by a command; its output goes to $work/last.log.
timed() {
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; return 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

generator_jobs() { grep -c "Compiling \(SchemaGenCore\|schemagen\)" "$work/last.log" || true; }

report() { printf '%s\t%s\t%s\t%s\t%s\tload %s\n' "$1" "$2" "$3" "$4" "${5:-}" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"; }

make_consumer() {
    local package=$1 consumer=$2
    write_consumer_manifest "$package" "$consumer"
    cp "$package"/Schemas/Chat/* "$consumer/Sources/App/"
    printf 'import SchemaRuntime\nlet chat = Chat(id: "c1", title: "Hello")\nprint(chat.title ?? "")\n' >"$consumer/Sources/App/main.swift"
}

for round in $(seq 1 "$rounds"); do
    for rev in "$@"; do
        package="$work/pkg-$rev"
        consumer="$work/consumer-$rev"
        rm -rf "$package" "$consumer"
        git clone --quiet "$repo" "$package"
        git -C "$package" checkout --quiet "$rev"
        make_consumer "$package" "$consumer"
        cd "$package"
        report "$rev" "$round" package-release "$(timed swift build -c release)"
        report "$rev" "$round" package-noop "$(timed swift build -c release)" "generator jobs $(generator_jobs)"
        rm -rf .build
        report "$rev" "$round" package-debug "$(timed swift build)"
        cd "$consumer"
        report "$rev" "$round" consumer-release "$(timed swift build -c release)"
        echo "// edited" >>Sources/App/main.swift
        report "$rev" "$round" consumer-edit "$(timed swift build -c release)" "generator jobs $(generator_jobs)"
        cd "$repo"
        rm -rf "$package" "$consumer"
    done
done
