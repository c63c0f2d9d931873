#!/usr/bin/env bash
# Library code takes its configuration as options and setters; only cli/ reads
# the environment (docs/architecture.md, "Configuration"). Fails when a source
# file under engine/, ingest/, graph/ or query/ calls getenv/secure_getenv or
# reads environ outside a // comment.
#
# Usage: library_env_test.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: library_env_test.sh SOURCE_DIR}
cd "$src"

# Files still reading a variable, each with the change that removes it. An
# entry whose file no longer reads one fails too, so the list only shrinks.
declare -A allowed=()

found=$(find engine ingest graph query -type f \( -name '*.cc' -o -name '*.h' \) -print0 |
  xargs -0 awk '{ line = $0; sub(/\/\/.*/, "", line)
                  if (line ~ /(^|[^A-Za-z0-9_])(secure_)?getenv[ \t]*\(|(^|[^A-Za-z0-9_])environ([^A-Za-z0-9_]|$)/)
                    print FILENAME ":" FNR ": " $0 }' | sort)

status=0
offending=""
while IFS= read -r hit; do
  [ -z "$hit" ] && continue
  file=${hit%%:*}
  if [ -n "${allowed[$file]+x}" ]; then continue; fi
  offending+="$hit"$'\n'
done <<<"$found"
if [ -n "$offending" ]; then
  echo "library code reads the environment (read it in cli/ and pass the value in):"
  printf '%s' "$offending"
  status=1
fi
for file in "${!allowed[@]}"; do
  if ! grep -q "^$file:" <<<"$found"; then
    echo "$file no longer reads the environment: remove it from the list in $0"
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok: engine/ ingest/ graph/ query/ read no environment variable (allowed: ${!allowed[*]})"
exit $status
