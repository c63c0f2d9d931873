#!/usr/bin/env bash
# Import throughput and peak memory of `fixgraph import` on synthetic dumps.
#
#   bench/import_bench.sh [BUILD_DIR]        (default: build; needs fixgraph and fixgraph_gen_dump)
#
# Linking is excluded (--no-link; see bench/link_bench.sh). For each dump size it generates a GitCode dump (2 repositories, issues = PRs, 3 comments
# per issue on average), imports it RUNS times into a fresh store and prints the median
# wall time, issues+PRs per second, records per second and peak RSS. As a baseline measured
# in the same run on the same files it times Python's json.load of every file of the dump
# (a parse-only floor, no mapping, no store).
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"5000 25000 50000"}   # issues per repository (x2 repositories, PRs = issues)
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
# Dumps are generated in memory (/dev/shm) so that the figures measure the import, not
# the file system's inode allocation; the store is written under $STORE_TMP (default /tmp).
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
STORE_TMP=${STORE_TMP:-/tmp}
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-bench-XXXXXX")
DBW=$(mktemp -d "$STORE_TMP/fixgraph-bench-db-XXXXXX")
trap 'rm -rf "$WORK" "$DBW"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf "%-10s %8s %10s %12s %12s %10s %12s %8s\n" issues+PRs records median_s items_per_s records_per_s peak_rss_mb json_load_s ratio
for m in $SIZES; do
  dump=$WORK/dump-$m
  "$GEN" --out "$dump" --repos 2 --issues "$m" --comments 3 --seed 7 2>/dev/null
  times=(); rss=(); records=0
  for ((r = 0; r < RUNS; r++)); do
    rm -rf "$DBW/db"
    out=$("$FG" --db "$DBW/db" import --no-link --json "$dump")
    times+=("$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')")
    rss+=("$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["peak_rss_mb"])')")
    records=$(echo "$out" | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["issues"]+t["pulls"]+t["comments"]+t["commits"]+t["files"])')
  done
  t=$(printf "%s\n" "${times[@]}" | median)
  peak=$(printf "%s\n" "${rss[@]}" | median)
  base=()
  for ((r = 0; r < RUNS; r++)); do
    s=$(date +%s.%N)
    python3 -c 'import json,sys,pathlib; [json.load(open(p)) for p in pathlib.Path(sys.argv[1]).rglob("*.json")]' "$dump"
    e=$(date +%s.%N)
    base+=("$(awk "BEGIN {print $e - $s}")")
  done
  b=$(printf "%s\n" "${base[@]}" | median)
  items=$((4 * m))
  printf "%-10s %8s %10.2f %12.0f %12.0f %10.1f %12.2f %8.2f\n" "$items" "$records" "$t" \
    "$(awk "BEGIN {print $items / $t}")" "$(awk "BEGIN {print $records / $t}")" "$peak" "$b" \
    "$(awk "BEGIN {print $t / $b}")"
  rm -rf "$dump"
done
