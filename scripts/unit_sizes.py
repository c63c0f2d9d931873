#!/usr/bin/env python3
"""unit_sizes: lists the long units of fixgraph's sources (issue 24's size rule).

    scripts/unit_sizes.py [--root DIR] [--file-limit N=800] [--function-limit N=120]
                          [--allow FILE] [--check]

Scans every .cc and .h file under engine/ ingest/ graph/ query/ cli/ bench/ (tests/ is not
scanned) and prints one line per unit over its limit, longest first:

    file     <lines>  <path>
    function <lines>  <path>:<first line>  <name>

A function's length counts the lines from the first line of its signature (its template
line, if any) to its closing brace. With --allow (default scripts/unit_sizes.allow, if it
exists), units named there are exceptions: they are printed under "allowed" and do not count.
An allow-list line is `file <path>` or `function <path> <name>`, then `#` and the reason;
blank lines and lines starting with `#` are ignored. With --check the exit status is 1 when
a unit over its limit is not allowed, or when an allow-list entry names no long unit (a stale
exception); otherwise 0.

How functions are found (a scan, not a C++ parser):
- Comments, string and character literals (raw strings included) are blanked first, keeping
  the line breaks, so braces inside them do not count.
- Braces are matched. A `{` opened directly inside a file, namespace, class, struct or union
  body starts a function body when the text before it (back to the previous `;`, `{` or `}`
  at that level) contains a `(` and no `=` before that `(`, and does not start with a
  class-like keyword or `namespace`/`extern`. Member functions defined inside a class body
  count, as do out-of-line definitions (`Linker::CollectWindow`).
- Constructor initialiser lists with braces (`: a_{x}, b_(y) {`) are followed.
Limits: lambdas and local classes count toward the function that holds them and are never
reported on their own; a lambda assigned at namespace level (`auto f = [] {...};`) is not a
function; macros that expand to braces or signatures spread over `#if` branches can confuse
the scan. Good enough to find long units; read the code before acting on a line.
"""

import argparse
import os
import re
import sys

DIRS = ("engine", "ingest", "graph", "query", "cli", "bench")
CLASS_WORDS = ("class", "struct", "union", "enum")
RAW_STRING = re.compile(r'(?<![\w])(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(')


def blank_literals(text):
    """Returns text with comments and literals replaced by spaces, line breaks kept."""
    out = []
    i, n = 0, len(text)

    def blank(segment):
        return "".join(c if c == "\n" else " " for c in segment)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
            i = j
        elif c in "RuUL" and RAW_STRING.match(text, i):
            m = RAW_STRING.match(text, i)
            end = ")" + m.group(1) + '"'
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(text[i:j]))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or text[:i].rsplit("\n", 1)[-1].strip() == ""):
            # Preprocessor line (with continuations): not code for the brace scan.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            out.append(blank(text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def classify(header):
    """Kind of the brace whose preceding text is header: namespace, class, function or other."""
    h = header.strip()
    words = re.findall(r"[A-Za-z_]\w*", h)
    if not words:
        return "other"
    if words[0] == "namespace" or (words[0] == "extern" and '"' not in h and "(" not in h):
        return "namespace"
    if words[0] == "extern":
        return "namespace"
    # `template <...> class X`, `class X : public Y`, `enum class E : int`
    lead = re.sub(r"^template\s*<[^{;]*?>\s*", "", h)
    first = re.match(r"[A-Za-z_]\w*", lead)
    if first and first.group(0) in CLASS_WORDS and "(" not in lead.split(":")[0]:
        return "class"
    paren = h.find("(")
    if paren < 0:
        return "other"
    if "=" in h[:paren].replace("operator=", "").replace("==", "").replace("<=", "").replace(">=", "").replace("!=", ""):
        return "other"
    return "function"


