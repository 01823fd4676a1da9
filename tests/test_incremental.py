"""The language server's parser joins the statements of earlier parses; what it gives
must be the module a whole parse gives (same tree, same code), or a whole parse."""

from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings

from tflint.incremental import IncrementalParser
from tflint.registry import all_rules

FILE = '''"""Training helpers."""
# a header comment
import tensorflow as tf


# a comment that belongs to the next function
@tf.function
def step(x):
  y = x * 2  # two-space indentation, as in many Google projects
  if y > 0:
    print(y)
  return y
  # a trailing comment inside the function


class Head(tf.keras.layers.Layer):

  def call(self, x):
    return (x +
            1)


total = step(tf.constant(1.0)) \\
    + 1
'''


def _same(parser: IncrementalParser, text: str) -> None:
    got = parser(text)
    whole = cst.parse_module(text)
    assert got.code == whole.code  # the source itself, but for what libcst drops (form feeds)
    assert got.deep_equals(whole)


def test_a_file_is_joined_from_its_statements_and_equals_a_whole_parse() -> None:
    parser = IncrementalParser()
    _same(parser, FILE)
    assert (parser.joined, parser.whole) == (1, 0)


def test_an_edit_parses_only_the_statement_it_changed() -> None:
    parser = IncrementalParser()
    parser(FILE)
    pieces = len(parser._pieces)
    edited = FILE.replace("    print(y)", "    tf.print(y)")
    _same(parser, edited)
    assert len(parser._pieces) == pieces + 1  # the new `step`, nothing else
    assert parser.whole == 0


@pytest.mark.parametrize("text", [
    FILE.replace("\n", "\r\n"),                      # CRLF
    "x = 1\n",                                       # one statement
    "a = 1; b = 2\nc = 3\n",                         # two statements on one line
    "import os\nx = 1\r\ny = 2\n",                   # mixed line endings
    "def f():\n  return 1\n\ndef g():\n    return 2\n",  # indentation that differs
    "x = 1\n\x0cy = 2\n",                            # a form feed
    "",
    "# only a comment\n",
    "x = 1\ny = 2",                                  # no trailing newline
])
def test_odd_sources_give_what_a_whole_parse_gives(text: str) -> None:
    _same(IncrementalParser(), text)


def test_a_source_that_does_not_parse_raises_as_libcst_does() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        IncrementalParser()("def f(:\n  pass\n")


def test_the_rule_examples() -> None:
    parser = IncrementalParser()
    for rule in all_rules():
        for text in rule.VALID + rule.INVALID:
            _same(parser, text)
    assert parser.joined > 0


def test_the_piece_cache_is_bounded() -> None:
    parser = IncrementalParser(max_pieces=3)
    for i in range(10):
        parser(f"x = {i}\ny = {i}\n")
    assert len(parser._pieces) <= 3


try:
    import hypothesmith
except ImportError:  # pragma: no cover
    hypothesmith = None


@pytest.mark.skipif(hypothesmith is None, reason="hypothesmith is not installed")
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(text=hypothesmith.from_node() if hypothesmith is not None else None)
def test_generated_modules(text: str) -> None:
    try:
        whole = cst.parse_module(text)
    except Exception:
        return  # libcst cannot read it; the engine reports that from its own parse
    got = IncrementalParser()(text)
    assert got.code == whole.code
    assert got.deep_equals(whole)
