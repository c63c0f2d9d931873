#!/usr/bin/env bash
# Two builds' `serve` on the same store, driven by bench/serve_bench.sh, runs
# alternated in both orders (old new, new old, old new, ...).
#
#   DB=DIR bench/serve_ab.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# Each build directory holds what serve_bench.sh needs (cli/fixgraph,
# cli/fixgraph-serve, bench/fixgraph_gen_dump): a build tree, or a copy of those
# three files. DB is an imported store both serve (required: the builds must
# answer the same index). PAIRS (default 4) pairs of runs; ENDPOINT (default
# askmix) and DURATION (default 15s) go to serve_bench.sh, as do CONNS and
# THREADS. Prints every run, then per build the medians of requests/s, p99 and
# the server's CPU ms a request, and the ratios new / old.
#
# Why both orders: on the shared 2-core machine of docs/benchmarks.md the second
# of two back-to-back runs was 4-5% slower with one binary serving both ("The
# narrowed pass keeps 15"), a bias as large as the changes measured.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=${1:?usage: DB=DIR bench/serve_ab.sh OLD_BUILD_DIR NEW_BUILD_DIR}
NEW=${2:?usage: DB=DIR bench/serve_ab.sh OLD_BUILD_DIR NEW_BUILD_DIR}
: "${DB:?set DB to an imported store}"
PAIRS=${PAIRS:-4}
ENDPOINT=${ENDPOINT:-askmix}
export DURATION=${DURATION:-15s}
for b in "$OLD" "$NEW"; do
  for f in cli/fixgraph cli/fixgraph-serve bench/fixgraph_gen_dump; do
    [ -x "$b/$f" ] || { echo "serve_ab: $b/$f is missing or not executable" >&2; exit 1; }
  done
done
RESULTS=$(mktemp /tmp/fixgraph-serve-ab-XXXXXX)
trap 'rm -f "$RESULTS"' EXIT
one() {  # one run: label, build dir
  local line
  line=$(DB="$DB" ENDPOINTS="$ENDPOINT" "$HERE/serve_bench.sh" "$2" 2>/dev/null | grep "^$ENDPOINT ") || {
    echo "serve_ab: serve_bench.sh failed for $2" >&2
    exit 1
  }
  echo "$1 $line" | tee -a "$RESULTS"
}
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then
    one old "$OLD"
    one new "$NEW"
  else
    one new "$NEW"
    one old "$OLD"
  fi
done
python3 - "$RESULTS" <<'PY'
import statistics, sys
runs = {"old": [], "new": []}
for line in open(sys.argv[1]):
    f = line.split()
    # label endpoint req_per_s p50_ms p99_ms non2xx sockerr rss0_mb rss1_mb cpu_ms_req
    runs[f[0]].append((float(f[2]), float(f[4]), float(f[9]), int(f[5]) + int(f[6])))
med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in runs.items()}
for k in ("old", "new"):
    print("%s: median requests/s %.1f, p99 %.2f ms, server CPU %.3f ms a request (%d runs, %d errors)"
          % (k, *med[k], len(runs[k]), sum(r[3] for r in runs[k])))
print("new / old: requests/s %.3f, p99 %.3f, CPU a request %.3f"
      % tuple(med["new"][i] / med["old"][i] for i in range(3)))
PY
