#!/usr/bin/env bash
# Seed inputs for a fuzz harness: tests/fuzz/seeds.sh NAME DIR copies small
# files of data/demo, data/kg, tests/data and tests/fuzz/seeds/ into DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=$1 out=$2
mkdir -p "$out"
n=0
add() {  # add FILE...: each file under 64 KiB, renamed to avoid clashes
  local f
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$out/seed-$n"
    n=$((n + 1))
  done
}
case "$name" in
  json_reader|mapper_*)
    mapfile -t files < <(find data/demo -name '*.json' | sort)
    add "${files[@]}" tests/data/queries.json tests/fuzz/seeds/json/* ;;
  mentions)
    mapfile -t files < <(find data/demo -name 'issues.json' -o -name 'comments.json' | sort | head -n 60)
    add "${files[@]}" tests/fuzz/seeds/text/* ;;
  time) add tests/fuzz/seeds/time/* ;;
  tar)  # small archives of demo repositories, as GNU tar writes them (ustar, pax)
    for fmt in gnu pax; do
      tar --format="$fmt" -cf "$out/seed-$fmt.tar" -C data/demo gitcode/Ascend/docs 2>/dev/null || true
    done ;;
  analyzer) add tests/data/queries.json data/kg/nodes.jsonl tests/fuzz/seeds/text/* ;;
  docs_parse) add data/kg/nodes.jsonl tests/fuzz/seeds/markdown/* ;;
  mcp_line) add tests/fuzz/seeds/mcp/* ;;
  http_request) add tests/fuzz/seeds/http/* ;;
  *) echo "seeds.sh: unknown harness $name" >&2; exit 2 ;;
esac
