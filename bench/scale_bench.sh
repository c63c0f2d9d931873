#!/usr/bin/env bash
# How each cost grows with the store (issue 25): one row of the scale table per run.
#
#   bench/scale_bench.sh [BUILD_DIR]     (default: build; needs fixgraph and fixgraph_gen_dump)
#
# Generates a GitCode dump of REPOS repositories x ISSUES issues each (as many PRs, the
# generator's default comment and file counts, seed 11), or reuses DUMP=DIR, and then runs,
# one after another on a fresh store in WORK (default: a new directory under /tmp; KEEP=1
# keeps it):
#   import    `import --no-link`: loading alone (wall, CPU, peak RSS, items/s)
#   link      `link`: the whole link run and the ask-index build after it
#   index     `index-ask --fresh`: the ask-index build alone
#   docs      `docs import KG` (KG defaults to ../shared/data/kg-corpus when it exists)
#   stats     `stats --json`, median wall of 5 processes
#   ask-cli   a whole `ask` process, start to answer, for each of the 24 short generic
#             symptoms of serve_bench.sh's mix (the dearest kind), 3 rounds: p50/p99 wall
#   ask       in-process `eval-ask` over 300 queries of bench/ask_queries.py (titles, codes):
#             p50/p99 wall per query, and the same over the 24 generic symptoms
#   digest    `digest --format json` of the whole store (wall, peak RSS)
#   disk      the store's size (du)
#   update    1,000 issues of repo-1 changed (title, body, updated_at) and imported as a
#             dump of their own: write, relink and reindex (wall, peak RSS)
# ARCHIVE=1 packs the dump into one tar file first (step "pack") and imports that; COLD=1
# drops the page cache before the import (root only).
# Then, with SERVE=1 (default), bench/serve_bench.sh on the store (ENDPOINTS, default
# "ask askmix"; DURATION default 15s) before the update step.
# Output: one line per step, "step wall_s cpu_s peak_rss_mb extra".
set -euo pipefail
BUILD_DIR=${1:-build}
REPOS=${REPOS:-4}
ISSUES=${ISSUES:-2500}
HERE=$(cd "$(dirname "$0")" && pwd)
FG=$(realpath "$BUILD_DIR/cli/fixgraph")
GEN=$(realpath "$BUILD_DIR/bench/fixgraph_gen_dump")
KG=${KG:-$HERE/../../shared/data/kg-corpus}
SERVE=${SERVE:-1}
WORK=${WORK:-$(mktemp -d /tmp/fixgraph-scale-XXXXXX)}
mkdir -p "$WORK"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
DB=$WORK/db
rm -rf "$DB"

mapfile -t GENERIC <"$HERE/generic_symptoms.txt"  # the short symptoms of the serve mix

percentile() {  # P: reads numbers, prints the P-th percentile (nearest rank)
  sort -g | awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100+0.999); if (i<1) i=1; print a[i]}'
}
# step NAME COMMAND...: runs it under /usr/bin/time; prints "NAME wall cpu rss_mb"
step() {
  local name=$1
  shift
  /usr/bin/time -o "$WORK/time" -f '%e %U %S %M' "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    { echo "$name failed:" >&2; tail -5 "$WORK/$name.err" >&2; exit 1; }
  awk -v n="$name" '{printf "%-8s %8.2f %8.2f %8.0f", n, $1, $2 + $3, $4 / 1024}' "$WORK/time"
}

if [ -z "${DUMP:-}" ]; then
  DUMP=$WORK/dump
  "$GEN" --out "$DUMP" --repos "$REPOS" --issues "$ISSUES" --seed 11 >/dev/null 2>&1
fi
printf "%-8s %8s %8s %8s %s\n" step wall_s cpu_s rss_mb extra
if [ "${ARCHIVE:-0}" = 1 ] && [ -d "$DUMP" ]; then
  # ARCHIVE=1: the dump packed into one tar file, imported from there (docs/formats.md)
  /usr/bin/time -o "$WORK/time" -f '%e %U %S %M' tar -cf "$WORK/dump.tar" -C "$DUMP" .
  awk '{printf "%-8s %8.2f %8.2f %8.0f", "pack", $1, $2 + $3, $4 / 1024}' "$WORK/time"
  echo " $(du -h "$WORK/dump.tar" | cut -f1) tar file"
  DUMP=$WORK/dump.tar
