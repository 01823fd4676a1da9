"""The one way tests, examples and fixtures mark where a finding is expected.

A comment that starts with codes marks the line it is on:

* ``# TFL101`` or ``# TFL101, TFL105``: these findings start on this line;
* ``# TFL103: drawn once per trace``: the same, with the reason after a colon;
* ``# TFL110 (missed): a parameter of a while_loop body``: an honest known miss, a
  finding tflint should report here but does not yet.

Only real comments count (read with ``tokenize``), never text in strings, and only when
the comment starts with the codes (``# see TFL101`` marks nothing). The rule docstrings'
VALID / INVALID examples, ``examples/`` and ``tests/fixtures/`` all use this form.
"""

from __future__ import annotations

import io
import re
import tokenize

MARK = re.compile(r"#\s*(TFL\d{3}(?:\s*,\s*TFL\d{3})*)\s*(\(missed\))?\s*(?::.*)?$")


def read_markers(text: str) -> tuple[set[tuple[int, str]], set[tuple[int, str]]]:
    """(expected, missed) as sets of (line, code)."""
    expected: set[tuple[int, str]] = set()
    missed: set[tuple[int, str]] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        m = MARK.match(tok.string)
        if m is None:
            continue
        target = missed if m.group(2) else expected
        for code in re.findall(r"TFL\d{3}", m.group(1)):
            target.add((tok.start[0], code))
    return expected, missed
