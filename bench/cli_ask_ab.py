#!/usr/bin/env python3
"""Whole CLI `ask` processes of two fixgraph builds on the same store, alternated.

  bench/cli_ask_ab.py OLD_FIXGRAPH NEW_FIXGRAPH DB QUERIES [REPEAT]

QUERIES is a text file of one question a line (bench/generic_symptoms.txt) or a
JSON list of {"q": ...} (an eval-ask query file). Each question is asked REPEAT
times (default 5) by both builds, one after the other, the order swapped every
question, so a busy machine slows both alike. A run is the whole process, start
to answer (`ask --json --limit 5`). Prints p50, p99 and mean wall ms per build
and the ratios new / old.
"""
import json
import statistics
import subprocess
import sys
import time


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        return [q["q"] for q in json.loads(text)]
    return [line.strip() for line in text.splitlines() if line.strip()]


def run(fixgraph, db, question):
    start = time.perf_counter()
    subprocess.run([fixgraph, "--db", db, "ask", "--json", "--limit", "5", question],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def figures(times):
    times = sorted(times)
    return (statistics.median(times), times[max(0, int(len(times) * 0.99) - 1)],
            statistics.mean(times))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    old, new, db, path = sys.argv[1:5]
    repeat = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    questions = load(path) * repeat
    times = {old: [], new: []}
    for i, q in enumerate(questions):
        order = (old, new) if i % 2 else (new, old)
        for fixgraph in order:
            times[fixgraph].append(run(fixgraph, db, q))
    a, b = figures(times[old]), figures(times[new])
    print(f"{len(questions)} asks each")
    for name, f in (("old", a), ("new", b)):
        print(f"{name}: p50 {f[0]:.1f} ms, p99 {f[1]:.1f} ms, mean {f[2]:.1f} ms")
    print(f"new/old: p50 {b[0] / a[0]:.2f}, p99 {b[1] / a[1]:.2f}, mean {b[2] / a[2]:.2f}")


if __name__ == "__main__":
    main()
