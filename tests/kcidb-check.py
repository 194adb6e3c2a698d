#!/usr/bin/python3
"""kcidb-check.py SUBMISSION.json: is it a KCIDB v5.3 submission as bootbench
writes them? The schema rules (tests/fixtures/kcidb/v5.3.schema.json, written
from the schema's documentation) through python3-jsonschema, then what the
schema cannot say: ids unique per kind, every test's build and every build's
checkout in the submission, numbers only on executed tests. Prints each
problem and exits 1 if there was one; prints a one-line count otherwise."""
import json
import os
import sys

import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
schema = json.load(open(os.path.join(here, "fixtures/kcidb/v5.3.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"not JSON: {e}")
    sys.exit(1)
problems = [f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
if not problems:
    ids = {}
    for kind in ("checkouts", "builds", "tests"):
        seen = set()
        for o in doc.get(kind, []):
            if o["id"] in seen:
                problems.append(f"{kind}: id {o['id']} twice")
            seen.add(o["id"])
        ids[kind] = seen
    for b in doc.get("builds", []):
        if b["checkout_id"] not in ids["checkouts"]:
            problems.append(f"build {b['id']}: checkout {b['checkout_id']} not submitted")
    for t in doc.get("tests", []):
        if t["build_id"] not in ids["builds"]:
            problems.append(f"test {t['id']}: build {t['build_id']} not submitted")
        if "number" in t and t.get("status") not in ("FAIL", "ERROR", "PASS", "DONE"):
            problems.append(f"test {t['id']}: a number on a test that did not run ({t.get('status')})")
for p in problems[:20]:
    print(p)
if problems:
    print(f"{len(problems)} problems")
    sys.exit(1)
print(f"valid: {len(doc.get('checkouts', []))} checkouts, {len(doc.get('builds', []))} builds, "
      f"{len(doc.get('tests', []))} tests")
