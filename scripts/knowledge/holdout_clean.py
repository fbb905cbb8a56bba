#!/usr/bin/env python3
"""The holdout score, also on the parts of the holdout that no row of data/ could have seen.

  scripts/knowledge/holdout_clean.py GPUREADY [CORPUS_DIR] [DATA_DIR]

Patterns are written looking at the tune part only, but a row's `source` may cite a thread that a
later batch put into the holdout (the same public thread is where both were found), or a thread
of a holdout repository. This prints the holdout score three ways, counts only (no texts):

  all                      every holdout entry
  thread not cited         entries whose source thread no data/*.csv cites (issues, pulls and
                           discussions by URL or owner/name#N)
  repository not cited     entries whose repository no data/*.csv cites at all
"""
import concurrent.futures
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import explain, right  # noqa: E402

URL = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)")
SHORT = re.compile(r"(?<![\w/.-])([\w.-]+/[\w.-]+)#(\d+)")


def thread(repo, number):
    return f"{repo.lower()}#{number}"


def cited(data_dir):
    threads, repos = set(), set()
    for path in glob.glob(os.path.join(data_dir, "*.csv")):
        text = open(path, encoding="utf-8").read()
        for rx in (URL, SHORT):
            for m in rx.finditer(text):
                threads.add(thread(m.group(1), m.group(2)))
                repos.add(m.group(1).lower())
    return threads, repos


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "tests", "fixtures", "explain_corpus")
    data = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "data")
    threads, repos = cited(data)
    entries = []
    for path in sorted(glob.glob(os.path.join(corpus, "*.jsonl"))):
        for line in open(path, encoding="utf-8"):
            if line.strip():
                e = json.loads(line)
                if e.get("split") == "holdout":
                    entries.append(e)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda e: explain(binary, e["text"]).get("matches", []), entries))

    def source_thread(e):
        m = URL.match(e["source"])
        return thread(m.group(1), m.group(2)) if m else None

    parts = [("all", lambda e: True),
             ("thread not cited", lambda e: source_thread(e) not in threads),
             ("repository not cited", lambda e: e["repo"].lower() not in repos)]
    for name, keep in parts:
        for kind in ("failure", "harmless", "unrelated"):
            chosen = [(e, m) for e, m in zip(entries, results) if e["expect"]["kind"] == kind and keep(e)]
            good = sum(right(e, m) for e, m in chosen)
            share = 100.0 * good / len(chosen) if chosen else 0.0
            print(f"{name:22s} {kind:9s} {good}/{len(chosen)} ({share:.1f} %)")


if __name__ == "__main__":
    main()
