#!/usr/bin/env bash
# Time of `fixgraph digest` over 17 synthetic repositories.
#
#   bench/digest_bench.sh [BUILD_DIR]              (default: build)
#   DB=/path/to/store bench/digest_bench.sh build  (time an existing store; no generation)
#
# For each size (issues per repository, x17 repositories) it generates a GitCode dump with
# bench/gen_dump.cc, imports and links it (not timed), then times RUNS runs each of:
#   baseline  `fixgraph links --json`            (reads every stored link; the floor)
#   md        `fixgraph digest -o FILE`          (Markdown)
#   json      `fixgraph digest --format json -o FILE`
# and prints medians of wall seconds and of CPU seconds (user + system), the digest/baseline
# ratio and ms per issue. The target is a digest over 17 x 10,000 issues in at most 10 s.
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"500 2000"}
REPOS=${REPOS:-17}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-digestbench-XXXXXX")
TMPDB=$(mktemp -d /tmp/fixgraph-digestbench-db-XXXXXX)
trap 'rm -rf "$WORK" "$TMPDB"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() {  # prints "wall cpu" seconds of the command
  /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >/dev/null 2>&1
  awk '{printf "%.3f %.3f", $1, $2 + $3}' "$WORK/time"
}

run_size() {  # DB N: time the digest of store DB holding N issues
  local db=$1 n=$2 base=() md=() mdc=() js=() r t
  for ((r = 0; r < RUNS; r++)); do
    t=$(timed "$FG" --db "$db" links --json); base+=("${t% *}")
    t=$(timed "$FG" --db "$db" digest -o "$WORK/d.md"); md+=("${t% *}"); mdc+=("${t#* }")
    t=$(timed "$FG" --db "$db" digest --format json -o "$WORK/d.json"); js+=("${t% *}")
  done
  local b d c j
  b=$(printf "%s\n" "${base[@]}" | median)
  d=$(printf "%s\n" "${md[@]}" | median)
  c=$(printf "%s\n" "${mdc[@]}" | median)
  j=$(printf "%s\n" "${js[@]}" | median)
  printf "%-8s %10.2f %10.2f %10.2f %10.2f %8.2f %12.3f %10s\n" "$n" "$b" "$d" "$c" "$j" \
    "$(awk "BEGIN {print $d / ($b > 0 ? $b : 1)}")" "$(awk "BEGIN {print 1000 * $d / $n}")" \
    "$(stat -c %s "$WORK/d.md")"
}

printf "%-8s %10s %10s %10s %10s %8s %12s %10s\n" issues baseline_s md_s md_cpu_s json_s ratio ms_per_issue md_bytes
if [ -n "${DB:-}" ]; then
  n=$("$FG" --db "$DB" stats --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(sum(r["issues"]["total"] for r in j["repositories"]))')
  run_size "$DB" "$n"
  exit 0
fi
for m in $SIZES; do
  "$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$m" --seed 7 >/dev/null 2>&1
  rm -rf "$TMPDB/db"
  "$FG" --db "$TMPDB/db" import "$WORK/dump" >/dev/null
  rm -rf "$WORK/dump"
  run_size "$TMPDB/db" $((REPOS * m))
done
