"""Human summary, JSON report and JUnit XML for verifier results."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections import Counter

from tflint.verify.model import STATUSES, Divergence, FunctionResult


def _rel(path: str) -> str:
    if not path:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _where(r: FunctionResult) -> str:
    return f"{_rel(r.file)}:{r.line}" if r.file and r.line else (_rel(r.file) or r.target)


def _tried(r: FunctionResult, n: int = 3) -> str:
    if not r.tried:
        return ""
    more = f"; +{len(r.tried) - n} more" if len(r.tried) > n else ""
    return "; tried: " + " | ".join(r.tried[:n]) + more


def format_summary(results: list[FunctionResult], verbose: bool = True) -> str:
    """One block per problem, one line per passing function (``verbose``), then totals."""
    lines: list[str] = []
    for r in results:
        # a whole target (it could not be imported, crashed, timed out) is named once
        name = "" if _whole_target(r) else f" {r.name}:"
        head = f"{_where(r)}:{name} {r.status.upper()}"
        if r.status == "divergent":
            rules = f"  [`tflint check` flags {', '.join(r.static_rules)} here]" \
                if r.static_rules else ""
            lines.append(head + rules)
            first = r.divergences[0]
            lines.extend(_divergence_block(first, r))
            others = r.divergences[1:]
            for d in others[:4]:
                where = f"example {d.example}, call {d.call}"
                lines.append(f"    also: {d.path} ({d.detail}) from {where}")
            if len(others) > 4:
                lines.append(f"    ... and {len(others) - 4} more difference(s)")
            for h in r.hints:
                lines.append(f"    hint: {h}")
        elif r.status in ("error", "timeout"):
            lines.append(f"{head}: {r.reason}")
        elif r.status == "skipped":
            if verbose:
                lines.append(f"{head}: {r.reason}")
        elif r.not_proven:
            lines.append(f"{head}, NOT PROVEN: `tflint check` flags "
                         f"{', '.join(r.static_rules)} here, but no input tried showed a "
                         f"difference ({r.examples} example(s) x {r.calls} calls{_tried(r)}); "
                         "declare examples that reach the flagged code")
        elif r.status == "nondeterministic":
            lines.append(f"{head}: two runs of one mode from the same seed and state differ: "
                         f"{', '.join(r.nondeterministic[:3])}")
        elif verbose:
            lines.append(f"{head} ({r.examples} example(s) x {r.calls} calls, "
                         f"{len(r.devices)} device(s){_tried(r)})")
        if r.traces.retraces and (verbose or r.status != "ok"):
            lines.append(f"    retraced: {r.traces.count} traces"
                         + (" (reduce_retracing is on)" if r.traces.reduce_retracing else ""))
            for t in r.traces.retraces[:3]:
                changes = t.changes or [{"path": t.argument, "change": t.change, "fix": t.fix}]
                lines.append(f"      call {t.call}:")
                for c in changes[:6]:
                    lines.append(f"        {c['path']}: {c['change']}; fix: {c['fix']}")
            if r.traces.suggested_signature:
                lines.append(f"      {r.traces.suggested_signature} would trace once")
        if r.traces.graph_nodes and r.traces.graph_nodes > 5000:
            lines.append(f"    graph has {r.traces.graph_nodes} nodes: a Python loop may be "
                         "unrolled into it")
    counts = Counter(r.status for r in results)
    total = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s])
    whole = sum(1 for r in results if _whole_target(r))
    what = f"{len(results) - whole} function(s)" + (
        f" and {whole} whole target(s)" if whole else "")
    unproven = sum(1 for r in results if r.not_proven)
    if unproven:
        total += f" ({unproven} flagged by `tflint check` but not proven)"
    lines.append(f"tflint verify: {what}: {total or 'nothing to verify'}")
    return "\n".join(lines)


def _whole_target(r: FunctionResult) -> bool:
    return not r.line and r.name == r.target


def _divergence_block(d: Divergence, r: FunctionResult) -> list[str]:
    if d.kind == "device":
        return [
            f"    first difference: {d.path} ({d.detail}), example {d.example}, call {d.call}",
            f"      {d.device:>22}: {d.eager}",
            f"      {d.other_device:>22}: {d.graph}",
        ]
    out = [
        f"    first difference: {d.path} ({d.detail}), example {d.example}, call {d.call}"
        + (f" on {d.device}" if d.device and len(r.devices) > 1 else ""),
    ]
    if 0 < d.example <= len(r.tried):
        out.append(f"      inputs: {r.tried[d.example - 1]}")
    if d.calls:
        for c in d.calls:
            mark = "*" if c.get("differs") else " "
            out.append(f"    {mark} call {c['call']}  eager: {c['eager']}")
            out.append(f"              graph: {c['graph']}")
    else:
        out += [f"      eager: {d.eager}", f"      graph: {d.graph}"]
    if d.kind == "exception":
        full = d.graph_full or d.eager_full
        if full:
            out.append("      " + full.strip().splitlines()[-1][:300])
    return out


def write_json(results: list[FunctionResult], path: str) -> None:
    """The report is a JSON list of function results (see ``FunctionResult.to_dict``)."""
    data = [dict(r.to_dict(), file=_rel(r.file)) for r in results]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, allow_nan=False, default=str)
        f.write("\n")


def write_junit(results: list[FunctionResult], path: str) -> None:
    """JUnit XML: one testcase per function; divergent -> failure, error/timeout -> error,
    skipped -> skipped. CI dashboards show it next to the test results."""
    counts = Counter(r.status for r in results)
    suite = ET.Element("testsuite", {
        "name": "tflint.verify",
        "tests": str(len(results)),
        "failures": str(counts["divergent"]),
        "errors": str(counts["error"] + counts["timeout"]),
        "skipped": str(counts["skipped"]),
    })
    for r in results:
        case = ET.SubElement(suite, "testcase", {
            "classname": _rel(r.file) or r.target or "tflint.verify",
            "name": r.name,
            "file": _rel(r.file),
            "line": str(r.line),
        })
        if r.status == "divergent":
            d = r.divergences[0]
            el = ET.SubElement(case, "failure", {
                "message": f"eager and graph differ: {d.path} at call {d.call}",
                "type": "divergent",
            })
            el.text = "\n".join(_divergence_block(d, r))
        elif r.status in ("error", "timeout"):
            el = ET.SubElement(case, "error", {"message": r.reason[:500], "type": r.status})
            el.text = r.reason
        elif r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": r.reason[:500]})
        elif r.status == "nondeterministic":
            out = ET.SubElement(case, "system-out")
            out.text = "nondeterministic: " + ", ".join(r.nondeterministic)
    root = ET.Element("testsuites")
    root.append(suite)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
