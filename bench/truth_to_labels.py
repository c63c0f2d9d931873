#!/usr/bin/env python3
"""Turn fixgraph_gen_dump's answer key (--truth, JSON lines) into a labels file for
`fixgraph eval --labels`, so the linker can be scored on synthetic data it was not tuned on.

    bench/truth_to_labels.py TRUTH.jsonl > labels.json

Mapping: outcome fixed -> resolution fixed with the fixing PR and every merged backport of it;
verified (closed after a maintainer's verification of a fix made elsewhere) -> fixed_elsewhere;
answered, duplicate (with duplicate_of), stale, wontfix, open -> the same name. Tiers are not
labelled (the generator does not grade its evidence), so tier accuracy is not measured.
"""
import json
import sys

RESOLUTION = {"fixed": "fixed", "verified": "fixed_elsewhere", "answered": "answered",
              "duplicate": "duplicate", "stale": "stale", "wontfix": "wontfix", "open": "open"}


def main(path):
    issues, fixes = [], {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: not JSON: {e}")
            if "pr" in row:
                if row.get("state") == "merged" and row.get("kind") in ("fix", "backport"):
                    for issue in row.get("fixes", []):
                        fixes.setdefault((row["repo"], issue), []).append(f"{row['repo']}!{row['pr']}")
            else:
                issues.append(row)
    out = []
    for row in issues:
        key = (row["repo"], row["issue"])
        label = {"issue": f"{row['repo']}#{row['issue']}",
                 "resolution": RESOLUTION.get(row["outcome"], "unknown"),
                 "fixes": [], "flags": []}
        if row["outcome"] == "fixed":
            label["fixes"] = [{"pr": pr} for pr in sorted(set(fixes.get(key, [])))]
        if row["outcome"] == "duplicate" and "duplicate_of" in row:
            label["duplicate_of"] = f"{row['repo']}#{row['duplicate_of']}"
        out.append(label)
    json.dump({"version": 1, "issues": out}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: truth_to_labels.py TRUTH.jsonl > labels.json")
    main(sys.argv[1])
