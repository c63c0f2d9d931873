#!/usr/bin/env bash
# Two fixgraph builds side by side on the same synthetic dump: import, link,
# ask-index build and ask latency, runs alternated so that the machine's load
# falls on both alike. For "behaviour and speed stay the same" checks of a
# refactoring (issue 24): the ratios should be 1 within noise.
#
#   bench/compare_bench.sh BASE_FIXGRAPH [BUILD_DIR]   (default BUILD_DIR: build)
#
# BASE_FIXGRAPH is the other binary (e.g. an older commit's build/cli/fixgraph);
# BUILD_DIR gives the binary under test and fixgraph_gen_dump. REPOS (default 2)
# x ISSUES (default 10000) issues, as many PRs, 3 comments per issue; RUNS
# (default 5) alternated rounds; QUERIES (default 300) ask queries made from
# issue titles (words dropped, order shuffled) and error codes of bodies
# (bench/ask_queries.py, as bench/ask_bench.sh makes them).
# Each round, for each binary: `import --no-link` into a fresh store (CPU s),
# `link` on one thread (its `seconds`, the linker alone, and CPU s of the whole
# command, which rebuilds the ask index too), `index-ask --fresh` (CPU s), and
# `eval-ask` over the queries (p50 / p99 wall ms and p50 CPU ms per query, as
# measured in-process). Printed: the median of each figure per binary and the
# ratio base / new (above 1: the build under test is faster). The two stores'
# `links --json` and the first 60 queries' `ask --json` answers are compared at
# the end (byte-identical unless the builds differ in behaviour or in their JSON
# contract).
set -euo pipefail
BASE=${1:?usage: bench/compare_bench.sh BASE_FIXGRAPH [BUILD_DIR]}
BUILD_DIR=${2:-build}
NEW=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
REPOS=${REPOS:-2}
ISSUES=${ISSUES:-10000}
RUNS=${RUNS:-5}
QUERIES=${QUERIES:-300}
for b in "$BASE" "$NEW" "$GEN"; do
  [ -x "$b" ] || { echo "compare_bench: $b: not an executable" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fixgraph-compare-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$ISSUES" --comments 3 --seed 11 >/dev/null 2>&1
python3 "$(dirname "$0")/ask_queries.py" "$WORK/dump" "$QUERIES" "$WORK/queries.json"

TIMEFORMAT='%U %S'
cpu_of() { awk '{print $1 + $2}' "$1"; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
declare -A fig
add() { fig[$1]="${fig[$1]:-} $2"; }

round() {  # round NAME BINARY
  local name=$1 bin=$2 db=$WORK/db-$1
  rm -rf "$db"
  { time "$bin" --db "$db" import --no-link "$WORK/dump" >/dev/null 2>&1; } 2>"$WORK/t"
  add "$name.import_cpu" "$(cpu_of "$WORK/t")"
  { time FIXGRAPH_LINK_THREADS=1 "$bin" --db "$db" link --json >"$WORK/link.json" 2>/dev/null; } 2>"$WORK/t"
  add "$name.link_s" "$(field "$WORK/link.json" seconds)"
  add "$name.link_cpu" "$(cpu_of "$WORK/t")"
  { time "$bin" --db "$db" index-ask --fresh --json >/dev/null 2>&1; } 2>"$WORK/t"
  add "$name.index_cpu" "$(cpu_of "$WORK/t")"
  "$bin" --db "$db" eval-ask --json --limit 5 --queries "$WORK/queries.json" >"$WORK/ask.json" 2>/dev/null
  add "$name.ask_p50" "$(field "$WORK/ask.json" latency_ms_p50)"
  add "$name.ask_p99" "$(field "$WORK/ask.json" latency_ms_p99)"
  add "$name.ask_cpu" "$(field "$WORK/ask.json" cpu_ms_p50)"
}
for ((r = 0; r < RUNS; r++)); do
  if ((r % 2 == 0)); then round base "$BASE"; round new "$NEW"; else round new "$NEW"; round base "$BASE"; fi
done

links_same=yes
ask_same=yes
"$BASE" --db "$WORK/db-base" links --json >"$WORK/links-base.json" 2>/dev/null
"$NEW" --db "$WORK/db-new" links --json >"$WORK/links-new.json" 2>/dev/null
cmp -s "$WORK/links-base.json" "$WORK/links-new.json" || links_same=no
python3 -c 'import json,sys; [print(q["q"]) for q in json.load(open(sys.argv[1]))[:60]]' \
  "$WORK/queries.json" >"$WORK/q.txt"
while IFS= read -r q; do
  a=$("$BASE" --db "$WORK/db-base" ask --no-docs --json --limit 10 "$q" 2>/dev/null || true)
  b=$("$NEW" --db "$WORK/db-new" ask --no-docs --json --limit 10 "$q" 2>/dev/null || true)
  [ "$a" == "$b" ] || { ask_same="no (first difference: $q)"; break; }
done <"$WORK/q.txt"

printf '%-20s %10s %10s %8s\n' "median of $RUNS" base new "base/new"
for k in import_cpu link_s link_cpu index_cpu ask_p50 ask_p99 ask_cpu; do
  python3 - "$k" "${fig[base.$k]}" "${fig[new.$k]}" <<'PY'
import statistics, sys
k, b, n = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
mb, mn = statistics.median(b), statistics.median(n)
unit = {"import_cpu": "CPU s", "link_s": "s", "link_cpu": "CPU s", "index_cpu": "CPU s",
        "ask_p50": "ms", "ask_p99": "ms", "ask_cpu": "CPU ms"}[k]
print(f"{k + ' (' + unit + ')':20s} {mb:10.3f} {mn:10.3f} {mb / mn if mn else float('nan'):8.3f}")
PY
done
echo "links --json identical: $links_same"
echo "ask --json of 60 queries identical: $ask_same"
