#!/usr/bin/env bash
# Import throughput and peak memory of `fixgraph import` on synthetic dumps.
#
#   bench/import_bench.sh [BUILD_DIR]        (default: build; needs fixgraph and fixgraph_gen_dump)
#
# Linking is excluded (--no-link; see bench/link_bench.sh). For each dump size it generates a GitCode dump (REPOS repositories, default 2, issues = PRs, 3 comments
# per issue on average), imports it RUNS times into a fresh store and prints the median
# wall time, issues+PRs per second, records per second and peak RSS. As a baseline measured
# in the same run on the same files it times Python's json.load of every file of the dump
# (a parse-only floor, no mapping, no store).
#
# With BASELINE_FG=<another fixgraph binary> (e.g. an older build) every run also imports the
# same dump with that binary, alternating with the one under test, and a second line per size
# gives its figures; "speedup" is its median time over ours. cpu_s is user+system CPU seconds
# of the import process (steadier than wall time on a shared machine).
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"5000 25000 50000"}   # issues per repository (PRs = issues)
REPOS=${REPOS:-2}                    # repositories in the dump (1: one big repository)
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
BASELINE_FG=${BASELINE_FG:-}
# Dumps are generated in memory (/dev/shm) so that the figures measure the import, not
# the file system's inode allocation; the store is written under $STORE_TMP (default /tmp).
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
STORE_TMP=${STORE_TMP:-/tmp}
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-bench-XXXXXX")
DBW=$(mktemp -d "$STORE_TMP/fixgraph-bench-db-XXXXXX")
trap 'rm -rf "$WORK" "$DBW"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf "%-9s %-10s %8s %9s %8s %12s %12s %10s %11s %7s %8s\n" binary issues+PRs records median_s cpu_s \
  items_per_s records_per_s peak_rss_mb json_load_s ratio speedup
# import BINARY DUMP -> "seconds peak_rss_mb records cpu_seconds"
import_once() {
  rm -rf "$DBW/db"
  local out
  out=$(/usr/bin/time -f '%U %S' -o "$DBW/cpu" "$1" --db "$DBW/db" import --no-link --json "$2")
  echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["totals"]; print(d["seconds"], d["peak_rss_mb"], t["issues"]+t["pulls"]+t["comments"]+t["commits"]+t["files"], end=" ")'
  awk '{print $1 + $2}' "$DBW/cpu"
}
for m in $SIZES; do
  dump=$WORK/dump-$m
  "$GEN" --out "$dump" --repos "$REPOS" --issues "$m" --comments 3 --seed 7 2>/dev/null
  times=(); rss=(); cpu=(); btimes=(); brss=(); bcpu=(); records=0
  for ((r = 0; r < RUNS; r++)); do
    read -r t p n c < <(import_once "$FG" "$dump")
    times+=("$t"); rss+=("$p"); cpu+=("$c"); records=$n
    if [ -n "$BASELINE_FG" ]; then
      read -r t p n c < <(import_once "$BASELINE_FG" "$dump")
      btimes+=("$t"); brss+=("$p"); bcpu+=("$c")
    fi
  done
  base=()
  for ((r = 0; r < RUNS; r++)); do
    s=$(date +%s.%N)
    python3 -c 'import json,sys,pathlib; [json.load(open(p)) for p in pathlib.Path(sys.argv[1]).rglob("*.json")]' "$dump"
    e=$(date +%s.%N)
    base+=("$(awk "BEGIN {print $e - $s}")")
  done
  b=$(printf "%s\n" "${base[@]}" | median)
  items=$((2 * REPOS * m))
  t=$(printf "%s\n" "${times[@]}" | median)
  peak=$(printf "%s\n" "${rss[@]}" | median)
  c=$(printf "%s\n" "${cpu[@]}" | median)
  speedup=-
  if [ -n "$BASELINE_FG" ]; then
    bt=$(printf "%s\n" "${btimes[@]}" | median)
    speedup=$(awk "BEGIN {printf \"%.2f\", $bt / $t}")
  fi
  printf "%-9s %-10s %8s %9.2f %8.2f %12.0f %12.0f %10.1f %11.2f %7.2f %8s\n" test "$items" "$records" "$t" "$c" \
    "$(awk "BEGIN {print $items / $t}")" "$(awk "BEGIN {print $records / $t}")" "$peak" "$b" \
    "$(awk "BEGIN {print $t / $b}")" "$speedup"
  if [ -n "$BASELINE_FG" ]; then
    bp=$(printf "%s\n" "${brss[@]}" | median)
    bc=$(printf "%s\n" "${bcpu[@]}" | median)
    printf "%-9s %-10s %8s %9.2f %8.2f %12.0f %12.0f %10.1f %11.2f %7.2f %8s\n" baseline "$items" "$records" "$bt" "$bc" \
      "$(awk "BEGIN {print $items / $bt}")" "$(awk "BEGIN {print $records / $bt}")" "$bp" "$b" \
      "$(awk "BEGIN {print $bt / $b}")" 1.00
  fi
  rm -rf "$dump"
done
