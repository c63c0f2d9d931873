#!/usr/bin/env bash
# Process start-up of the fixgraph binary: `fixgraph --version` as built (libcurl is loaded
# by the first HTTP request, ingest/http_curl.cc; cpp-httplib only by fixgraph-serve,
# cli/serve.h) against the same binary with libcurl preloaded (LD_PRELOAD: the cost a linked
# libcurl and its 23 dependencies put on every command) and with cpp-httplib preloaded (its
# OpenSSL set-up at load). The three alternate round by round, so a busy machine slows all
# alike.
#
#   bench/startup_bench.sh [BUILD_DIR] [ROUNDS] [STARTS]   (defaults: build 15 20)
#
# Prints the median over ROUNDS of the mean time of one start in a round of STARTS.
set -euo pipefail
build=${1:-build}
rounds=${2:-15}
starts=${3:-20}
fg="$build/cli/fixgraph"
[ -x "$fg" ] || { echo "startup_bench: no $fg (build first: scripts/dev build)" >&2; exit 2; }
curl=$(ldconfig -p | sed -n 's/.*libcurl\.so\.4 (libc6,x86-64) => //p' | head -n 1)
[ -n "$curl" ] || { echo "startup_bench: libcurl.so.4 not found by ldconfig" >&2; exit 2; }
httplib=$(ldconfig -p | sed -n 's/.*libcpp-httplib\.so\.[0-9.]* (libc6,x86-64) => //p' | head -n 1)
[ -n "$httplib" ] || { echo "startup_bench: libcpp-httplib not found by ldconfig" >&2; exit 2; }
ns() { date +%s%N; }
built=() preloaded=() with_httplib=()
for _ in $(seq "$rounds"); do
  t0=$(ns)
  for _ in $(seq "$starts"); do "$fg" --version >/dev/null; done
  t1=$(ns)
  for _ in $(seq "$starts"); do LD_PRELOAD=$curl "$fg" --version >/dev/null; done
  t2=$(ns)
  for _ in $(seq "$starts"); do LD_PRELOAD=$httplib "$fg" --version >/dev/null; done
  t3=$(ns)
  built+=($(((t1 - t0) / starts / 1000)))
  preloaded+=($(((t2 - t1) / starts / 1000)))
  with_httplib+=($(((t3 - t2) / starts / 1000)))
done
median_ms() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {printf "%.1f", v[int((NR + 1) / 2)] / 1000}'; }
a=$(median_ms "${built[@]}")
b=$(median_ms "${preloaded[@]}")
c=$(median_ms "${with_httplib[@]}")
echo "fixgraph --version: ${a} ms as built, ${b} ms with libcurl preloaded" \
  "($(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')x), ${c} ms with cpp-httplib preloaded" \
  "($(awk -v a="$a" -v c="$c" 'BEGIN {printf "%.2f", a / c}')x; medians of $rounds rounds of $starts starts;" \
  "shared libraries: $(ldd "$fg" | grep -c '=>') as built)"
