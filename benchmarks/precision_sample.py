"""Findings of the default-on rules over the real-code corpus, and a reproducible random
sample of them to judge by hand.

    python benchmarks/precision_sample.py CORPUS_SRC [--sample 50] [--seed 0] [--context 3]

Prints the number of findings per code, then the sample: each finding with a few lines
of source around it, ready to be judged true or false (docs/precision.md holds the
judged sample). Uses ``tflint check -j2 --output-format json`` so the figures are what a
user sees.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile


def run_tflint(src: str, jobs: int) -> list[dict]:
    with tempfile.NamedTemporaryFile("w+", suffix=".json", delete=False) as out:
        path = out.name
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tflint", "check", "-j", str(jobs), "--isolated", "-q",
             "--output-format", "json", "--output-file", path, src],
            capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            sys.exit(f"tflint failed ({proc.returncode}): {proc.stderr.strip()}")
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    finally:
        os.unlink(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", help="the corpus folder (DEST/src of fetch_corpus.sh)")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--context", type=int, default=3)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)

    findings = run_tflint(args.src, args.jobs)
    counts = collections.Counter(f["code"] for f in findings)
    print(f"{len(findings)} findings")
    for code, n in sorted(counts.items()):
        print(f"  {code} {n}")
    rng = random.Random(args.seed)
    sample = sorted(rng.sample(findings, min(args.sample, len(findings))),
                    key=lambda f: (f["filename"], f["location"]["row"]))
    for i, f in enumerate(sample, 1):
        row = f["location"]["row"]
        rel = os.path.relpath(f["filename"], args.src)
        print(f"\n### {i}. {rel}:{row} {f['code']}\n{f['message']}")
        try:
            with open(f["filename"], encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        lo, hi = max(0, row - 1 - args.context), min(len(lines), row + args.context)
        for n in range(lo, hi):
            print(f"{'>' if n == row - 1 else ' '}{n + 1:6} {lines[n]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
