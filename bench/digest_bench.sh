#!/usr/bin/env bash
# Time of `fixgraph digest` over 17 synthetic repositories.
#
#   bench/digest_bench.sh [BUILD_DIR]      (default: build)
#
# For each size (issues per repository, x17 repositories) it generates a GitCode dump with
# bench/gen_dump.cc, imports and links it (not timed), then times RUNS runs each of:
#   baseline  `fixgraph links --json`            (reads every stored link; the floor)
#   md        `fixgraph digest -o FILE`          (Markdown)
#   json      `fixgraph digest --format json -o FILE`
# and prints medians in seconds, the digest/baseline ratio and ms per issue. The target is a
# digest over 17 x 10,000 issues in at most 10 s.
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
DB=$(mktemp -d /tmp/fixgraph-digestbench-db-XXXXXX)
trap 'rm -rf "$WORK" "$DB"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() {  # prints wall seconds of the command
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  awk "BEGIN {printf \"%.3f\", $t1 - $t0}"
}

printf "%-8s %10s %10s %10s %8s %12s %10s\n" issues baseline_s md_s json_s ratio ms_per_issue md_bytes
for m in $SIZES; do
  "$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$m" --seed 7 >/dev/null 2>&1
  rm -rf "$DB/db"
  "$FG" --db "$DB/db" import "$WORK/dump" >/dev/null
  rm -rf "$WORK/dump"
  base=(); md=(); js=()
  for ((r = 0; r < RUNS; r++)); do
    base+=("$(timed "$FG" --db "$DB/db" links --json)")
    md+=("$(timed "$FG" --db "$DB/db" digest -o "$DB/d.md")")
    js+=("$(timed "$FG" --db "$DB/db" digest --format json -o "$DB/d.json")")
  done
  b=$(printf "%s\n" "${base[@]}" | median)
  d=$(printf "%s\n" "${md[@]}" | median)
  j=$(printf "%s\n" "${js[@]}" | median)
  n=$((REPOS * m))
  printf "%-8s %10.2f %10.2f %10.2f %8.2f %12.3f %10s\n" "$n" "$b" "$d" "$j" \
    "$(awk "BEGIN {print $d / ($b > 0 ? $b : 1)}")" "$(awk "BEGIN {print 1000 * $d / $n}")" \
    "$(stat -c %s "$DB/d.md")"
done
