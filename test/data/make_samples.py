#!/usr/bin/env python3
"""Builds test/data/samples.copy from the PEP revision corpus (../shared/data/peps).

Three revisions (first, middle, last) of twelve short PEPs that state they are in
the public domain: revisions of one PEP are near-duplicates of each other, the
PEPs are unrelated. Output is COPY text format: id, pep, revision, title, body.
Usage: make_samples.py /path/to/unpacked/peps > test/data/samples.copy
"""
import collections
import gzip
import json
import os
import sys

PEPS = [10, 20, 221, 240, 259, 281, 294, 332, 336, 392, 409, 3105]
MANIFEST = os.path.join(os.path.dirname(__file__), "../../../shared/data/peps/manifest.jsonl.gz")


def escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def title_of(body):
    for line in body.splitlines():
        if line.lower().startswith("title:"):
            return line.split(":", 1)[1].strip()
    return ""


def main(root):
    versions = collections.defaultdict(list)
    with gzip.open(MANIFEST, "rt") as f:
        for line in f:
            row = json.loads(line)
            versions[row["pep"]].append(row)
    doc_id = 0
    for pep in PEPS:
        revs = sorted(versions[pep], key=lambda r: r["version_index"])
        for rev in (revs[0], revs[len(revs) // 2], revs[-1]):
            with open(os.path.join(root, rev["file"]), encoding="utf-8") as f:
                body = f.read()
            if "public domain" not in body.lower():
                raise SystemExit(f"PEP {pep} revision {rev['version_index']} has no public-domain statement")
            doc_id += 1
            print("\t".join([str(doc_id), str(pep), str(rev["version_index"]), escape(title_of(body)), escape(body)]))


if __name__ == "__main__":
    main(sys.argv[1])
