#!/usr/bin/env bash
# Issue-index build rate and `ask` latency on a synthetic dump, against a plain
# baseline (SQLite FTS5 over the same texts, bench/ask_baseline.py) measured in
# the same run.
#
#   bench/ask_bench.sh [BUILD_DIR]      (default: build; needs fixgraph and fixgraph_gen_dump)
#
# ISSUES (default 50000) issues per repository x REPOS (default 2) repositories
# are generated and imported (linked and indexed); then the issue index is
# rebuilt from nothing with `fixgraph index-ask --fresh`, which reports the
# index build time alone. Set DUMP=DIR to reuse a generated dump and DB=DIR to
# reuse a store imported from it (skips generation and import; the index of DB
# is rebuilt). Latency is measured in-process by `fixgraph eval-ask` over
# QUERIES (default 300) queries made from the dump: half are issue titles with
# words dropped and shuffled, half are single error codes / identifiers from
# issue bodies. Each query set is run RUNS (default 3) times; medians of the
# per-run p50/p99 (wall) and of the per-query CPU time p50 are printed.
#
# Recall is judged two ways, the same for both engines. Strict: only the issue
# the query was made from counts. Equivalent: any issue the query cannot tell
# apart from it counts too: for a title query, every issue with the same title;
# for a code query, every issue whose body holds the same code. Generated
# titles and codes repeat across many issues, so strict recall is mostly luck
# about which of the identical issues comes first.
set -euo pipefail
BUILD_DIR=${1:-build}
ISSUES=${ISSUES:-50000}
REPOS=${REPOS:-2}
QUERIES=${QUERIES:-300}
RUNS=${RUNS:-3}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fixgraph-askbench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

DUMP=${DUMP:-}
if [ -z "$DUMP" ]; then
  DUMP=$WORK/dump
  "$GEN" --out "$DUMP" --repos "$REPOS" --issues "$ISSUES" --seed 11 >/dev/null 2>&1
fi
if [ -z "${DB:-}" ]; then
  DB=$WORK/db
  "$FG" --db "$DB" import "$DUMP" >/dev/null
fi
# The build's CPU time (user + system, all threads) beside its wall time: on a
# shared machine the wall time depends on what else runs.
TIMEFORMAT='%U %S'
{ time "$FG" --db "$DB" index-ask --fresh --json >"$WORK/index.json"; } 2>"$WORK/index.time"
index_json=$(cat "$WORK/index.json")
index_cpu=$(awk '{print $1 + $2}' "$WORK/index.time")
index_s=$(echo "$index_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
issues=$(echo "$index_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["issues"])')

python3 "$HERE/ask_queries.py" "$DUMP" "$QUERIES" "$WORK/queries.json" "$WORK/queries-equiv.json"

p50s=(); p99s=(); cpus=(); r5=0
for ((r = 0; r < RUNS; r++)); do
  j=$("$FG" --db "$DB" eval-ask --json --limit 5 --queries "$WORK/queries.json")
  p50s+=("$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms_p50"])')")
  p99s+=("$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms_p99"])')")
  cpus+=("$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_ms_p50"])')")
  r5=$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["recall_at_5"])')
done
r5e=$("$FG" --db "$DB" eval-ask --json --limit 5 --queries "$WORK/queries-equiv.json" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["recall_at_5"])')
b=$(python3 "$HERE/ask_baseline.py" latency --dump "$DUMP" --queries "$WORK/queries.json" --runs "$RUNS")
bb=$(python3 "$HERE/ask_baseline.py" eval --json --dump "$DUMP" --queries "$WORK/queries.json")
bbe=$(python3 "$HERE/ask_baseline.py" eval --json --dump "$DUMP" --queries "$WORK/queries-equiv.json")
index_bytes=$(du -sb "$DB/index-issues" | cut -f1)
p50=$(printf "%s\n" "${p50s[@]}" | median)
p99=$(printf "%s\n" "${p99s[@]}" | median)
cpu=$(printf "%s\n" "${cpus[@]}" | median)
python3 - "$issues" "$index_s" "$index_bytes" "$p50" "$p99" "$r5" "$b" "$bb" "$cpu" "$r5e" "$bbe" "$index_cpu" <<'PY'
import json, sys
issues, index_s, size, p50, p99, r5 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
b = json.loads(sys.argv[7]); bb = json.loads(sys.argv[8])
cpu, r5e, bbe = float(sys.argv[9]), float(sys.argv[10]), json.loads(sys.argv[11])
index_cpu = float(sys.argv[12])
print(f"{'':22s} {'fixgraph':>12s} {'fts5 baseline':>14s}")
print(f"{'issues':22s} {issues:12d} {b['issues']:14d}")
print(f"{'index build s':22s} {index_s:12.1f} {b['build_s']:14.1f}")
print(f"{'index build CPU s':22s} {index_cpu:12.1f} {b.get('build_cpu_s', 0):14.1f}")
print(f"{'issues indexed / s':22s} {issues / index_s:12.0f} {b['issues'] / b['build_s']:14.0f}")
print(f"{'index MB':22s} {size / 1e6:12.1f} {'(in memory)':>14s}")
print(f"{'ask p50 ms':22s} {p50:12.2f} {b['p50_ms']:14.2f}")
print(f"{'ask p99 ms':22s} {p99:12.2f} {b['p99_ms']:14.2f}")
print(f"{'ask CPU p50 ms':22s} {cpu:12.2f} {b.get('cpu_p50_ms', 0):14.2f}")
print(f"{'Recall@5 strict':22s} {r5:12.3f} {bb['recall_at_5']:14.3f}")
print(f"{'Recall@5 equivalent':22s} {r5e:12.3f} {bbe['recall_at_5']:14.3f}")
PY
