#!/usr/bin/env bash
# Linking time of `fixgraph link` on synthetic dumps, one thread and all threads.
#
#   bench/link_bench.sh [BUILD_DIR]      (default: build)
#
# For each size it generates a GitCode dump (4 repositories, issues = PRs, 3 comments per
# issue), imports it without linking, then times `fixgraph link` RUNS times with
# FIXGRAPH_LINK_THREADS=1 and with the default thread count, printing medians and ms per
# issue. Near-linear scaling shows as a flat ms/issue column.
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1000 5000"}   # issues per repository (x4 repositories)
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-linkbench-XXXXXX")
DB=$(mktemp -d /tmp/fixgraph-linkbench-db-XXXXXX)
trap 'rm -rf "$WORK" "$DB"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])'; }

printf "%-8s %-8s %12s %12s %12s %12s\n" issues PRs 1thread_s ms_per_issue all_threads_s ms_per_issue
for m in $SIZES; do
  "$GEN" --out "$WORK/dump" --repos 4 --issues "$m" --comments 3 --seed 11 2>/dev/null
  rm -rf "$DB/db"
  "$FG" --db "$DB/db" import --no-link "$WORK/dump" >/dev/null
  one=(); all=()
  for ((r = 0; r < RUNS; r++)); do
    one+=("$(FIXGRAPH_LINK_THREADS=1 "$FG" --db "$DB/db" link --json | seconds)")
    all+=("$("$FG" --db "$DB/db" link --json | seconds)")
  done
  t1=$(printf "%s\n" "${one[@]}" | median)
  tn=$(printf "%s\n" "${all[@]}" | median)
  n=$((4 * m))
  printf "%-8s %-8s %12.2f %12.3f %12.2f %12.3f\n" "$n" "$n" "$t1" "$(awk "BEGIN {print 1000 * $t1 / $n}")" \
    "$tn" "$(awk "BEGIN {print 1000 * $tn / $n}")"
  rm -rf "$WORK/dump"
done