fi
if [ "${COLD:-0}" = 1 ]; then  # COLD=1: the page cache dropped first (needs root)
  sync
  echo 3 >/proc/sys/vm/drop_caches
fi
step import "$FG" --quiet --db "$DB" import --no-link "$DUMP"
# issues + PRs, from the import's own count ("..., N issues, M pull requests, ...")
items=$(grep -o '[0-9]* issues, [0-9]* pull requests' "$WORK/import.out" | awk '{n += $1 + $3} END {print n}')
awk -v n="$items" '{printf " %d issues+PRs, %.0f per s\n", n, n / $1}' "$WORK/time"
step link "$FG" --quiet --db "$DB" link --json
echo
step index "$FG" --quiet --db "$DB" index-ask --fresh --json
echo
if [ -d "$KG" ]; then
  step docs "$FG" --quiet --db "$DB" docs import "$KG"
  echo
fi
ms_now() { echo $(($(date +%s%N) / 1000000)); }
for _ in 1 2 3 4 5; do
  t0=$(ms_now)
  "$FG" --db "$DB" stats --json >/dev/null
  echo $(($(ms_now) - t0))
done | percentile 50 | awk '{printf "%-8s %8.3f %8s %8s median of 5\n", "stats", $1 / 1000, "-", "-"}'

: >"$WORK/askcli"
for _ in 1 2 3; do
  for q in "${GENERIC[@]}"; do
    t0=$(ms_now)
    "$FG" --db "$DB" ask --json "$q" >/dev/null
    echo $(($(ms_now) - t0)) >>"$WORK/askcli"
  done
done
printf "%-8s %8s %8s %8s p50 %s ms, p99 %s ms (whole process, %d runs)\n" ask-cli - - - \
  "$(percentile 50 <"$WORK/askcli")" "$(percentile 99 <"$WORK/askcli")" "$(wc -l <"$WORK/askcli")"

python3 "$HERE/ask_queries.py" "$DUMP" 300 "$WORK/queries.json"
python3 -c 'import json, sys; print(json.dumps([{"q": q, "expect": []} for q in sys.argv[1:]]))' \
  "${GENERIC[@]}" >"$WORK/generic.json"
for set in queries generic; do
  "$FG" --db "$DB" eval-ask --json --limit 5 --queries "$WORK/$set.json" >"$WORK/eval-$set.json"
  python3 - "$WORK/eval-$set.json" "$set" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("%-8s %8s %8s %8s %s: p50 %.2f ms, p99 %.2f ms wall in-process (CPU p50 %.2f, p99 %.2f)" % (
    "ask", "-", "-", "-", sys.argv[2], d["latency_ms_p50"], d["latency_ms_p99"],
    d["cpu_ms_p50"], d["cpu_ms_p99"]))
PY
done

step digest "$FG" --quiet --db "$DB" digest --format json
echo
printf "%-8s %8s %8s %8s %s\n" disk - - - "$(du -sh "$DB" | cut -f1) store"

if [ "$SERVE" = 1 ]; then
  DB=$DB ENDPOINTS=${ENDPOINTS:-"ask askmix"} DURATION=${DURATION:-15s} \
    "$HERE/serve_bench.sh" "$BUILD_DIR"
fi

# 1,000 changed issues of the first repository, as a dump of their own.
python3 - "$DUMP" "$WORK/update" <<'PY'
import json, pathlib, shutil, sys
src = sorted(pathlib.Path(sys.argv[1]).glob("*/*/*/repo.json"))[0].parent
dst = pathlib.Path(sys.argv[2]) / src.relative_to(pathlib.Path(sys.argv[1]))
dst.mkdir(parents=True, exist_ok=True)
shutil.copy(src / "repo.json", dst / "repo.json")
issues = json.load(open(src / "issues.json", encoding="utf-8"))[:1000]
for i in issues:
    i["title"] = i["title"] + " (updated)"
    i["body"] = (i.get("body") or "") + "\n\nStill seen after the upgrade."
    i["updated_at"] = "2026-12-01T10:00:00+08:00"
json.dump(issues, open(dst / "issues.json", "w", encoding="utf-8"), ensure_ascii=False)
PY
step update "$FG" --quiet --db "$DB" import "$WORK/update"
echo " 1,000 changed issues: write + relink + reindex"
