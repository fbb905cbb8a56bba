#!/usr/bin/env python3
"""Score `gpuready explain` on a JSON Lines file of labelled texts (the corpus format,
tests/fixtures/explain_corpus/README.md) with the rules of explain_corpus_test:

  failure    right when the root cause gpuready names stands for one of the entry's root tokens
  harmless   right when something is recognised and no failure is claimed
  unrelated  right when no failure is claimed

  scripts/knowledge/score.py GPUREADY FILE.jsonl [--split tune|holdout] [--misses]

Meant for a new set of texts BEFORE anything is written from them (a first-contact score).
--misses prints the texts of the misses: use it only on a tune part, never on a holdout part.
"""
import argparse
import collections
import json
import subprocess
import sys


def explain(binary, text):
    p = subprocess.run([binary, "explain", "--no-probe", "--json", "-"], input=text.encode(),
                       capture_output=True, timeout=60)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"gpuready explain exited {p.returncode}: {p.stderr.decode()[:300]}")
    return json.loads(p.stdout)


def right(e, matches):
    """Whether the matches gpuready gave for corpus entry `e` are right, by the rules above."""
    kind = e["expect"]["kind"]
    failures = [x for x in matches if not x["harmless"]]
    if kind == "failure":
        root = next((x for x in matches if x.get("root_cause")), failures[0] if failures else None)
        want = {t.lower() for t in e["expect"]["root"]}
        return root is not None and any(t.lower() in want for t in root["root"])
    if kind == "harmless":
        return bool(matches) and not failures
    return not failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("file")
    ap.add_argument("--split")
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args()
    score = collections.defaultdict(lambda: [0, 0])
    for line in open(a.file, encoding="utf-8"):
        if not line.strip():
            continue
        e = json.loads(line)
        if a.split and e.get("split") != a.split:
            continue
        kind = e["expect"]["kind"]
        m = explain(a.binary, e["text"]).get("matches", [])
        ok = right(e, m)
        key = f"{e.get('split', '?')}/{kind}"
        score[key][0] += ok
        score[key][1] += 1
        if not ok and a.misses:
            got = ", ".join(x["code"] + ("(harmless)" if x["harmless"] else "") for x in m) or "nothing"
            print(f"== MISS {e['id']} [{e.get('family')}/{kind}] want={e['expect']['root']} got={got}")
            print(f"   {e['source']}")
            print("   " + e["text"][:1500].replace("\n", "\n   "))
    for k in sorted(score):
        r, t = score[k]
        print(f"{k}: {r}/{t} ({100.0 * r / t:.1f} %)")


if __name__ == "__main__":
    sys.exit(main())
