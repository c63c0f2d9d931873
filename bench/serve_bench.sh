#!/usr/bin/env bash
# HTTP throughput of `fixgraph serve` on loopback, driven by wrk.
#
#   bench/serve_bench.sh [BUILD_DIR]       (default: build; needs fixgraph, fixgraph_gen_dump, wrk)
#
# Generates a synthetic GitCode dump (REPOS repositories, ISSUES issues in total, as many PRs),
# imports it (link + ask index), starts `fixgraph serve` on a free port and runs wrk with
# CONNS connections on THREADS wrk threads for DURATION per endpoint:
#   healthz  GET /healthz                         (baseline: the HTTP stack, no data access)
#   show     GET /api/v1/show?ref=<issue>         (one store read + links)
#   ask      GET /api/v1/ask?q=<symptom>&limit=5  (Xapian search + hits)
#   askmix   the same endpoint over the query mix an agent sends (issue 25): 30% three words
#            of a real title, 20% short generic symptoms (bench/generic_symptoms.txt: 24 in English and
#            Chinese: "EZ9999", "HCCL timeout 910B", "显存不足", "out of memory rank", ...),
#            20% an error code or identifier from an issue body, 15% a pasted log line
#            (an error line of a body's log), 15% the Chinese words of a title
#   askhw    the same endpoint, 300 title-word and generic questions with " 910B" added: each
#            names hardware, so each one searches the KG docs too (needs `docs import`)
# Each endpoint cycles through its requests (500 issue refs; 480 title-word queries; the
# mix's 600, in a fixed shuffled order). Prints requests/s, p50/p99 latency, non-2xx responses,
# socket errors, the server's RSS before and after each run, and the server's CPU time
# (user + system) per request over the measured run: on a shared machine that figure is
# steadier than requests/s; 2 cores give at most 2000 / cpu_ms requests per second. Set
# DB=DIR to reuse an imported store (skips generation and import). MIX_SET=FILE also writes the
# askmix queries, each with its kind (title, generic, code, log, chinese), as an `eval-ask` set
# (`eval-ask --json --queries FILE` reports them by kind); with MIX_ONLY=1 it stops there.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD_DIR=${1:-build}
REPOS=${REPOS:-4}
ISSUES=${ISSUES:-100000}
CONNS=${CONNS:-8}
THREADS=${THREADS:-2}
DURATION=${DURATION:-30s}
ENDPOINTS=${ENDPOINTS:-"healthz show ask askmix"}
FG=$(realpath "$BUILD_DIR/cli/fixgraph")
GEN=$(realpath "$BUILD_DIR/bench/fixgraph_gen_dump")
command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }
WORK=$(mktemp -d /tmp/fixgraph-serve-bench-XXXXXX)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

if [ -z "${DB:-}" ]; then
  DB=$WORK/db
  per_repo=$((ISSUES / REPOS))
  echo "generating $REPOS x $per_repo issues (and as many PRs)..." >&2
  "$GEN" --out "$WORK/dump" --repos "$REPOS" --issues "$per_repo" --comments 2 --seed 11 >/dev/null 2>&1
  echo "importing (link + index)..." >&2
  s=$(date +%s)
  "$FG" --db "$DB" import "$WORK/dump" >/dev/null
  echo "imported in $(( $(date +%s) - s )) s" >&2
fi

# Request lists: issue refs and symptom queries from the stored issues.
"$FG" --db "$DB" links --json | python3 -c '
import json, sys, random, urllib.parse
random.seed(5)
refs = [json.loads(l)["issue"] for l in sys.stdin]
random.shuffle(refs)
with open(sys.argv[1], "w") as f:
    for r in refs[:500]:
        f.write("/api/v1/show?ref=" + urllib.parse.quote(r, safe="") + "\n")
with open(sys.argv[3], "w") as f:
    f.write(" ".join(refs[:120]))
' "$WORK/show.txt" "" "$WORK/refs.txt"
: > "$WORK/ask.txt"
: > "$WORK/issues.jsonl"
for ref in $(tr ' ' '\n' < "$WORK/refs.txt" | head -120); do
  "$FG" --db "$DB" show --json "$ref" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({"ref": d["issue"]["ref"], "title": d["issue"]["title"], "body": d["issue"]["body"] or ""}))
