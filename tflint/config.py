"""Settings shared by the engine and the front-ends.

The engine reads only the lint-relevant fields; the CLI fills the rest from
``[tool.tflint]`` in pyproject.toml, ``[tflint]`` in setup.cfg and its own flags.
"""

from __future__ import annotations

import configparser
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping


@dataclass
class Settings:
    #: explicit selection (None = every default-on rule)
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    #: ``extend-ignore`` is folded into ``ignore`` when settings are resolved
    #: extra decorators (dotted names as written or fully qualified) that wrap a
    #: function in tf.function, e.g. "common.function" or "my_pkg.utils.compiled"
    tf_function_wrappers: list[str] = field(default_factory=list)
    #: which Keras runs the code's models: "auto" (from the imports: ``keras`` and, from
    #: TensorFlow 2.16 on, ``tf.keras`` are Keras 3 unless the module imports ``tf_keras``),
    #: "2" (tf-keras, or TensorFlow <= 2.15) or "3"
    keras_version: str = "auto"
    #: glob -> codes, applied by the front-end after linting
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    force_exclude: bool = False
    #: the project index cache (``.tflint_cache/`` under the project root by default)
    cache: bool = True
    cache_dir: str | None = None
    #: a file larger than this (bytes) is not analysed: one TFL002 says so
    max_file_size: int = 10_000_000
    #: a file whose analysis takes longer (seconds) is stopped with one TFL002; 0: no limit
    max_seconds_per_file: float = 60.0


# --------------------------------------------------------------------------------------
# Loading: [tool.tflint] in pyproject.toml, [tflint] in setup.cfg, and the CLI on top.
# --------------------------------------------------------------------------------------

#: every key the config sections accept (underscores are accepted as dashes)
KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "force-exclude",
    "tf-function-wrappers",
    "keras-version",
    "cache-dir",
    "max-file-size",
    "max-seconds-per-file",
)

#: folders skipped when recursing, unless ``exclude`` replaces the list (as in flake8
#: and ruff, ``exclude`` replaces the defaults and ``extend-exclude`` adds to them)
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "__pycache__",
    "build",
    "dist",
    ".tox",
    ".nox",
    ".eggs",
    "node_modules",
    "site-packages",
)


class ConfigError(ValueError):
    """A config or command-line problem, with a one-line message; the CLI exits 2."""


@dataclass(frozen=True)
class ConfigFile:
    path: str
    #: "pyproject" or "setup.cfg"
    kind: str


_LIST_SPLIT = re.compile(r"[,\s]")


def split_list(value: str) -> list[str]:
    """flake8's comma-separated list: commas and any whitespace (newlines) separate."""
    return [item.strip() for item in _LIST_SPLIT.split(value) if item.strip()]


# flake8's tokenizer for ``per-file-ignores`` (flake8.utils.parse_files_to_codes_mapping),
# ported so that a value copied from a flake8 config means the same thing here.
_PFI_TOKENS = [
    (re.compile(r"[A-Z]+[0-9]*(?=$|\s|,)"), "code"),
    (re.compile(r"[^\s:,]+"), "file"),
    (re.compile(r"\s*:\s*"), "colon"),
    (re.compile(r"\s*,\s*"), "comma"),
    (re.compile(r"\s+"), "ws"),
]


def parse_per_file_ignores(
    value: str | Iterable[str], where: str = "per-file-ignores"
) -> list[tuple[str, list[str]]]:
    """Parse flake8's ``glob[ glob...]:CODE[,CODE...]`` entries (space, comma or newline
    separated, several entries allowed) into ``[(glob, [codes])]``."""
    text = value if isinstance(value, str) else "\n".join(value)
    out: list[tuple[str, list[str]]] = []
    if not text.strip():
        return out
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        for regex, kind in _PFI_TOKENS:
            m = regex.match(text, i)
            if m:
                tokens.append((kind, m.group().strip()))
                i = m.end()
                break
    tokens.append(("eof", ""))

    seen_sep, seen_colon = True, False
    files: list[str] = []
    codes: list[str] = []

    def bad() -> ConfigError:
        one_line = " ".join(text.split())
        return ConfigError(
            f"{where}: expected entries of the form 'glob:CODE,CODE', got {one_line!r}"
        )

    for kind, src in tokens:
        if kind in ("comma", "ws"):
            seen_sep = True
        elif not seen_colon:
            if kind == "colon":
                seen_colon = seen_sep = True
            elif seen_sep and kind == "file":
                files.append(src)
                seen_sep = False
            else:
                raise bad()
        else:
            if kind == "eof":
                if not codes:
                    raise bad()
                out.extend((f, list(codes)) for f in files)
                files, codes, seen_sep, seen_colon = [], [], True, False
            elif seen_sep and kind == "code":
                codes.append(src)
                seen_sep = False
            elif seen_sep and kind == "file":
                if not codes:
                    raise bad()
                out.extend((f, list(codes)) for f in files)
                files, codes, seen_colon = [src], [], False
                seen_sep = False
            else:
                raise bad()
    return out


