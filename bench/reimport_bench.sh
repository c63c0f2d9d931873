#!/usr/bin/env bash
# Re-import of a changed dump against a first import of the same size.
#
#   bench/reimport_bench.sh [BUILD_DIR]     (default: build; needs fixgraph and fixgraph_gen_dump)
#
# For each size it generates two GitCode dumps of REPOS repositories with the same shape and
# different seeds (A: --seed 7, B: --seed 8: every issue, PR and comment differs), then RUNS
# times: imports A into a fresh store (the baseline: a first import, linking and indexing
# included) and imports B into that store (the re-import: verify, write, relink, reindex).
# Prints the medians, the ratio re-import / first import and the re-import's phases
# (import --json "seconds" covers both; link/index time is the remainder).
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"8000"}   # issues per repository (PRs = issues)
REPOS=${REPOS:-2}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
DUMP_TMP=${DUMP_TMP:-/dev/shm}
[ -d "$DUMP_TMP" ] || DUMP_TMP=/tmp
WORK=$(mktemp -d "$DUMP_TMP/fixgraph-reimport-XXXXXX")
DBW=$(mktemp -d "${STORE_TMP:-/tmp}/fixgraph-reimport-db-XXXXXX")
trap 'rm -rf "$WORK" "$DBW"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }

printf "%-10s %10s %10s %7s %11s\n" issues+PRs first_s reimport_s ratio relinked
for m in $SIZES; do
  "$GEN" --out "$WORK/a-$m" --repos "$REPOS" --issues "$m" --comments 3 --seed 7 2>/dev/null
  "$GEN" --out "$WORK/b-$m" --repos "$REPOS" --issues "$m" --comments 3 --seed 8 2>/dev/null
  first=(); re=(); relinked=0
  for ((r = 0; r < RUNS; r++)); do
    rm -rf "$DBW/db"
    t0=$(now); "$FG" --db "$DBW/db" import "$WORK/a-$m" >/dev/null; t1=$(now)
    first+=("$(echo "$t1 - $t0" | bc -l)")
    t0=$(now); out=$("$FG" --db "$DBW/db" import --json "$WORK/b-$m"); t1=$(now)
    re+=("$(echo "$t1 - $t0" | bc -l)")
    relinked=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["relinked"])')
  done
  f=$(printf "%s\n" "${first[@]}" | median)
  g=$(printf "%s\n" "${re[@]}" | median)
  printf "%-10s %10.2f %10.2f %7.2f %11s\n" $((2 * m * REPOS)) "$f" "$g" "$(echo "$g / $f" | bc -l)" "$relinked"
done
