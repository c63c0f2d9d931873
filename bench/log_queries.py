#!/usr/bin/env python3
"""Pasted-log-line queries made from a synthetic dump, for the ask benchmarks.

    bench/log_queries.py DUMP N QUERIES_OUT [--own-numbers]

The error lines of the dump's issue bodies (20-300 characters, holding error,
Error, ERROR, failed, 报错 or 失败) that at most 20 issues hold, shuffled (seed
7); the first N, each as {"q": the line, "expect": [every issue holding it],
"kind": "log"}: the set `fixgraph eval-ask --queries` reads.

--own-numbers: each number of 3 or more digits standing alone (not part of a
word or an identifier, not after a dot) is replaced by as many random digits
(seed 3), as in a user's own log of the same error: other process ids, times,
line numbers, sizes. The expected issues stay those holding the original line.
"""
import collections, json, pathlib, random, re, sys

args = [a for a in sys.argv[1:] if a != "--own-numbers"]
if len(args) != 3 or len(sys.argv) > 5:
    sys.exit("usage: bench/log_queries.py DUMP N QUERIES_OUT [--own-numbers]")
root, n, out = pathlib.Path(args[0]), int(args[1]), args[2]
own_numbers = "--own-numbers" in sys.argv[1:]
ERROR = re.compile(r"error|Error|ERROR|failed|报错|失败")
holders = collections.defaultdict(set)
for f in sorted(root.glob("*/*/*/issues.json")):
    platform, owner, repo = f.parent.relative_to(root).parts
    for issue in json.load(open(f, encoding="utf-8")):
        ref = f"{platform}:{owner}/{repo}#{issue['number']}"
        for line in (issue.get("body") or "").splitlines():
            line = line.strip()
            if ERROR.search(line) and 20 <= len(line) <= 300:
                holders[line].add(ref)
lines = [(line, refs) for line, refs in holders.items() if len(refs) <= 20]
random.Random(7).shuffle(lines)
lines = lines[:n]
if own_numbers:
    digits = random.Random(3)
    alone = re.compile(r"(?<![A-Za-z0-9_.])\d{3,}(?![A-Za-z0-9_])")
    other = lambda m: "".join(digits.choice("0123456789") for _ in m.group(0))
    lines = [(alone.sub(other, line), refs) for line, refs in lines]
with open(out, "w", encoding="utf-8") as f:
    json.dump([{"q": line, "expect": sorted(refs), "kind": "log"} for line, refs in lines],
              f, ensure_ascii=False)