def normalize_pattern(pattern: str, base_dir: str) -> str:
    """flake8's rule for file patterns: a pattern with a path separator (or ``.``) is
    relative to the directory of the config that names it (the CWD for command-line
    values) and becomes absolute; a bare pattern (``*_test.py``) matches base names."""
    if pattern == "." or os.sep in pattern or (os.altsep and os.altsep in pattern):
        pattern = os.path.abspath(os.path.join(base_dir, pattern))
    return pattern.rstrip(os.sep + (os.altsep or "")) or pattern


def find_config(start: str | None = None) -> ConfigFile | None:
    """Walk up from ``start`` (the CWD) to the first pyproject.toml with a
    ``[tool.tflint]`` table or setup.cfg with a ``[tflint]`` section. In one directory
    pyproject.toml is looked at first. Files without a tflint section are passed over,
    as ruff and flake8 do, so a project can keep its config in either file."""
    d = os.path.abspath(start or os.getcwd())
    while True:
        py = os.path.join(d, "pyproject.toml")
        if os.path.isfile(py):
            try:
                if "tflint" in _read_toml(py).get("tool", {}):
                    return ConfigFile(py, "pyproject")
            except ConfigError:
                # a broken pyproject.toml that mentions tflint is an error to show;
                # one that does not is somebody else's problem
                if _mentions_tflint(py):
                    return ConfigFile(py, "pyproject")
        cfg = os.path.join(d, "setup.cfg")
        if os.path.isfile(cfg) and _setup_cfg_has_section(cfg):
            return ConfigFile(cfg, "setup.cfg")
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _mentions_tflint(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "tool.tflint" in f.read()
    except OSError:
        return False


def _setup_cfg_has_section(path: str) -> bool:
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return _mentions_section(path)
    return parser.has_section("tflint")


def _mentions_section(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return any(line.strip() == "[tflint]" for line in f)
    except OSError:
        return False


def _read_toml(path: str) -> dict[str, Any]:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def read_config_section(cfg: ConfigFile) -> dict[str, Any]:
    """The raw tflint section of a config file, keys normalized to dashes.
    Raises ConfigError for unreadable files and unknown keys."""
    if cfg.kind == "pyproject":
        data = _read_toml(cfg.path).get("tool", {}).get("tflint", {})
        if not isinstance(data, dict):
            raise ConfigError(f"{cfg.path}: [tool.tflint] must be a table")
        section = "[tool.tflint]"
    else:
        parser = configparser.RawConfigParser()
        try:
            with open(cfg.path, encoding="utf-8") as f:
                parser.read_file(f)
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{cfg.path}: cannot read config: {e}") from None
        except configparser.Error as e:
            raise ConfigError(f"{cfg.path}: invalid config: {' '.join(str(e).split())}") from None
        data = dict(parser.items("tflint")) if parser.has_section("tflint") else {}
        section = "[tflint]"
    out: dict[str, Any] = {}
    for key, value in data.items():
        norm = key.replace("_", "-").lower()
        if norm not in KNOWN_KEYS:
            raise ConfigError(
                f"{cfg.path}: unknown key {key!r} in {section} (known: {', '.join(KNOWN_KEYS)})"
            )
        out[norm] = value
    return out


def _as_list(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return split_list(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise ConfigError(f"{where}: {key} must be a list of strings")


def _as_bool(value: Any, key: str, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "yes", "true", "on"):
            return True
        if low in ("0", "no", "false", "off"):
            return False
    raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")


def _as_per_file_ignores(value: Any, where: str) -> list[tuple[str, list[str]]]:
    if isinstance(value, dict):  # pyproject, ruff style: {"tests/*" = ["TFL101"]}
        return [(str(k), _as_list(v, f"per-file-ignores[{k!r}]", where)) for k, v in value.items()]
    if isinstance(value, (str, list)):  # flake8 style, possibly multi-line
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: per-file-ignores must be a table or flake8-style strings")
        return parse_per_file_ignores(value, f"{where}: per-file-ignores")
    raise ConfigError(f"{where}: per-file-ignores must be a table or flake8-style strings")


def validate_codes(codes: Iterable[str], what: str) -> None:
    """Unknown codes and prefixes are an error: a typo in ``ignore`` would otherwise
    silently keep a rule on (or in ``select`` silently turn everything off)."""
    from tflint.registry import RegistryError, check_codes

    try:
        check_codes(list(codes), what)
    except RegistryError as e:
        raise ConfigError(str(e)) from None


def merge_per_file_ignores(
    entries: Iterable[tuple[str, list[str]]], base_dir: str
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pattern, codes in entries:
        key = normalize_pattern(pattern, base_dir)
        out.setdefault(key, [])
        out[key].extend(c for c in codes if c not in out[key])
    return out


def settings_from_mapping(raw: Mapping[str, Any], where: str, base_dir: str) -> dict[str, Any]:
    """Turn a raw section (dash keys) into Settings keyword arguments, validated.
    File patterns are made absolute relative to ``base_dir`` (flake8's rule)."""
    kw: dict[str, Any] = {}
    for key in ("select", "ignore", "extend-select", "extend-ignore"):
        if key in raw:
            codes = _as_list(raw[key], key, where)
            validate_codes(codes, f"{where}: {key}")
            kw[key.replace("-", "_")] = codes
    if "per-file-ignores" in raw:
        entries = _as_per_file_ignores(raw["per-file-ignores"], where)
        for _, codes in entries:
            validate_codes(codes, f"{where}: per-file-ignores")
        kw["per_file_ignores"] = merge_per_file_ignores(entries, base_dir)
    for key in ("exclude", "extend-exclude"):
        if key in raw:
            kw[key.replace("-", "_")] = [
                normalize_pattern(p, base_dir) for p in _as_list(raw[key], key, where)
            ]
    if "force-exclude" in raw:
        kw["force_exclude"] = _as_bool(raw["force-exclude"], "force-exclude", where)
    if "tf-function-wrappers" in raw:
        kw["tf_function_wrappers"] = _as_list(
            raw["tf-function-wrappers"], "tf-function-wrappers", where
        )
    if "keras-version" in raw and raw["keras-version"] is not None:
        value = str(raw["keras-version"]).strip().lower()
        if value not in ("auto", "2", "3"):
            raise ConfigError(f"{where}: keras-version must be auto, 2 or 3, not {raw['keras-version']!r}")
        kw["keras_version"] = value
    if "cache-dir" in raw:
        value = raw["cache-dir"]
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: cache-dir must be a folder name, got {value!r}")
        kw["cache_dir"] = os.path.normpath(os.path.join(base_dir, os.path.expanduser(value.strip())))
    if "max-file-size" in raw:
        kw["max_file_size"] = _as_size(raw["max-file-size"], where)
    if "max-seconds-per-file" in raw:
        kw["max_seconds_per_file"] = _as_seconds(raw["max-seconds-per-file"], where)
    return kw


_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmg]i?b?|b)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "ki": 1024, "mi": 1024**2, "gi": 1024**3}


def _as_size(value: Any, where: str) -> int:
    """Bytes: a number, or a string with a unit ("10MB", "512 KiB")."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    m = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if m is not None:
        unit = (m.group(2) or "").lower().rstrip("b")
        size = int(float(m.group(1)) * _UNITS[unit])
        if size > 0:
            return size
    raise ConfigError(f"{where}: max-file-size must be a positive size such as 10MB, got {value!r}")


def _as_seconds(value: Any, where: str) -> float:
    try:
        seconds = float(value) if not isinstance(value, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    if seconds < 0 or seconds != seconds:
        raise ConfigError(f"{where}: max-seconds-per-file must be a number of seconds (0: no limit), "
                          f"got {value!r}")
    return seconds


def load_config_file(cfg: ConfigFile) -> dict[str, Any]:
    """Settings keyword arguments from one config file."""
    raw = read_config_section(cfg)
    return settings_from_mapping(raw, cfg.path, os.path.dirname(os.path.abspath(cfg.path)))


def resolve_settings(
    cli: Mapping[str, Any],
    config_path: str | None = None,
    isolated: bool = False,
    cwd: str | None = None,
) -> tuple[Settings, ConfigFile | None]:
    """The settings of a run: the config file's values, then the command line's.

    ``cli`` holds raw command-line values (dash keys, strings as typed, ``None`` when the
    flag was not given). A flag replaces the config value of the same key, except
    ``extend-select`` and ``extend-exclude``, which add to the config's (their name says
    so, and ruff does the same). ``config_path`` names the file explicitly (``--config``);
    ``isolated`` ignores every config file.
    """
    cwd = cwd or os.getcwd()
    cfg: ConfigFile | None = None
    if config_path is not None:
        if not os.path.isfile(config_path):
            raise ConfigError(f"{config_path}: config file not found")
        kind = "pyproject" if config_path.endswith(".toml") else "setup.cfg"
        cfg = ConfigFile(os.path.abspath(config_path), kind)
    elif not isolated:
        cfg = find_config(cwd)
    kw: dict[str, Any] = load_config_file(cfg) if cfg is not None else {}

    raw_cli = {k: v for k, v in cli.items() if v is not None}
    unknown = set(raw_cli) - set(KNOWN_KEYS) - {"cache"}  # --no-cache: the command line only
    if unknown:  # a programming error in the caller, not a user error
        raise ValueError(f"unknown settings {sorted(unknown)}")
    parsed_cli: dict[str, Any] = {}
    for key, value in raw_cli.items():
        if key == "per-file-ignores":
            entries = parse_per_file_ignores(value, "--per-file-ignores")
            for _, codes in entries:
                validate_codes(codes, "--per-file-ignores")
            parsed_cli["per_file_ignores"] = merge_per_file_ignores(entries, cwd)
        elif key == "force-exclude":
            parsed_cli["force_exclude"] = bool(value)
        elif key == "keras-version":
            parsed_cli["keras_version"] = value
        elif key == "cache":
            parsed_cli["cache"] = bool(value)
        elif key == "cache-dir":
            parsed_cli["cache_dir"] = os.path.normpath(os.path.join(cwd, os.path.expanduser(str(value))))
        else:
            items = (
                split_list(value)
                if isinstance(value, str)
                else [s for v in value for s in split_list(v)]
            )
            if key in ("select", "ignore", "extend-select", "extend-ignore"):
                validate_codes(items, f"--{key}")
            if key in ("exclude", "extend-exclude"):
                items = [normalize_pattern(p, cwd) for p in items]
            parsed_cli[key.replace("-", "_")] = items
    for key, value in parsed_cli.items():
        if key in ("extend_select", "extend_exclude", "extend_ignore") and key in kw:
            kw[key] = list(kw[key]) + [v for v in value if v not in kw[key]]
        else:
            kw[key] = value
    # extend-ignore (config and flag) adds to ignore, whichever of the two set it
    extra = kw.pop("extend_ignore", [])
    if extra:
        kw["ignore"] = list(kw.get("ignore", [])) + [c for c in extra if c not in kw.get("ignore", [])]
    return Settings(**kw), cfg


class SettingsResolver:
    """Settings per file: the nearest config above each file governs it (as ruff
    does), with the command line on top. With ``--config`` or ``--isolated`` every file
    gets the same settings. Configs are found and read once per folder and file."""

    def __init__(self, cli: Mapping[str, Any], config_path: str | None = None,
                 isolated: bool = False, cwd: str | None = None) -> None:
        self.cli = dict(cli)
        self.fixed = config_path is not None or isolated
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.root, self.root_config = resolve_settings(self.cli, config_path, isolated, self.cwd)
        self._by_config: dict[str, Settings] = {}
        if self.root_config is not None:
            self._by_config[self.root_config.path] = self.root
        self._by_dir: dict[str, ConfigFile | None] = {}

    def config_for(self, path: str) -> ConfigFile | None:
        if self.fixed:
            return self.root_config
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._by_dir:
            self._by_dir[folder] = find_config(folder)
        return self._by_dir[folder]

    def for_path(self, path: str) -> Settings:
        """Raises ConfigError for a broken config found on the way."""
        cfg = self.config_for(path)
        if cfg is None:
            if self.root_config is None:
                return self.root
            key = ""
        else:
            key = cfg.path
        if key not in self._by_config:
            settings, _ = resolve_settings(self.cli, cfg.path if cfg else None, cfg is None, self.cwd)
            self._by_config[key] = settings
        return self._by_config[key]
