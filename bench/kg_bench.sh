#!/usr/bin/env bash
# KG doc search (issue 22): accuracy on the question set with synthetic issues
# loaded beside the docs, `docs import` time, and `docs search` / `ask`
# latency over the corpus imported ten times.
#
#   bench/kg_bench.sh [BUILD_DIR]    (default: build; needs fixgraph and fixgraph_gen_dump)
#
# CORPUS (default ../shared/data/kg-corpus), QUESTIONS (default
# tests/data/kg-questions.json), ISSUES (default 10000 synthetic issues, one
# repository, seed 11).
#  1. a store with ISSUES synthetic issues (imported, linked, indexed) and the
#     corpus imported once: `docs eval` (doc search) and `docs eval --ask`
#     (issues and docs in one ranking), top-1 / top-3 / MRR per split;
#  2. the corpus copied ten times under distinct tree names (so ten times the
#     nodes, distinct ids) imported into the same store: import time, then the
#     latency of `docs search` and `ask` per question (in-process, p50 / p99
#     over the question set, RUNS runs, medians printed). With BASELINE set to
#     another fixgraph binary (e.g. main's build), its runs alternate with
#     this build's over the same index and the ratios are printed (the
#     machine's load moves both alike).
set -euo pipefail
BUILD_DIR=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/data/kg-corpus}  # set CORPUS when the checkout has no ../shared
QUESTIONS=${QUESTIONS:-$ROOT/tests/data/kg-questions.json}
ISSUES=${ISSUES:-10000}
RUNS=${RUNS:-3}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fixgraph-kgbench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[ -d "$CORPUS" ] || { echo "no corpus at $CORPUS" >&2; exit 1; }

"$GEN" --out "$WORK/dump" --repos 1 --issues "$ISSUES" --seed 11 >/dev/null 2>&1
"$FG" --db "$WORK/db" import "$WORK/dump" >/dev/null
echo "== corpus imported once, $ISSUES synthetic issues beside it"
"$FG" --db "$WORK/db" docs import "$CORPUS"
echo "-- docs search"
"$FG" --db "$WORK/db" docs eval "$QUESTIONS"
echo "-- ask (one ranking of issues and docs)"
"$FG" --db "$WORK/db" docs eval --ask "$QUESTIONS"

echo "== corpus imported ten times (distinct ids)"
for i in $(seq 1 10); do cp -r "$CORPUS" "$WORK/kg-copy-$i"; done
start=$(date +%s.%N)
for i in $(seq 1 10); do "$FG" --db "$WORK/db10" docs import "$WORK/kg-copy-$i" | sed 's/^/  /'; done
end=$(date +%s.%N)
echo "ten imports: $(echo "$end - $start" | bc) s"
"$FG" --db "$WORK/db10" import "$WORK/dump" >/dev/null
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
BINS=("$FG")
[ -n "${BASELINE:-}" ] && BINS+=("$BASELINE")
for mode in "" "--ask"; do
  declare -A w50=() w99=() c50=() c99=()
  for r in $(seq 1 "$RUNS"); do
    for b in "${BINS[@]}"; do
      # "latency per question: p50 W ms  p99 W ms wall, p50 C ms  p99 C ms CPU (...)"
      line=$("$b" --db "$WORK/db10" docs eval $mode "$QUESTIONS" | grep '^latency')
      w50[$b]+="$(echo "$line" | awk '{print $5}') "; w99[$b]+="$(echo "$line" | awk '{print $8}') "
      c50[$b]+="$(echo "$line" | awk '{print $12}') "; c99[$b]+="$(echo "$line" | awk '{print $15}') "
    done
  done
  name=${mode:-docs search}; name=${name/--ask/ask}
  for b in "${BINS[@]}"; do
    m() { printf '%s\n' $1 | median; }
    who=$([ "$b" = "$FG" ] && echo "" || echo " [baseline $b]")
    echo "$name over ten copies$who (median of $RUNS runs): p50 $(m "${c50[$b]}") ms CPU" \
         "($(m "${w50[$b]}") ms wall), p99 $(m "${c99[$b]}") ms CPU ($(m "${w99[$b]}") ms wall)"
  done
  if [ -n "${BASELINE:-}" ]; then
    echo "  ratio to baseline: p50 CPU $(echo "$(m "${c50[$FG]}") / $(m "${c50[$BASELINE]}")" | bc -l | cut -c1-5)," \
         "p99 CPU $(echo "$(m "${c99[$FG]}") / $(m "${c99[$BASELINE]}")" | bc -l | cut -c1-5)"
  fi
  unset w50 w99 c50 c99
done
