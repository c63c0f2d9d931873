#!/usr/bin/env python3
"""Compare a generated digest (fixgraph digest --format json) with the seed digest.

The seed (shared/seed/000_*.txt) is a hand-made digest of 50 issues. Its per-repository tables
give the entries (repository, issue number, answer summary); what the seed says about each
entry's fix PR and evidence strength is recorded in tests/data/demo-labels.json (seed=true),
which this script cross-checks against the seed text (every labelled PR number must appear in
the seed's row). For each entry it reports whether the digest includes the issue, names the
same fix PR(s) and gives the same evidence tier, and lists every difference with the reason
the digest data gives (exclusion reason, evidence kinds behind the tier).

Usage:
  bench/digest_vs_seed.py --seed SEED.txt --labels tests/data/demo-labels.json --digest D.json
Prints a Markdown section (for docs/evaluation.md) and exits 0; --min-same N makes it exit 1
when fewer than N entries match on both fix PR and tier.
"""
import argparse
import json
import re
import sys


def parse_seed(path):
    lines = [l.rstrip("\n") for l in open(path, encoding="utf-8")]
    names = []
    i = 0
    while i < len(lines) and not lines[i].startswith("仓库\t定位"):
        i += 1
    i += 1
    while i < len(lines) and "\t" in lines[i]:
        names.append(lines[i].split("\t")[0].strip())
        i += 1
    entries = []
    current = None
    for line in lines[i:]:
        head = line.split("（")[0].strip()
        if head in names and "\t" not in line:
            current = head
            continue
        if current and re.match(r"^#\d+\t", line):
            cols = line.split("\t")
            entries.append({"repo_name": current, "number": cols[0][1:], "problem": cols[1],
                            "summary": cols[2] if len(cols) > 2 else ""})
        if line.startswith("组合解读"):
            break
    return names, entries


def map_repos(names, refs):
    """Seed repository names -> canonical refs ('gitcode:Ascend/docs')."""
    out, used = {}, set()
    full = {r.split(":", 1)[1]: r for r in refs}
    for n in names:
        if "/" in n and n in full:
            out[n] = full[n]
            used.add(full[n])
    for n in names:
        if n in out:
            continue
        cands = sorted(r for r in refs if r.rsplit("/", 1)[1] == n and r not in used)
        if cands:
            out[n] = cands[0]
            used.add(cands[0])
    return out


def canon(pr):
    """A PR URL as written in the labels -> its canonical ref."""
    m = re.match(r"https://(gitcode|gitee)\.com/(.+)/([^/]+)/(?:merge_requests|pulls)/(\d+)", pr)
    return f"{m.group(1)}:{m.group(2)}/{m.group(3)}!{m.group(4)}" if m else pr


def short(pr):
    return "!" + pr.rsplit("!", 1)[1] if "!" in pr else pr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", required=True)
    ap.add_argument("--labels", required=True)
    ap.add_argument("--digest", required=True)
    ap.add_argument("--min-same", type=int, default=0)
    a = ap.parse_args()

    names, entries = parse_seed(a.seed)
    labels = {l["issue"]: l for l in json.load(open(a.labels, encoding="utf-8"))["issues"]}
    digest = json.load(open(a.digest, encoding="utf-8"))
    cases = {c["issue"]: c for r in digest["repos"] for c in r["cases"]}
    excluded = {e["issue"]: e for e in digest["disclosure"]["excluded"]}
    refs = set(labels) | set(cases) | set(excluded)
    repo_refs = sorted({r.rsplit("#", 1)[0] for r in refs})
    repo_of = map_repos(names, repo_refs)

    rows, same_both, included, same_pr_n = [], 0, 0, 0
    label_mismatch = []
    for e in entries:
        ref = repo_of.get(e["repo_name"], "?") + "#" + e["number"]
        lab = labels.get(ref)
        if lab is None:
            rows.append((ref, "no label for this seed entry", ""))
            continue
        for f in lab["fixes"]:
            m = re.search(r"(\d+)/?$", f["pr"].rsplit("!", 1)[-1])
            num = m.group(1) if m else f["pr"]
            if num not in e["summary"]:
                label_mismatch.append(f"{ref}: labelled {short(f['pr'])} is not named in the seed row")
        want = [(canon(f["pr"]), f["tier"]) for f in lab["fixes"]]
        c = cases.get(ref)
        if c is None:
            x = excluded.get(ref)
            why = f"excluded as `{x['reason']}`: {x['detail']}" if x else "not in the digest"
            rows.append((ref, "not included", why))
            continue
        included += 1
        got = {f["pr"]: f for f in c["fixes"]}
        if not want:
            same_pr = not got
            same_tier = same_pr
        else:
            same_pr = want[0][0] in got
            same_tier = same_pr and got[want[0][0]]["tier"] == want[0][1]
        same_pr_n += same_pr
        if same_pr and same_tier:
            same_both += 1
            extra = [short(p) for p in got if p not in dict(want)]
            missing = [short(p) for p, _ in want[1:] if p not in got]
            if extra or missing:
                note = []
                if missing:
                    note.append("seed also names " + ", ".join(missing))
                if extra:
                    note.append("digest also names " + ", ".join(extra))
                rows.append((ref, "same primary fix and tier; companions differ", "; ".join(note)))
            continue
        if not want:
            rows.append((ref, "seed: no PR; digest names " + ", ".join(
                f"{short(p)} ({f['tier']})" for p, f in got.items()),
                "resolution " + c["resolution"]))
        elif not same_pr:
            rows.append((ref, f"seed fix {short(want[0][0])} ({want[0][1]}); digest: " + (
                ", ".join(f"{short(p)} ({f['tier']})" for p, f in got.items()) or "no PR"),
                "resolution " + c["resolution"]))
        else:
            f = got[want[0][0]]
            kinds = ", ".join(ev["kind"] for ev in f["evidence"])
            rows.append((ref, f"{short(want[0][0])}: seed tier {want[0][1]}, digest tier {f['tier']}",
                         f"digest evidence: {kinds}"))

    n = len(entries)
    print(f"Seed entries parsed: {n} (from {len(names)} repositories in the seed's overview).")
    print(f"Included in the generated digest: {included} of {n}.")
    print(f"Same fix PR (or both no PR): {same_pr_n} of {n}; same fix PR and same evidence tier: "
          f"**{same_both} of {n}**.")
    if label_mismatch:
        print("\nLabel cross-check against the seed text:")
        for m in label_mismatch:
            print(f"- {m}")
    print("\n| issue | difference | reason (from the digest data) |\n|---|---|---|")
    for ref, what, why in rows:
        print(f"| `{ref.split(':', 1)[1]}` | {what} | {why.replace('|', '/')} |")
    return 0 if same_both >= a.min_same else 1


if __name__ == "__main__":
    sys.exit(main())
