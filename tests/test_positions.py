"""Ranges computed for a few nodes at a time are the ranges libcst's PositionProvider
gives (the model answers findings' positions without computing every node's)."""

from __future__ import annotations

import random

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from tflint.registry import all_rules
from tflint.semantic import build
from tflint.semantic.positions import positions_of

ODD = (
    "import tensorflow as tf\r\n"
    "@tf.function  # a comment\r\n"
    "def f(x, *args, y=(1), **kw):\r\n"
    "    z = ((x + 1)) * (y)\r\n"
    "    if (z > 0) and not (z < -1):\r\n"
    "        print( (z) ,  x )\r\n"
    "    return [a for a in (args)] , {'k': (kw)}\r\n"
    "\r\n"
    "class C(tf.Module):\r\n"
    "    @property\r\n"
    "    def p(self): return (lambda q: (q))(1)\r\n"
)


def _sources() -> list[str]:
    out = [ODD, ODD.replace("\r\n", "\n"), ODD.replace("\r\n", "\r")]
    for rule in all_rules():
        out.extend(rule.VALID + rule.INVALID)
    return out


def _reference(module: cst.Module) -> dict:
    provider = PositionProvider()
    provider._gen_impl(module)
    return provider._computed


@pytest.mark.parametrize("source", _sources()[:3] + _sources()[3::7])
def test_ranges_match_the_position_provider(source: str) -> None:
    module = cst.parse_module(source)
    ref = _reference(module)
    nodes = list(ref)
    got = positions_of(module, nodes)
    assert {id(n): ref[n] for n in nodes} == got
    rnd = random.Random(len(source))
    for _ in range(5):  # a few nodes at a time: each asked alone gives the same range
        sample = rnd.sample(nodes, min(4, len(nodes)))
        part = positions_of(module, sample)
        assert part == {id(n): ref[n] for n in sample}


def test_nodes_of_another_tree_are_left_out() -> None:
    module = cst.parse_module("x = 1\n")
    other = cst.parse_module("y = 2\n")
    assert positions_of(module, [other.body[0]]) == {}
    assert positions_of(module, []) == {}


def test_the_model_answers_single_questions_then_all_at_once() -> None:
    source = _sources()[0]
    module = cst.parse_module(source)
    ref = _reference(module)
    sem = build(module, "a.py", ())
    nodes = list(ref)
    for n in nodes[:10]:  # first alone, then from the full map
        assert sem.position(n) == ref[n]
    assert sem._positions is not None
    assert sem.positions_of(nodes) == {id(n): ref[n] for n in nodes}