def scan_functions(code):
    """Yields (first_line, last_line, name) of each function body in blanked code."""
    # stack entries: kind ("file", "namespace", "class", "function", "other")
    stack = ["file"]
    header_start = 0  # index where the current header starts (for container levels)
    open_at = []  # (kind, header_start_index, name) for each pushed brace
    i, n = 0, len(code)
    line_of = None
    results = []
    while i < n:
        c = code[i]
        top = stack[-1]
        if top in ("file", "namespace", "class"):
            if c == "{":
                header = code[header_start:i]
                kind = classify(header)
                if kind == "function":
                    # Brace initialiser inside a constructor's initialiser list: `x_{...}`.
                    before = header.rstrip()
                    close = before.rfind(")")
                    if close >= 0 and before and (before[-1].isalnum() or before[-1] in "_>") \
                            and re.search(r"\)\s*(?:noexcept\s*)?:", before):
                        depth, j = 0, i
                        while j < n:
                            if code[j] == "{":
                                depth += 1
                            elif code[j] == "}":
                                depth -= 1
                                if depth == 0:
                                    break
                            j += 1
                        i = j + 1
                        continue
                    sig = header[:header.find("(")]
                    name_m = re.findall(r"(operator\s*\S+|~?[A-Za-z_][\w:~]*)\s*$", sig.strip())
                    name = name_m[0] if name_m else "?"
                    start = header_start + (len(header) - len(header.lstrip()))
                    stack.append("function")
                    open_at.append((start, name))
                else:
                    stack.append(kind)
                    open_at.append(None)
                header_start = i + 1
            elif c == "}":
                if len(stack) > 1:
                    stack.pop()
                    open_at.pop()
                header_start = i + 1
            elif c == ";":
                header_start = i + 1
            elif c == ":" and top == "class" and re.search(r"\b(public|private|protected)\s*$", code[header_start:i]):
                header_start = i + 1
            i += 1
        else:
            if c == "{":
                stack.append("other")
                open_at.append(None)
            elif c == "}":
                stack.pop()
                entry = open_at.pop()
                if entry is not None:
                    start, name = entry
                    results.append((code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1, name))
                if stack[-1] in ("file", "namespace", "class"):
                    header_start = i + 1
            i += 1
    return results


def source_files(root):
    for d in DIRS:
        base = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith((".cc", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def read_allow(path):
    allowed = {}
    if not path or not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if parts[0] == "file" and len(parts) == 2:
                allowed[("file", parts[1], "")] = number
            elif parts[0] == "function" and len(parts) == 3:
                allowed[("function", parts[1], parts[2])] = number
            else:
                sys.exit(f"{path}:{number}: expected `file PATH` or `function PATH NAME`: {raw.strip()}")
    return allowed


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="List source files and functions over their size limits.")
    parser.add_argument("--root", default=os.path.dirname(here))
    parser.add_argument("--file-limit", type=int, default=800)
    parser.add_argument("--function-limit", type=int, default=120)
    parser.add_argument("--allow", default=os.path.join(here, "unit_sizes.allow"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    allowed = read_allow(args.allow)
    found = []  # (lines, kind, path, where, name)
    for path in source_files(args.root):
        with open(os.path.join(args.root, path), encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > args.file_limit:
            found.append((lines, "file", path, path, ""))
        for first, last, name in scan_functions(blank_literals(text)):
            length = last - first + 1
            if length > args.function_limit:
                found.append((length, "function", path, f"{path}:{first}", name))

    found.sort(key=lambda x: (-x[0], x[3]))
    over, excused, used = [], [], set()
    for lines, kind, path, where, name in found:
        key = (kind, path, name if kind == "function" else "")
        (excused if key in allowed else over).append((lines, kind, where, name))
        if key in allowed:
            used.add(key)
    for lines, kind, where, name in over:
        print(f"{kind:<8} {lines:>5}  {where}  {name}".rstrip())
    for lines, kind, where, name in excused:
        print(f"allowed  {kind:<8} {lines:>5}  {where}  {name}".rstrip())
    stale = [k for k in allowed if k not in used]
    for kind, path, name in stale:
        print(f"stale allow-list entry ({args.allow}:{allowed[(kind, path, name)]}): {kind} {path} {name}".rstrip())
    if args.check and (over or stale):
        print(f"unit_sizes: {len(over)} unit(s) over the limits (files {args.file_limit} lines, "
              f"functions {args.function_limit}) and {len(stale)} stale allow-list entr(y/ies)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
