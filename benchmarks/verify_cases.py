"""How much of what it claims does ``tflint verify`` prove? Runs the verifier on the case
modules in ``tests/verify/cases/`` and prints the figures the project tracks:

* divergent cases (functions named ``bug_*``) proven divergent, out of all of them;
* false alarms: correct cases (``ok_*``) reported divergent, error or timeout;
* wrong "nondeterministic" labels (no case is nondeterministic from the same seed);
* cases skipped or missing from the report.

Usage: ``python benchmarks/verify_cases.py [-j N] [-v]``. tests/verify/test_cases.py runs
the same measurement and holds the goals (>= 90% proven, 0 false alarms, 0 wrong labels).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "tests" / "verify" / "cases"


@dataclass
class Figures:
    """The measured outcome, per case and in total."""

    status: dict[str, str] = field(default_factory=dict)
    bugs: list[str] = field(default_factory=list)
    correct: list[str] = field(default_factory=list)

    @property
    def proven(self) -> list[str]:
        return [n for n in self.bugs if self.status.get(n) == "divergent"]

    @property
    def false_alarms(self) -> list[str]:
        return [n for n in self.correct
                if self.status.get(n) in ("divergent", "error", "timeout")]

    @property
    def wrong_nondeterministic(self) -> list[str]:
        return [n for n, s in self.status.items() if s == "nondeterministic"]

    @property
    def unjudged(self) -> list[str]:
        return [n for n in self.bugs + self.correct
                if self.status.get(n) in (None, "skipped")]

    def lines(self) -> list[str]:
        nb = len(self.bugs)
        share = 100 * len(self.proven) / max(nb, 1)
        return [
            f"cases: {nb} divergent, {len(self.correct)} correct",
            f"divergent proven: {len(self.proven)}/{nb} ({share:.0f}%)",
            f"false alarms: {len(self.false_alarms)} {self.false_alarms}",
            f"wrong nondeterministic labels: {len(self.wrong_nondeterministic)} "
            f"{self.wrong_nondeterministic}",
            f"skipped or missing: {len(self.unjudged)} {self.unjudged}",
        ]


def case_files() -> list[str]:
    return sorted(str(p) for p in CASES.glob("*_cases.py"))


def measure(jobs: int = 2, timeout: float = 300.0) -> tuple[Figures, list[object]]:
    """Verify every case module; return the figures and the raw results."""
    from concurrent.futures import ThreadPoolExecutor

    from tflint.verify import runner

    opts = runner.Options(timeout=timeout)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        chunks = list(pool.map(lambda f: runner.verify_target(f, opts), case_files()))
    results = [r for chunk in chunks for r in chunk]
    figures = Figures()
    for r in results:
        top = r.name.split(".")[0]
        if top.startswith("bug_"):
            figures.bugs.append(r.name)
        elif top.startswith("ok_"):
            figures.correct.append(r.name)
        else:
            continue
        figures.status[r.name] = r.status
    return figures, results


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = p.parse_args(argv)
    figures, results = measure(args.jobs)
    if args.verbose:
        for r in results:
            print(f"{r.status:>16}  {r.name}  {r.reason[:100]}")  # type: ignore[attr-defined]
    print("\n".join(figures.lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
