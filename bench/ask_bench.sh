#!/usr/bin/env bash
# Issue-index build rate and `ask` latency on a synthetic dump, against a plain
# baseline (SQLite FTS5 over the same texts, bench/ask_baseline.py) measured in
# the same run.
#
#   bench/ask_bench.sh [BUILD_DIR]      (default: build; needs fixgraph and fixgraph_gen_dump)
#
# ISSUES (default 50000) issues per repository x REPOS (default 2) repositories
# are generated, imported without linking, then `fixgraph link` links and
# indexes them; the index build time is the `link` wall time minus the
# linker's own seconds. Latency is measured in-process by `fixgraph eval-ask`
# over QUERIES (default 300) queries made from the dump: half are issue titles
# with words dropped and shuffled, half are single error codes / identifiers
# from issue bodies. Each query set is run RUNS (default 3) times; medians of
# the per-run p50/p99 are printed.
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

"$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$ISSUES" --seed 11 >/dev/null 2>&1
"$FG" --db "$WORK/db" import --no-link "$WORK/dump" >/dev/null
s=$(date +%s.%N)
link_json=$(FIXGRAPH_LINK_THREADS=1 "$FG" --db "$WORK/db" link --json)
e=$(date +%s.%N)
link_s=$(echo "$link_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
issues=$(echo "$link_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["issues"])')
index_s=$(awk "BEGIN {print ($e - $s) - $link_s}")

python3 - "$WORK/dump" "$QUERIES" > "$WORK/queries.json" <<'PY'
import json, pathlib, random, re, sys
root = pathlib.Path(sys.argv[1]); n = int(sys.argv[2]); rnd = random.Random(5)
issues = []
for f in sorted(root.glob("*/*/*/issues.json")):
    platform, owner, repo = f.parent.relative_to(root).parts
    for i in json.load(open(f, encoding="utf-8")):
        issues.append((f"{platform}:{owner}/{repo}#{i['number']}", i.get("title") or "", i.get("body") or ""))
rnd.shuffle(issues)
out = []
for ref, title, body in issues:
    if len(out) >= n: break
    if len(out) % 2 == 0:
        words = title.split()
        if len(words) > 3: words = rnd.sample(words, max(2, len(words) * 2 // 3))
        out.append({"q": " ".join(words), "expect": [ref], "kind": "title"})
    else:
        codes = re.findall(r"\b(?:E[A-Z0-9]\d{4}|-?\d{6,}|[a-z]+[A-Z]\w{5,})\b", body)
        if codes: out.append({"q": rnd.choice(codes), "expect": [ref], "kind": "code"})
json.dump(out, sys.stdout, ensure_ascii=False)
PY

p50s=(); p99s=(); r5=0
for ((r = 0; r < RUNS; r++)); do
  j=$("$FG" --db "$WORK/db" eval-ask --json --limit 5 --queries "$WORK/queries.json")
  p50s+=("$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms_p50"])')")
  p99s+=("$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms_p99"])')")
  r5=$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["recall_at_5"])')
done
b=$(python3 "$HERE/ask_baseline.py" latency --dump "$WORK/dump" --queries "$WORK/queries.json" --runs "$RUNS")
bb=$(python3 "$HERE/ask_baseline.py" eval --json --dump "$WORK/dump" --queries "$WORK/queries.json")
index_bytes=$(du -sb "$WORK/db/index-issues" | cut -f1)
p50=$(printf "%s\n" "${p50s[@]}" | median)
p99=$(printf "%s\n" "${p99s[@]}" | median)
python3 - "$issues" "$index_s" "$index_bytes" "$p50" "$p99" "$r5" "$b" "$bb" <<'PY'
import json, sys
issues, index_s, size, p50, p99, r5 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
b = json.loads(sys.argv[7]); bb = json.loads(sys.argv[8])
print(f"{'':22s} {'fixgraph':>12s} {'fts5 baseline':>14s}")
print(f"{'issues':22s} {issues:12d} {b['issues']:14d}")
print(f"{'index build s':22s} {index_s:12.1f} {b['build_s']:14.1f}")
print(f"{'issues indexed / s':22s} {issues / index_s:12.0f} {b['issues'] / b['build_s']:14.0f}")
print(f"{'index MB':22s} {size / 1e6:12.1f} {'(in memory)':>14s}")
print(f"{'ask p50 ms':22s} {p50:12.2f} {b['p50_ms']:14.2f}")
print(f"{'ask p99 ms':22s} {p99:12.2f} {b['p99_ms']:14.2f}")
print(f"{'Recall@5 (synthetic)':22s} {r5:12.3f} {bb['recall_at_5']:14.3f}")
PY
