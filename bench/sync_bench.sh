#!/usr/bin/env bash
# Sync throughput against the loopback fake API (tests/fakeapi), and the cost of a
# second, unchanged sync.
#
#   bench/sync_bench.sh [BUILD_DIR]   (default: build; needs fixgraph, fixgraph_gen_dump,
#                                      tests/fixgraph_fake_api)
#
# For each size it generates a GitCode dump (1 repository, issues = PRs), serves it with
# fixgraph_fake_api and runs `fixgraph sync --rate-limit 0 --no-link` RUNS times into a
# fresh store: median wall time, requests/s, list items/s. Then one second sync of the
# same store (nothing changed): its requests and time. Baseline measured in the same run:
# `fixgraph import --no-link` of the same dump (no HTTP), and the ratio sync/import.
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"500 1000"}
PARALLEL=${PARALLEL:-4}
FG=$BUILD_DIR/cli/fixgraph
GEN=$BUILD_DIR/bench/fixgraph_gen_dump
FAKE=$BUILD_DIR/tests/fixgraph_fake_api
PORT=${PORT:-18931}
WORK=$(mktemp -d /tmp/fixgraph-syncbench-XXXXXX)
FAKE_PID=
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }

printf "%-8s %9s %9s %11s %9s %10s %11s %11s %9s %7s\n" items requests median_s requests_per_s items_per_s resync_req resync_s import_s ratio par
for m in $SIZES; do
  dump=$WORK/dump-$m
  "$GEN" --out "$dump" --repos 1 --issues "$m" --platform gitcode --owner synth >/dev/null 2>&1
  "$FAKE" --dump "$dump" --listen 127.0.0.1:$PORT 2>/dev/null &
  FAKE_PID=$!
  sleep 0.5
  base=http://127.0.0.1:$PORT/api/v5
  times=(); req=0; items=0
  for r in $(seq "$RUNS"); do
    db=$WORK/db-$m-$r
    t0=$(now)
    out=$("$FG" --db "$db" sync gitcode:synth/repo-1 --api-base "$base" --rate-limit 0 \
          --parallel "$PARALLEL" --no-link --json)
    t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc -l)")
    req=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["requests"])')
    items=$(echo "$out" | python3 -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["issues"]+t["pulls"])')
  done
  med=$(printf "%s\n" "${times[@]}" | median)
  t0=$(now)
  out=$("$FG" --db "$WORK/db-$m-1" sync gitcode:synth/repo-1 --api-base "$base" --rate-limit 0 --no-link --json)
  t1=$(now)
  resync_s=$(echo "$t1 - $t0" | bc -l)
  resync_req=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["requests"])')
  imp=()
  for r in $(seq "$RUNS"); do
    t0=$(now)
    "$FG" --db "$WORK/imp-$m-$r" import --no-link "$dump" >/dev/null
    t1=$(now)
    imp+=("$(echo "$t1 - $t0" | bc -l)")
  done
  imed=$(printf "%s\n" "${imp[@]}" | median)
  kill "$FAKE_PID"; wait "$FAKE_PID" 2>/dev/null || true; FAKE_PID=
  printf "%-8s %9s %9.2f %11.0f %9.0f %10s %11.2f %11.2f %9.1f %7s\n" "$items" "$req" "$med" \
    "$(echo "$req / $med" | bc -l)" "$(echo "$items / $med" | bc -l)" "$resync_req" "$resync_s" \
    "$imed" "$(echo "$med / $imed" | bc -l)" "$PARALLEL"
done
