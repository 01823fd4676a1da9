"""The flake8 front-end: ``flake8`` runs tflint's rules through the ``TFL`` entry point.

flake8 chooses the plugin type from the constructor's argument names; the argument
``tree`` makes this an AST plugin, called once per file with the file's lines. The
``ast`` tree itself is of no use (tflint parses with libcst), so the source is rebuilt
from ``lines`` and handed to :func:`tflint.engine.lint_source`, the same function the
``tflint check`` CLI calls. The engine already skips files that never mention
TensorFlow, Keras or a configured wrapper (its cheap text pre-filter), so there is no
second pre-filter here.

Division of labour with flake8 (so that flake8 and ``tflint check`` agree):

* every rule runs in the engine (``select=["TFL"]``); flake8's ``--select``,
  ``--ignore``, ``--extend-select``, ``--per-file-ignores`` and ``# noqa`` decide what
  is shown, exactly as for its own codes;
* off-by-default codes are added to flake8's *default* ignore list (as flake8-bugbear
  does for its opinionated B9 codes): they stay off until ``--select`` or
  ``--extend-select`` names them;
* columns: the engine's columns are 0-based, which is what flake8's plugin API wants
  (flake8 adds 1 when it prints).

A plugin exception aborts the whole flake8 run, so :meth:`Plugin.run` never raises:
anything unexpected becomes a TFL002 finding at line 1. Note that flake8 calls AST
plugins only for files that CPython's ``ast`` can parse; for the others flake8 itself
reports ``E999`` and this plugin is never called. TFL001 shows up through flake8 only
for files that ``ast`` accepts and libcst does not.
"""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Sequence

from tflint import __version__

if TYPE_CHECKING:  # pragma: no cover
    from tflint.config import Settings

LOG = logging.getLogger(__name__)

#: what flake8 wants from ``run()``: (line, 0-based column, "CODE message", type)
Result = tuple[int, int, str, type]


class Plugin:
    """flake8 AST plugin (entry point ``TFL = tflint.flake8_plugin:Plugin``)."""

    name = "tflint"
    version = __version__

    #: from ``--tf-function-wrappers`` in flake8's options or tflint's own config
    tf_function_wrappers: ClassVar[list[str]] = []
    #: ``keras-version`` from tflint's own config
    keras_version: ClassVar[str] = "auto"
    #: ``cache-dir`` from tflint's own config (None: .tflint_cache/ under the project root)
    cache_dir: ClassVar[str | None] = None

    def __init__(self, tree: Any, lines: Sequence[str] | None = None, filename: str = "stdin"):
        # ``tree`` is flake8's ast.Module: its name tells flake8 what we are, and its
        # presence that CPython parsed the source (flake8 reports E999 for files it cannot)
        self.python_parsed = tree is not None
        self.lines = list(lines) if lines is not None else []
        self.filename = filename

    # ------------------------------------------------------------------ options

    @staticmethod
    def add_options(option_manager: Any) -> None:
        """Register our option and put the off-by-default codes on flake8's default
        ignore list. Never raises: a broken registry must not stop flake8."""
        try:
            option_manager.add_option(
                "--tf-function-wrappers",
                default=None,
                parse_from_config=True,
                comma_separated_list=True,
                help="decorators that wrap a function in tf.function (tflint); "
                "default: tf-function-wrappers from tflint's own config, if any",
            )
        except Exception:  # pragma: no cover - another plugin registered it
            LOG.debug("tflint: could not register --tf-function-wrappers", exc_info=True)
        try:
            from tflint.registry import default_off_codes

            off = default_off_codes()
        except Exception:  # pragma: no cover - reported per file by run() instead
            LOG.warning("tflint: cannot load the rule registry", exc_info=True)
            off = []
        if off:
            option_manager.extend_default_ignore(off)

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        wrappers = getattr(options, "tf_function_wrappers", None)
        config = _tflint_config()
        if wrappers is None:
            wrappers = list(config.tf_function_wrappers) if config is not None else []
        cls.tf_function_wrappers = [w for w in (wrappers or []) if w]
        cls.keras_version = config.keras_version if config is not None else "auto"
        cls.cache_dir = config.cache_dir if config is not None else None

    # ------------------------------------------------------------------ checking

    def run(self) -> Iterator[Result]:
        try:
            results = list(self._check())
        except Exception as e:  # never let flake8 abort the run
            results = [_internal_error(e, type(self))]
        yield from results

    def _check(self) -> Iterator[Result]:
        from tflint.config import Settings
        from tflint.engine import lint_source

        from tflint.semantic.project import view_for

        source = "".join(self.lines)
        settings = Settings(select=["TFL"], tf_function_wrappers=list(self.tf_function_wrappers),
                            keras_version=self.keras_version)
        # flake8 hands over one file at a time: the project index is built lazily from
        # its path (and kept for the process), so other modules are read only as needed
        project = view_for(self.filename, cache_dir=self.cache_dir, wrappers=settings.tf_function_wrappers)
        for d in lint_source(source, self.filename, settings, python_parsed=self.python_parsed,
                             project=project):
            yield (max(d.line, 1), max(d.column, 0), f"{d.code} {d.message}", type(self))


def _internal_error(e: BaseException, plugin: type) -> Result:
    detail = " ".join(str(e).split())[:300]
    return (
        1,
        0,
        f"TFL002 internal error in the tflint flake8 plugin: {type(e).__name__}: " f"{detail}",
        plugin,
    )


def _tflint_config() -> "Settings | None":
    """tflint's own settings (``tf-function-wrappers``, ``keras-version``, ``cache-dir``)
    from ``[tool.tflint]`` / ``[tflint]`` found from the current directory, as ``tflint
    check`` finds them, so both front-ends see the same traced code. A broken config is
    logged, not raised (flake8 would abort)."""
    try:
        from tflint.config import resolve_settings

        settings, _ = resolve_settings({})
        return settings
    except Exception as e:
        LOG.warning("tflint: ignoring the tflint config: %s", e)
        return None
