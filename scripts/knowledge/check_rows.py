#!/usr/bin/env python3
"""Check candidate rows for data/error_signatures.csv before they are added (same columns).

  scripts/knowledge/check_rows.py NEW.csv [--append]

For each row: the columns are all there; the code is new and well formed; kind is failure,
harmless or generic; every root token is a vendor code of data/error_codes.csv, a condition of
tests/fixtures/explain_corpus/VOCAB.md, a library file name or $N; the pattern compiles, uses only
syntax PCRE2 and ECMAScript share (no lookbehind, named, atomic or possessive groups) and matches
its example and variant case-insensitively; a source is given; and no specific row already in the
table takes the example (then the new row would never be reached: table order, one row per line).
Rows that pass are printed as CSV on standard output. --append puts them into the table instead:
a row that a generic (catch-all) row would also take goes just before that row, others at the end.
The rest are listed on standard error with the reason. The C++ tests remain the judge
(Explain.EverySignatureMatchesItsRealReports runs the real engine): run them after appending.
"""
import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TABLE = os.path.join(ROOT, "data", "error_signatures.csv")
CODES = os.path.join(ROOT, "data", "error_codes.csv")
VOCAB = os.path.join(ROOT, "tests", "fixtures", "explain_corpus", "VOCAB.md")
COLUMNS = ["code", "title", "kind", "root", "pattern", "example", "variant", "cause", "fix", "context", "notes",
           "source"]
FORBIDDEN = [(r"\(\?<[=!]", "lookbehind"), (r"\(\?P?<[A-Za-z]", "named group"), (r"\(\?>", "atomic group"),
             (r"[*+?}]\+", "possessive quantifier"), (r"\\[AZz]", "\\A \\Z \\z anchors")]
LIBRARY = re.compile(r"^[A-Za-z0-9_.+-]+\.(so(\.[0-9.]+)?|dll|dylib)$")


def vocab_words():
    words = set()
    for line in open(VOCAB, encoding="utf-8"):
        m = re.match(r"^\|\s*([a-z0-9-]+)\s*\|", line)
        if m and m.group(1) != "token":
            words.add(m.group(1))
    return words


def matches(pattern, text):
    return re.search(pattern, text, re.I | re.M) is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args()
    table = list(csv.DictReader(open(TABLE, encoding="utf-8", newline="")))
    codes = {r["name"] for r in csv.DictReader(open(CODES, encoding="utf-8", newline=""))}
    words = vocab_words()
    known = {r["code"] for r in table}
    compiled = []
    for r in table:
        try:
            compiled.append((r["code"], re.compile(r["pattern"], re.I), r["kind"]))
        except re.error:
            pass  # a pattern Python's engine cannot read (the C++ tests judge those)
    good, bad = [], []
    with open(a.new, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            sys.exit(f"check_rows: the header must be exactly: {','.join(COLUMNS)}")
        for r in reader:
            why = []
            code = r["code"] or "?"
            if not re.match(r"^[a-z0-9]+(?:[.-][a-z0-9]+)+$", r["code"] or ""):
                why.append("code is not family.short-name")
            if r["code"] in known:
                why.append("code exists")
            if r["kind"] not in ("failure", "harmless", "generic"):
                why.append(f"kind {r['kind']!r}")
            for t in (r["root"] or "").split():
                if not (t in codes or t in words or LIBRARY.match(t) or re.match(r"^\$[1-9]$", t)):
                    why.append(f"root token {t!r} is no code, condition or library")
            if r["kind"] == "failure" and not (r["root"] or "").strip():
                why.append("a failure without a root")
            for rx, what in FORBIDDEN:
                if re.search(rx, r["pattern"]):
                    why.append(f"pattern uses {what}")
            try:
                re.compile(r["pattern"], re.I)
            except re.error as e:
                why.append(f"pattern does not compile: {e}")
            else:
                for col in ("example", "variant"):
                    if r[col] and not matches(r["pattern"], r[col]):
                        why.append(f"pattern misses its {col}")
                if not r["example"]:
                    why.append("no example")
            if not (r["source"] or "").strip():
                why.append("no source")
            if not (r["fix"] or "").strip():
                why.append("no fix")
            taken = [c for c, rx, kind in compiled if kind != "generic" and r["example"] and rx.search(r["example"])]
            if taken:
                why.append("the example is already taken by " + ", ".join(taken[:3]))
            if why:
                bad.append((code, why))
            else:
                good.append(r)
                known.add(r["code"])
                try:
                    compiled.append((r["code"], re.compile(r["pattern"], re.I), r["kind"]))
                except re.error:
                    pass
    for code, why in bad:
        print(f"check_rows: {code}: " + "; ".join(why), file=sys.stderr)
    print(f"check_rows: {len(good)} rows pass, {len(bad)} do not", file=sys.stderr)
    if a.append and good:
        for r in good:
            at = len(table)
            if r["kind"] != "generic":  # before the first catch-all that would take its line
                for i, old in enumerate(table):
                    try:
                        if old["kind"] == "generic" and re.search(old["pattern"], r["example"], re.I):
                            at = i
                            break
                    except re.error:
                        pass
            table.insert(at, r)
        with open(TABLE, "w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
            w.writeheader()
            for r in table:
                w.writerow(r)
    elif good:
        w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in good:
            w.writerow(r)


if __name__ == "__main__":
    main()
