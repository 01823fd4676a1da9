"""pytest plugin for ``pytest --tflint-verify`` (registered as the ``tflint`` pytest11 entry point).

It is loaded into every pytest session of every environment where tflint is installed, so it
must be inert and TensorFlow-free unless ``--tflint-verify`` is given.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the options; nothing else happens until ``--tflint-verify`` is given."""
    group = parser.getgroup("tflint", "tflint: eager vs graph verification of tf.functions")
    group.addoption(
        "--tflint-verify",
        action="store_true",
        default=False,
        help="record the calls the tests make to tf.functions and replay each eagerly and "
        "as a graph; fail the session when they diverge",
    )
