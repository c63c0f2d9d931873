#!/usr/bin/env bash
# Linking time of `fixgraph link` on synthetic dumps, one thread and all threads.
#
#   bench/link_bench.sh [BUILD_DIR]      (default: build)
#
# For each size it generates a GitCode dump (4 repositories, issues = PRs, 3 comments per
# issue), imports it without linking, then times `fixgraph link` RUNS times with
# FIXGRAPH_LINK_THREADS=1 and with the default thread count, printing medians and ms per
# issue. Near-linear scaling shows as a flat ms/issue column. The time is the `seconds`
# field of `fixgraph link --json` (the linker only, not the index rebuild that follows).
#
# BASE=/path/to/old/fixgraph also times that binary on the same store, alternating runs
# with the new one, and prints the ratio of the one-thread medians (base / new).
# ALL_THREADS=0 skips the all-threads runs. REPOS (default 4) and COMMENTS (default 3) set
# the generator's --repos and --comments (the 100k figure uses SIZES=25000 COMMENTS=2).
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1000 5000"}   # issues per repository (x REPOS repositories)
BASE=${BASE:-}
ALL_THREADS=${ALL_THREADS:-1}
REPOS=${REPOS:-4}
COMMENTS=${COMMENTS:-3}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-linkbench-XXXXXX")
DB=$(mktemp -d /tmp/fixgraph-linkbench-db-XXXXXX)
trap 'rm -rf "$WORK" "$DB"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])'; }
ms() { awk "BEGIN {print 1000 * $1 / $2}"; }

printf "%-8s %-8s %12s %12s %12s %12s" issues PRs 1thread_s ms_per_issue all_threads_s ms_per_issue
[ -n "$BASE" ] && printf " %12s %12s %8s" base_1thr_s base_ms_iss ratio
printf "\n"
for m in $SIZES; do
  "$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$m" --comments "$COMMENTS" --seed 11 2>/dev/null
  rm -rf "$DB/db"
  "$FG" --db "$DB/db" import --no-link "$WORK/dump" >/dev/null
  rm -rf "$WORK/dump"
  one=(); all=(); base=()
  for ((r = 0; r < RUNS; r++)); do
    if [ -n "$BASE" ]; then
      base+=("$(FIXGRAPH_LINK_THREADS=1 "$BASE" --db "$DB/db" link --json | seconds)")
    fi
    one+=("$(FIXGRAPH_LINK_THREADS=1 "$FG" --db "$DB/db" link --json | seconds)")
    if [ "$ALL_THREADS" = 1 ]; then
      all+=("$("$FG" --db "$DB/db" link --json | seconds)")
    else
      all+=(0)
    fi
  done
  t1=$(printf "%s\n" "${one[@]}" | median)
  tn=$(printf "%s\n" "${all[@]}" | median)
  n=$((REPOS * m))
  printf "%-8s %-8s %12.2f %12.3f %12.2f %12.3f" "$n" "$n" "$t1" "$(ms "$t1" "$n")" "$tn" "$(ms "$tn" "$n")"
  if [ -n "$BASE" ]; then
    tb=$(printf "%s\n" "${base[@]}" | median)
    printf " %12.2f %12.3f %7.2fx" "$tb" "$(ms "$tb" "$n")" "$(awk "BEGIN {print $tb / $t1}")"
  fi
  printf "\n"
done
