#!/usr/bin/env python3
"""A plain baseline for `fixgraph ask`: SQLite FTS5 (unicode61 tokenizer, BM25)
over the same texts the issue index holds (title, body, comments), read
straight from a recorded dump (design.md s3).

  bench/ask_baseline.py eval    --dump DIR --queries tests/data/queries.json [--json]
  bench/ask_baseline.py latency --dump DIR --queries FILE [--runs N]

`eval` prints Recall@1, Recall@5 and MRR like `fixgraph eval-ask`; `latency`
prints p50/p99 query milliseconds (wall), the p50 of the CPU time per query and
the index build seconds (wall and CPU). The query is
every word of the text OR-ed together (what a plain full-text search does).
"""
import argparse
import json
import pathlib
import re
import sqlite3
import sys
import time

WORD = re.compile(r"\w+", re.UNICODE)


def issue_texts(dump):
    root = pathlib.Path(dump)
    for issues_file in sorted(root.glob("*/*/*/issues.json")):
        repo_dir = issues_file.parent
        platform, owner, repo = repo_dir.relative_to(root).parts
        for issue in json.load(open(issues_file, encoding="utf-8")):
            number = str(issue.get("number"))
            comments = []
            cfile = repo_dir / "issues" / number / "comments.json"
            if cfile.exists():
                try:
                    comments = [c.get("body") or "" for c in json.load(open(cfile, encoding="utf-8"))]
                except ValueError:
                    comments = []
            yield (f"{platform}:{owner}/{repo}#{number}", issue.get("title") or "",
                   issue.get("body") or "", "\n".join(comments))


def build(dump):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE issues USING fts5(ref UNINDEXED, title, body, comments)")
    t0 = time.perf_counter()
    c0 = time.process_time()
    n = 0
    for row in issue_texts(dump):
        db.execute("INSERT INTO issues VALUES (?, ?, ?, ?)", row)
        n += 1
    db.commit()
    return db, n, time.perf_counter() - t0, time.process_time() - c0


def search(db, text, limit=10):
    words = list(dict.fromkeys(WORD.findall(text)))[:64]
    if not words:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    rows = db.execute("SELECT ref FROM issues WHERE issues MATCH ? ORDER BY bm25(issues, 0, 4, 2, 1) LIMIT ?",
                      (match, limit)).fetchall()
    return [r[0] for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["eval", "latency"])
    ap.add_argument("--dump", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    db, n, build_s, build_cpu_s = build(a.dump)
    queries = json.load(open(a.queries, encoding="utf-8"))
    if a.mode == "latency":
        ms, cpu = [], []
        for _ in range(a.runs):
            for q in queries:
                text = q["q"] if isinstance(q, dict) else q
                t0 = time.perf_counter()
                c0 = time.thread_time()
                search(db, text, 5)
                cpu.append((time.thread_time() - c0) * 1000)
                ms.append((time.perf_counter() - t0) * 1000)
        ms.sort()
        cpu.sort()
        out = {"issues": n, "build_s": build_s, "build_cpu_s": build_cpu_s, "p50_ms": ms[len(ms) // 2],
               "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))], "cpu_p50_ms": cpu[len(cpu) // 2],
               "queries": len(ms)}
        print(json.dumps(out))
        return
    r1 = r5 = 0
    mrr = 0.0
    for q in queries:
        got = search(db, q["q"], 10)
        expect = set(q["expect"])
        rank = next((i + 1 for i, g in enumerate(got) if g in expect), 0)
        r1 += rank == 1
        r5 += 1 <= rank <= 5
        mrr += 1.0 / rank if rank else 0.0
    k = len(queries) or 1
    out = {"queries": len(queries), "recall_at_1": r1 / k, "recall_at_5": r5 / k, "mrr": mrr / k}
    if a.json:
        print(json.dumps(out))
    else:
        print(f"queries {out['queries']}  Recall@1 {out['recall_at_1']:.3f}  "
              f"Recall@5 {out['recall_at_5']:.3f}  MRR {out['mrr']:.3f}")


if __name__ == "__main__":
    sys.exit(main())
