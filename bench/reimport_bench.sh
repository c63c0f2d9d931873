#!/usr/bin/env bash
# Re-import of a changed dump against a first import of the same size.
#
#   bench/reimport_bench.sh [BUILD_DIR]     (default: build; needs fixgraph and fixgraph_gen_dump)
#
# For each size it generates two GitCode dumps of REPOS repositories with the same shape and
# different seeds (A: --seed 7, B: --seed 8: every issue, PR and comment differs), then RUNS
# times: imports A into a fresh store (the baseline: a first import, linking and indexing
# included) and imports B into that store (the re-import: verify, write, relink, reindex).
# Prints the medians of wall and CPU (user + system) seconds, and the ratios re-import /
# first import. FG_BASELINE=path/to/another/fixgraph runs that binary too, alternating with
# this one on the same dumps (before/after figures from one run).
set -euo pipefail
BUILD_DIR=${1:-build}
FG_BASELINE=${FG_BASELINE:-}
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

# cpu COMMAND...: runs it, prints "WALL CPU" (CPU = user + system of the process and its children)
cpu() {
  local t0 t1
  t0=$(now)
  /usr/bin/time -o "$WORK/time" -f '%U %S' "$@" >/dev/null 2>&1
  t1=$(now)
  echo "$(echo "$t1 - $t0" | bc -l) $(awk '{print $1 + $2}' "$WORK/time")"
}
BINS=("$FG")
[ -n "${FG_BASELINE:-}" ] && BINS+=("$FG_BASELINE")
printf "%-10s %-10s %8s %8s %7s %8s %8s %7s\n" issues+PRs binary first_s re_s ratio first_cpu re_cpu cpu_ratio
for m in $SIZES; do
  "$GEN" --out "$WORK/a-$m" --repos "$REPOS" --issues "$m" --comments 3 --seed 7 2>/dev/null
  "$GEN" --out "$WORK/b-$m" --repos "$REPOS" --issues "$m" --comments 3 --seed 8 2>/dev/null
  declare -A fw=() fc=() rw=() rc=()
  for ((r = 0; r < RUNS; r++)); do
    for ((b = 0; b < ${#BINS[@]}; b++)); do
      rm -rf "$DBW/db"
      read -r w c < <(cpu "${BINS[$b]}" --db "$DBW/db" import "$WORK/a-$m")
      fw[$b]+="$w "; fc[$b]+="$c "
      read -r w c < <(cpu "${BINS[$b]}" --db "$DBW/db" import "$WORK/b-$m")
      rw[$b]+="$w "; rc[$b]+="$c "
    done
  done
  for ((b = 0; b < ${#BINS[@]}; b++)); do
    f=$(printf "%s\n" ${fw[$b]} | median); g=$(printf "%s\n" ${rw[$b]} | median)
    fcpu=$(printf "%s\n" ${fc[$b]} | median); gcpu=$(printf "%s\n" ${rc[$b]} | median)
    printf "%-10s %-10s %8.2f %8.2f %7.2f %8.2f %8.2f %7.2f\n" $((2 * m * REPOS)) \
      "$([ "$b" -eq 0 ] && echo this || echo baseline)" "$f" "$g" "$(echo "$g / $f" | bc -l)" \
      "$fcpu" "$gcpu" "$(echo "$gcpu / $fcpu" | bc -l)"
    echo "  runs: first ${fw[$b]}| re ${rw[$b]}" >&2
  done
  unset fw fc rw rc
done
