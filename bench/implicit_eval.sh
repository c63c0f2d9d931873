#!/usr/bin/env bash
# Suggested fixes on the real implicit-linking dev set (../shared/data/implicit-dev):
# the linker's ranking beside the set's TF-IDF baseline, in one run.
#
#   bench/implicit_eval.sh [DEV_DIR] [WORK_DIR]
#
# DEV_DIR: any set of that layout (dump/, dump-noref/, labels-eval.json, score.py,
# vsm_baseline.py), of any one repository.
#
# Three stores are made from the set:
#   noref    dump-noref/ (references stripped, close times moved 20 min - 6 days after the fix)
#   notimes  dump-noref/ with every issue's created_at and closed_at removed (derived here):
#            all 3,086 PRs are candidates
#   ref      dump/ (references intact): every trusted link must be right
# and for each it prints:
#   - eval-suggest: P@1, Hit@5, MRR and the calibration of the ranking by 5-fold
#     cross-validation over the issues (each fold scored by weights fitted without it);
#   - score.py on `links --json` (trusted precision, and P@1 with the built-in weights,
#     which were fitted on the DeepSpeed set: in-sample there, printed for reference only;
#     out of sample on any other set);
#   - the TF-IDF baseline (vsm_baseline.py; --all for the no-times variant).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=${1:-../shared/data/implicit-dev}
WORK=${2:-$(mktemp -d /tmp/fixgraph-implicit.XXXXXX)}
FG=${FG:-build/cli/fixgraph}
[ -x "$FG" ] || { echo "build first: $FG is missing" >&2; exit 1; }
[ -d "$DEV/dump-noref" ] || { echo "no dev set at $DEV" >&2; exit 1; }
mkdir -p "$WORK"

# The no-times variant: the same dump without the issues' creation and close times.
rm -rf "$WORK/notimes-dump"
cp -r "$DEV/dump-noref" "$WORK/notimes-dump"
chmod -R u+w "$WORK/notimes-dump"
python3 - "$WORK/notimes-dump" <<'EOF'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*/*/*/issues.json"):  # platform/owner/repo
    issues = json.load(open(p))
    for i in issues:
        i["created_at"] = None
        i["closed_at"] = None
    json.dump(issues, open(p, "w"), ensure_ascii=False)
EOF

run() {  # name dump
  local name=$1 dump=$2 db="$WORK/$1"
  rm -rf "$db"
  "$FG" --db "$db" import "$dump" >/dev/null
  echo "== $name"
  "$FG" --db "$db" eval-suggest --labels "$DEV/labels-eval.json" --folds 5
  "$FG" --db "$db" links --json >"$WORK/$name.jsonl"
  echo "score.py (links --json, built-in weights, fitted on the DeepSpeed set: P@1/Hit@5 in-sample only there):"
  python3 "$DEV/score.py" "$WORK/$name.jsonl" | sed 's/^/  /'
  python3 "$DEV/score.py" "$WORK/$name.jsonl" --lenient | sed -n 's/^trusted/  lenient: trusted/p'
}

run noref "$DEV/dump-noref"
echo "baseline:"; python3 "$DEV/vsm_baseline.py" | sed 's/^/  /'
run notimes "$WORK/notimes-dump"
echo "baseline:"; python3 "$DEV/vsm_baseline.py" --all | sed 's/^/  /'
run ref "$DEV/dump"
echo "work files: $WORK"
