#!/usr/bin/env python3
"""Ask queries made from a synthetic dump, for the ask benchmarks.

    bench/ask_queries.py DUMP N QUERIES_OUT [EQUIV_OUT]

Shuffles the dump's issues (seed 5) and takes N queries, alternately: a
title with a third of its words dropped and the rest shuffled ("kind":
"title"), and one error code or identifier of an issue body ("kind": "code";
issues whose body holds none are passed over). QUERIES_OUT gets
[{"q", "expect": [the issue it came from], "kind"}]; EQUIV_OUT (when given)
the same queries expecting also every issue the query cannot tell apart from
it: the same title, or the same code in the body. Used by bench/ask_bench.sh
and bench/compare_bench.sh.
"""
import collections, json, pathlib, random, re, sys
root = pathlib.Path(sys.argv[1]); n = int(sys.argv[2]); rnd = random.Random(5)
CODE = re.compile(r"\b(?:E[A-Z0-9]\d{4}|-?\d{6,}|[a-z]+[A-Z]\w{5,})\b")
issues = []
for f in sorted(root.glob("*/*/*/issues.json")):
    platform, owner, repo = f.parent.relative_to(root).parts
    for i in json.load(open(f, encoding="utf-8")):
        issues.append((f"{platform}:{owner}/{repo}#{i['number']}", i.get("title") or "", i.get("body") or ""))
by_title = collections.defaultdict(list)
by_code = collections.defaultdict(set)
for ref, title, body in issues:
    by_title[title].append(ref)
    for c in set(CODE.findall(body)): by_code[c].add(ref)
rnd.shuffle(issues)
out, equiv = [], []
for ref, title, body in issues:
    if len(out) >= n: break
    if len(out) % 2 == 0:
        words = title.split()
        if len(words) > 3: words = rnd.sample(words, max(2, len(words) * 2 // 3))
        out.append({"q": " ".join(words), "expect": [ref], "kind": "title"})
        same = by_title[title]
    else:
        codes = CODE.findall(body)
        if not codes: continue
        code = rnd.choice(codes)
        out.append({"q": code, "expect": [ref], "kind": "code"})
        same = sorted(by_code[code])
    equiv.append(dict(out[-1], expect=[ref] + [r for r in same if r != ref]))
json.dump(out, open(sys.argv[3], "w"), ensure_ascii=False)
if len(sys.argv) > 4:
    json.dump(equiv, open(sys.argv[4], "w"), ensure_ascii=False)
