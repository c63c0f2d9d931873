#!/usr/bin/env bash
# Crash consistency of derived data (docs/reliability.md, "Crash consistency").
#
#   tests/crash/crash_test.sh FIXGRAPH FAKE_API SOURCE_DIR
#
# For each command (import of a new dump, re-import of a changed dump, sync
# from the loopback fake API, link, docs import) it prepares a store, kills the
# command at many points, runs the same command again (the "next command"),
# and compares `links --json`, `stats --json` and `ask --json` with a store
# that ran the command uninterrupted: any difference fails the test.
#
# Kill points: the store's crash points (FIXGRAPH_CRASH_AT=N ends the process
# with _exit at the N-th write to the disk, engine/store.h CrashPoint),
# evenly spaced over all of a run's points; when a run has fewer points than
# asked, the rest are kill -9 after evenly spaced delays over its duration.
#
# Environment: CRASH_POINTS (kill points per command; default 50),
# CRASH_ONLY (a space-separated subset of: import reimport sync link docs),
# CRASH_KEEP=1 keeps the work folder.
set -uo pipefail
FG=$(realpath "$1"); FAKE=$(realpath "$2"); SRC=$(realpath "$3")
POINTS=${CRASH_POINTS:-50}
ONLY=${CRASH_ONLY:-import reimport sync link docs}
WORK=$(mktemp -d /tmp/fixgraph-crash-XXXXXX)
FAKE_PID=
cleanup() {
  [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
  [ "${CRASH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
# Small link blocks: more writes, so more kill points inside a link run.
export FIXGRAPH_LINK_BATCH=4
export FIXGRAPH_HTTP_BACKOFF_MS=5
unset FIXGRAPH_CRASH_AT FIXGRAPH_CRASH_COUNT

QUERIES=("aclnn error 561000" "HCCL timeout" "torch_npu import error")

fail=0
report() { echo "$*" | tee -a "$WORK/report.txt"; }

# A changed copy of the demo dump: edited titles and bodies, a reopened and a
# closed issue, PR bodies that name other issues (new and lost links).
python3 - "$SRC/data/demo" "$WORK/dumpB" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
n = 0
for root, dirs, files in sorted(os.walk(dst)):
    dirs.sort()
    for name in ("issues.json", "pulls.json"):
        if name not in files:
            continue
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as f:
            items = json.load(f)
        if not isinstance(items, list):
            continue
        for i, it in enumerate(items):
            n += 1
            if not isinstance(it, dict):
                continue
            if n % 2 == 0 and isinstance(it.get("title"), str):
                it["title"] += " (edited: NPU memory leak after upgrade)"
            if name == "pulls.json" and n % 3 == 0:
                it["body"] = (it.get("body") or "") + "\n\nfixes #" + str(1 + n % 7)
            if name == "pulls.json" and n % 5 == 0:
                it["body"] = "rewritten description without references"
            if name == "issues.json" and n % 4 == 0 and it.get("state") in ("closed", "open"):
                it["state"] = "open" if it["state"] == "closed" else "closed"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(items, f, ensure_ascii=False)
PY

# Two doc trees for docs import (the second replaces and adds nodes).
mkdocs() {  # DIR NODES TAG
  mkdir -p "$1"
  for i in $(seq "$2"); do
    printf '# Error %s code E%05d (%s)\n\nThe NPU reports E%05d when HCCL times out during torch_npu init. %s\n\n## Fix\n\nSet the environment variable HCCL_CONNECT_TIMEOUT to %s.\n' \
      "$i" "$i" "$3" "$i" "$3" "$((i * 10))" > "$1/page$i.md"
  done
}
mkdocs "$WORK/docsA" 40 first
mkdocs "$WORK/docsB" 80 second

# The fake API picks a free port itself (port 0) and names it on stderr, so
# it never collides with another test's loopback server.
PORT=
start_fake() {
  "$FAKE" --dump "$WORK/dumpB" --listen 127.0.0.1:0 2>"$WORK/fake.log" &
  FAKE_PID=$!
  for _ in $(seq 100); do
    PORT=$(sed -n 's|.* at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/fake.log" | head -1)
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  report "the fake API did not start: $(cat "$WORK/fake.log")"
  return 1
}
SYNC_REPOS=$(cd "$WORK/dumpB" && for p in */*/*; do [ -d "$p" ] && echo "${p%%/*}:${p#*/}"; done | tr '\n' ' ')

# What a store answers, with run-dependent fields (timings, paths) dropped.
snapshot() {  # DB OUT
  {
    echo "== links"; "$FG" --db "$1" links --json 2>&1
    echo "== stats"; "$FG" --db "$1" stats --json 2>&1 | jq -S 'del(.db, .seconds, .disk_bytes)'
    for q in "${QUERIES[@]}"; do
      echo "== ask $q"
      "$FG" --db "$1" ask --json "$q" 2>&1 | jq -S 'walk(if type == "object" then del(.seconds, .took_ms, .elapsed_ms) else . end)'
    done
  } > "$2"
}

# The commands of each scenario: setup DB; victim DB (killed); next DB.
setup_import()   { :; }
victim_import()  { "$FG" --db "$1" import "$SRC/data/demo"; }
setup_reimport() { "$FG" --db "$1" import "$SRC/data/demo"; }
victim_reimport(){ "$FG" --db "$1" import "$WORK/dumpB"; }
setup_sync()     { "$FG" --db "$1" import "$SRC/data/demo"; }
# shellcheck disable=SC2086
victim_sync()    { "$FG" --db "$1" sync $SYNC_REPOS --api-base "http://127.0.0.1:$PORT/api/v5" --rate-limit 0 --per-page 5; }
setup_link()     { "$FG" --db "$1" import "$SRC/data/demo" && "$FG" --db "$1" import --no-link "$WORK/dumpB"; }
victim_link()    { "$FG" --db "$1" link; }
setup_docs()     { "$FG" --db "$1" import "$SRC/data/demo" && "$FG" --db "$1" docs import "$WORK/docsA"; }
victim_docs()    { "$FG" --db "$1" docs import "$WORK/docsB"; }

now() { date +%s.%N; }

run_scenario() {  # NAME
  local name=$1 dir=$WORK/$1
  mkdir -p "$dir"
  "setup_$name" "$dir/setup" >/dev/null 2>"$dir/setup.err" || { report "$name: setup failed: $(cat "$dir/setup.err")"; fail=1; return; }
  [ -d "$dir/setup" ] || mkdir -p "$dir/setup"
  # The uninterrupted run, its crash points and its duration.
  cp -a "$dir/setup" "$dir/ref"
  local t0 t1
  t0=$(now)
  FIXGRAPH_CRASH_COUNT=1 "victim_$name" "$dir/ref" >/dev/null 2>"$dir/ref.err"
  local rc=$?
  t1=$(now)
  if [ $rc -ne 0 ]; then report "$name: uninterrupted run failed ($rc): $(tail -3 "$dir/ref.err")"; fail=1; return; fi
  local total duration
  total=$(sed -n 's/^crash points: //p' "$dir/ref.err" | tail -1)
  duration=$(echo "$t1 - $t0" | bc -l)
  snapshot "$dir/ref" "$dir/ref.snap"
  # Kill points: crash points first, then timed kills.
  local points=() n_cp=$(( total < POINTS ? total : POINTS )) i
  for i in $(seq 1 "$n_cp"); do points+=("cp:$(( (i * total + n_cp - 1) / n_cp ))"); done
  for i in $(seq 1 $(( POINTS - n_cp ))); do
    points+=("t:$(echo "$duration * $i / ($POINTS - $n_cp + 1)" | bc -l)")
  done
  local diffs=0 killed=0 p db
  for p in "${points[@]}"; do
    db=$dir/run
    rm -rf "$db"; cp -a "$dir/setup" "$db"
    if [ "${p%%:*}" = cp ]; then
      FIXGRAPH_CRASH_AT=${p#cp:} "victim_$name" "$db" >/dev/null 2>"$dir/victim.err"
      rc=$?
    else
      ( "victim_$name" "$db" >/dev/null 2>"$dir/victim.err" ) &
      local vpid=$!
      sleep "${p#t:}"
      # The fixgraph process: the subshell itself when bash exec'd it, else its child.
      local fg kids k
      fg=$vpid
      [ "$(cat /proc/$vpid/comm 2>/dev/null)" = fixgraph ] || fg=$(pgrep -P "$vpid" | head -1)
      [ -n "$fg" ] || fg=$vpid
      kids=$(pgrep -P "$fg")  # Xapian's lock holder, if any: it exits once fixgraph is gone
      kill -KILL "$fg" 2>/dev/null
      wait "$vpid"; rc=$?
      for k in $kids; do
        for _ in $(seq 100); do kill -0 "$k" 2>/dev/null || break; sleep 0.05; done
      done
    fi
    [ $rc -ne 0 ] && killed=$((killed + 1))
    # The next command: the same one again.
    if ! "victim_$name" "$db" >/dev/null 2>"$dir/next.err"; then
      report "$name $p: the next run failed: $(tail -3 "$dir/next.err")"
      diffs=$((diffs + 1)); fail=1; continue
    fi
    snapshot "$db" "$dir/run.snap"
    if ! cmp -s "$dir/ref.snap" "$dir/run.snap"; then
      diffs=$((diffs + 1)); fail=1
      report "$name $p: differs from the uninterrupted run:"
      diff "$dir/ref.snap" "$dir/run.snap" | head -20 | tee -a "$WORK/report.txt"
      [ "${CRASH_KEEP:-0}" = 1 ] && cp -a "$db" "$dir/differs-${p//[:.]/_}"
    fi
  done
  report "$name: ${#points[@]} kill points ($n_cp of $total crash points, $(( ${#points[@]} - n_cp )) timed over ${duration%????}s), $killed runs ended early, $diffs differences"
}

for s in $ONLY; do
  if [ "$s" = sync ] && ! start_fake; then fail=1; continue; fi
  run_scenario "$s"
done
[ "${CRASH_KEEP:-0}" = 1 ] && echo "work folder: $WORK"
exit $fail
