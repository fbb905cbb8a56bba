#!/usr/bin/env python3
"""Print the *tune* part of the explain corpus (tests/fixtures/explain_corpus), never the holdout.

  scripts/knowledge/corpus.py [family-or-kind ...]   e.g.  corpus.py nccl harmless

The holdout part is scored only in aggregate (explain_corpus_test); reading its texts while
writing patterns would make its score meaningless.
"""
import json
import os
import sys

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "explain_corpus")
want = set(sys.argv[1:])
for f in sorted(os.listdir(here)):
    if not f.endswith(".jsonl"):
        continue
    for line in open(os.path.join(here, f), encoding="utf-8"):
        e = json.loads(line)
        if e["split"] != "tune":
            continue
        if want and e["family"] not in want and e["expect"]["kind"] not in want:
            continue
        print(f"== {e['id']} [{e['family']}/{e['expect']['kind']}] root={e['expect']['root']} {e['source']}")
        print(e["text"][:3000])
        print(f"-- cause: {e['expect'].get('cause','')} | fix: {e['expect'].get('fix','')}")
