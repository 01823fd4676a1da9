"""Settings shared by the engine and the front-ends.

The engine reads only the lint-relevant fields; the CLI fills the rest from
``[tool.tflint]`` in pyproject.toml, ``[tflint]`` in setup.cfg and its own flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Settings:
    #: explicit selection (None = every default-on rule)
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    #: extra decorators (dotted names as written or fully qualified) that wrap a
    #: function in tf.function, e.g. "common.function" or "my_pkg.utils.compiled"
    tf_function_wrappers: list[str] = field(default_factory=list)
    #: glob -> codes, applied by the front-end after linting
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    force_exclude: bool = False