' >> "$WORK/issues.jsonl"
done
python3 - "$WORK/issues.jsonl" "$WORK/ask.txt" "$WORK/askmix.txt" "$HERE/generic_symptoms.txt" "$WORK/askhw.txt" "${MIX_SET:-}" <<'PY'
import json, random, re, sys, urllib.parse
issues = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
def url(q): return "/api/v1/ask?limit=5&q=" + urllib.parse.quote(q)
title_words = []
for d in issues:
    words = [w for w in d["title"].replace(",", " ").split() if len(w) > 2]
    rnd = random.Random(d["ref"])
    for _ in range(4):
        if not words: break
        title_words.append(" ".join(rnd.sample(words, min(3, len(words)))))
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for q in title_words: f.write(url(q) + "\n")
# The mix: what agents send besides title words.
generic = [l.strip() for l in open(sys.argv[4], encoding="utf-8") if l.strip()]
code = re.compile(r"\b(?:E[A-Z0-9]\d{4}|-?\d{6,}|[a-z]+[A-Z]\w{5,})\b")
codes, logs, chinese = [], [], []
for d in issues:
    codes += code.findall(d["body"])
    logs += [l.strip() for l in d["body"].splitlines()
             if re.search(r"error|Error|ERROR|failed|报错|失败", l) and 20 <= len(l.strip()) <= 300]
    zh = " ".join(re.findall(r"[\u4e00-\u9fff]+", d["title"]))
    if zh: chinese.append(zh)
rnd = random.Random(11)
def take(pool, n): return [rnd.choice(pool) for _ in range(n)] if pool else []
def kind(name, qs): return [(q, name) for q in qs]
mix = (kind("title", take(title_words, 180)) + kind("generic", take(generic, 120)) +
       kind("code", take(codes, 120)) + kind("log", take(logs, 90)) + kind("chinese", take(chinese, 90)))
rnd.shuffle(mix)
with open(sys.argv[3], "w", encoding="utf-8") as f:
    for q, _ in mix: f.write(url(q) + "\n")
if sys.argv[6]:
    with open(sys.argv[6], "w", encoding="utf-8") as f:
        json.dump([{"q": q, "kind": k, "expect": []} for q, k in mix], f, ensure_ascii=False, indent=1)
hw = take(title_words, 200) + take(generic, 100)
rnd.shuffle(hw)
with open(sys.argv[5], "w", encoding="utf-8") as f:
    for q in hw: f.write(url(q + " 910B") + "\n")
PY
[ "${MIX_ONLY:-0}" = 1 ] && { echo "wrote ${MIX_SET:-nothing: MIX_SET is not set}" >&2; exit 0; }
for i in $(seq 1 10); do echo "/healthz"; done > "$WORK/healthz.txt"

cat > "$WORK/paths.lua" <<'LUA'
local paths = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  i = math.random(#paths)
end
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA

"$FG" --db "$DB" serve --listen 127.0.0.1:0 2> "$WORK/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do
  grep -q "listening on" "$WORK/serve.err" 2>/dev/null && break
  sleep 0.1
done
PORT=$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$WORK/serve.err")
[ -n "$PORT" ] || { cat "$WORK/serve.err" >&2; exit 1; }
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$SERVER/status"; }
# Server CPU seconds so far (utime + stime; the command name has no spaces).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$SERVER/stat"; }

printf "%-8s %10s %9s %9s %9s %8s %8s %8s %11s\n" endpoint req_per_s p50_ms p99_ms non2xx sockerr rss0_mb rss1_mb cpu_ms_req
for ep in $ENDPOINTS; do
  # Warm up (caches, thread pool), then measure.
  wrk -t "$THREADS" -c "$CONNS" -d 3s -s "$WORK/paths.lua" "http://127.0.0.1:$PORT" -- "$WORK/$ep.txt" >/dev/null
  r0=$(rss)
  c0=$(cpu_s)
  out=$(wrk -t "$THREADS" -c "$CONNS" -d "$DURATION" --latency -s "$WORK/paths.lua" \
        "http://127.0.0.1:$PORT" -- "$WORK/$ep.txt")
  r1=$(rss)
  c1=$(cpu_s)
  echo "$out" > "$WORK/wrk-$ep.txt"
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  ms() { echo "$out" | awk -v p="$1" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; printf "%.2f", v}'; }
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}'); non2xx=${non2xx:-0}
  sockerr=$(echo "$out" | awk '/Socket errors/ {gsub(",",""); print $4+$6+$8+$10}'); sockerr=${sockerr:-0}
  nreq=$(echo "$out" | awk '/requests in/ {print $1}')
  cpu_req=$(awk -v a="$c0" -v b="$c1" -v n="$nreq" 'BEGIN {printf "%.3f", (n > 0 ? (b - a) * 1000 / n : 0)}')
  printf "%-8s %10s %9s %9s %9s %8s %8s %8s %11s\n" "$ep" "$rps" "$(ms 50%)" "$(ms 99%)" "$non2xx" "$sockerr" "$r0" "$r1" "$cpu_req"
done
