#!/usr/bin/env python3
"""Pasted-log-line queries made from a synthetic dump, for the ask benchmarks.

    bench/log_queries.py DUMP N QUERIES_OUT

The error lines of the dump's issue bodies (20-300 characters, holding error,
Error, ERROR, failed, 报错 or 失败) that at most 20 issues hold, shuffled (seed
7); the first N, each as {"q": the line, "expect": [every issue holding it],
"kind": "log"}: the set `fixgraph eval-ask --queries` reads.
"""
import collections, json, pathlib, random, re, sys

root, n, out = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
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
with open(out, "w", encoding="utf-8") as f:
    json.dump([{"q": line, "expect": sorted(refs), "kind": "log"} for line, refs in lines[:n]],
              f, ensure_ascii=False)
