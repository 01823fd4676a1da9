"""Hostile and extreme input found by fuzzing: deep but valid code is analysed, fixes
keep their meaning or are not offered."""

from __future__ import annotations

import pytest

from tflint.engine import fix_source, lint_source

TRACED = "import tensorflow as tf\n\n@tf.function\ndef f(x, a):\n"


def _engine_codes(src: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in lint_source(src, "deep.py") if d.code in ("TFL001", "TFL002")]


DEEP_VALID = {
    "1000-branch traced elif": TRACED + "    if x > 0:\n        y = 1\n"
    + "".join(f"    elif x > {i}:\n        y = {i}\n" for i in range(1, 1000)) + "    else:\n        y = 0\n    return y\n",
    "500-branch module elif": TRACED + "    return x\nx = 1\nif x == 0:\n    y = 0\n"
    + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 500)),
    "500 nested lambdas": TRACED + "    g = " + "lambda: " * 500 + "tf.constant(1)\n    return g\n",
    "490 and operands": TRACED + "    return " + " and ".join(f"x{i}" for i in range(490)) + "\n",
    "1000 adjacent strings": TRACED + "    s = (\n" + "".join(f'        "s{i}"\n' for i in range(1000)) + "    )\n",
}


@pytest.mark.parametrize("name", sorted(DEEP_VALID))
def test_deep_but_valid_code_is_analysed(name: str) -> None:
    src = DEEP_VALID[name]
    compile(src, name, "exec")  # CPython takes it
    assert _engine_codes(src) == []


def test_deep_elif_chain_still_gets_its_finding() -> None:
    src = TRACED + "    if tf.reduce_sum(x) > 0:\n        w = 1\n" + "".join(
        f"    elif tf.reduce_sum(x) > {i}:\n        z = {i}\n" for i in range(1, 800)) + "    return w\n"
    codes = [d.code for d in lint_source(src, "deep.py")]
    assert "TFL504" in codes and "TFL002" not in codes


def test_valid_code_libcst_cannot_parse_is_not_a_syntax_error() -> None:
    # libcst's parser gives up on about 4,000 adjacent string literals; CPython compiles them
    src = TRACED + "    s = (\n" + "".join(f'        "s{i}"\n' for i in range(5000)) + "    )\n"
    compile(src, "strings", "exec")
    codes = _engine_codes(src)
    assert [c for c, _ in codes] == ["TFL002"]
    assert "valid Python" in codes[0][1]


# ---------------------------------------------------------------------------------------
# TFL202's assert fix (the fuzzing finds of issue 12)


def _assert_fix(body: str) -> str | None:
    src = TRACED + "    " + body + "\n"
    diags = [d for d in lint_source(src, "a.py") if d.code == "TFL202"]
    assert len(diags) == 1, lint_source(src, "a.py")
    fix = diags[0].fix
    if fix is None:
        return None
    result = fix_source(src, "a.py", unsafe=True)
    assert not result.problems
    return result.source[len(TRACED):].strip()  # type: ignore[index]


@pytest.mark.parametrize("body, fixed", [
    ('assert tf.shape(x) == (2, 3), "bad shape"',
     'tf.debugging.assert_equal(tf.shape(x), (2, 3), message="bad shape")'),
    ("assert tf.rank(x) > ()", "tf.debugging.assert_greater(tf.rank(x), ())"),
    ("assert tf.rank(x) == ((a,),)", "tf.debugging.assert_equal(tf.rank(x), ((a,),))"),
    ("assert tf.rank(x) == (*a,)", "tf.debugging.assert_equal(tf.rank(x), (*a,))"),
    ("assert tf.rank(x) == (i for i in a)", "tf.debugging.assert_equal(tf.rank(x), (i for i in a))"),
    ("assert (tf.rank(x)) < (3)", "tf.debugging.assert_less(tf.rank(x), 3)"),
    ('assert tf.rank(x) > 0, "m" "n"', 'tf.debugging.assert_greater(tf.rank(x), 0, message="m" "n")'),
])
def test_assert_fix_keeps_every_operand_whole(body: str, fixed: str) -> None:
    assert _assert_fix(body) == fixed


@pytest.mark.parametrize("body", [
    'assert tf.rank(x) > 0, f"rank {a}"',   # message= is evaluated up front, an f-string runs code
    "assert tf.rank(x) > 0, a",             # message= must be a string
])
def test_assert_fix_not_offered_when_it_cannot_be_exact(body: str) -> None:
    assert _assert_fix(body) is None


def test_tensorarray_fix_is_an_assignment_node() -> None:
    src = TRACED + "    ta = tf.TensorArray(tf.float32, size=2)\n    ta.write(0, x); ta.write(1, x)\n" \
        "    return ta.stack()\n"
    result = fix_source(src, "t.py")
    assert not result.problems
    assert "    ta = ta.write(0, x); ta = ta.write(1, x)\n" in result.source  # type: ignore[operator]


# ---------------------------------------------------------------------------------------
# Files that are not regular, too large, too slow; workers that die


import os  # noqa: E402
import time  # noqa: E402

from tflint import cli, engine  # noqa: E402
from tflint.config import ConfigError, Settings, settings_from_mapping  # noqa: E402

BAD_CODE = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_in_a_folder_is_skipped_and_the_rest_reported(tmp_path, capsys) -> None:
    (tmp_path / "a.py").write_text(BAD_CODE)
    os.mkfifo(tmp_path / "b.py")
    (tmp_path / "c.py").write_text(BAD_CODE)
    t0 = time.monotonic()
    status = cli.main(["check", "--isolated", "-j", "1", str(tmp_path)])
    out, err = capsys.readouterr()
    assert time.monotonic() - t0 < 30  # it used to wait forever on the FIFO
    assert status == 2
    assert "a.py:5:5: TFL101" in out and "c.py:5:5: TFL101" in out
    assert "b.py: error: skipped: a FIFO, not a regular file" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_on_the_command_line_is_skipped(tmp_path, capsys) -> None:
    fifo = tmp_path / "named.py"
    os.mkfifo(fifo)
    assert cli.main(["check", "--isolated", str(fifo)]) == 2
    assert "skipped: a FIFO" in capsys.readouterr().err


def test_file_over_the_size_limit_is_one_tfl002(tmp_path, capsys) -> None:
    big = tmp_path / "big.py"
    big.write_text(BAD_CODE + "x = 1\n" * 2000)
    (tmp_path / "small.py").write_text(BAD_CODE)
    (tmp_path / "pyproject.toml").write_text("[tool.tflint]\nmax-file-size = '10kB'\n")
    status = cli.main(["check", "-j", "1", "--config", str(tmp_path / "pyproject.toml"), str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 1
    assert "big.py:1:1: TFL002 file not analysed: it is larger than the limit of 10 kB (max-file-size)" in out
    assert "small.py:5:5: TFL101" in out
    assert out.count("big.py") == 1


def test_bounded_read_reads_at_most_one_byte_past_the_limit(tmp_path) -> None:
    from tflint.files import read_regular_file

    f = tmp_path / "f.py"
    f.write_bytes(b"x" * 100_000)
    assert len(read_regular_file(str(f), 1000)) == 1001
    assert len(read_regular_file(str(f))) == 100_000


def test_size_and_time_keys(tmp_path) -> None:
    kw = settings_from_mapping({"max-file-size": "2 MiB", "max-seconds-per-file": 5}, "cfg", str(tmp_path))
    assert kw == {"max_file_size": 2 * 1024 * 1024, "max_seconds_per_file": 5.0}
    assert settings_from_mapping({"max-file-size": 4096}, "cfg", ".")["max_file_size"] == 4096
    for bad in ({"max-file-size": "lots"}, {"max-file-size": 0}, {"max-seconds-per-file": -1}):
        with pytest.raises(ConfigError):
            settings_from_mapping(bad, "cfg", ".")


def test_analysis_over_the_time_limit_is_one_tfl002(monkeypatch) -> None:
    def forever(*args, **kwargs):  # noqa: ANN002, ANN003
        while True:
            pass

    monkeypatch.setattr(engine, "_run_rules", forever)
    t0 = time.monotonic()
    diags = engine.lint_source(BAD_CODE, "slow.py", Settings(max_seconds_per_file=0.3))
    assert time.monotonic() - t0 < 10
    assert [(d.code, d.message) for d in diags] == [
        ("TFL002", "analysis stopped: the file took longer than the limit of 0.3 s (max-seconds-per-file)")]


def test_a_crashed_worker_loses_only_its_own_file(tmp_path, monkeypatch, capsys) -> None:
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the crash is planted through fork")
    real = engine.lint_source

    def crash_on_one(source, path="<string>", settings=None, **kw):  # noqa: ANN001, ANN003
        if path.endswith("crash.py"):
            os._exit(70)  # as the OOM killer or a native crash would end the worker
        return real(source, path, settings, **kw)

    monkeypatch.setattr(engine, "lint_source", crash_on_one)
    names = [f"f{i:02d}.py" for i in range(12)]
    for n in names:
        (tmp_path / n).write_text(BAD_CODE)
    (tmp_path / "crash.py").write_text(BAD_CODE)
    status = cli.main(["check", "--isolated", "-j", "2", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 2
    for n in names:
        assert f"{n}:5:5: TFL101" in out
    assert "crash.py: error: internal error: the process linting this file crashed" in err
    assert err.count(": error: ") == 1


def test_message_names_the_nearest_caller_and_the_root_not_the_chain() -> None:
    n = 2000
    src = "import tensorflow as tf\n\n@tf.function\ndef root(x):\n    return h0(x)\n\n" + "".join(
        f"def h{i}(x):\n    return h{i + 1}(x)\n\n" for i in range(n)) + f"def h{n}(x):\n    print(x)\n    return x\n"
    diags = [d for d in lint_source(src, "chain.py") if d.code == "TFL101"]
    assert len(diags) == 1
    message = diags[0].message
    assert len(message) < 400, len(message)  # was 77 KB for a chain of 2,000 helpers
    assert f"in `h{n}`, called from `h{n - 1}` (line" in message
    assert "…, called from `root` (line 5), which runs under tf.function" in message


# ---------------------------------------------------------------------------------------
# Warnings, Ctrl-C, file names that are not valid UTF-8


import signal  # noqa: E402
import subprocess  # noqa: E402
import warnings  # noqa: E402

ESCAPES = "import os\n\nPATTERN = '\\d+'\n"  # a SyntaxWarning (DeprecationWarning before 3.12)


def test_parser_warnings_are_not_errors_and_do_not_leak() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("error")
        assert lint_source(ESCAPES, "esc.py") == []
        assert fix_source(ESCAPES + BAD_CODE, "esc.py").applied == 1  # --fix still works
        warnings.simplefilter("always")
        assert lint_source(ESCAPES, "esc.py") == []
    assert seen == []


def _tflint(*args: str, cwd, **kw) -> subprocess.CompletedProcess:
    import sys

    return subprocess.run([sys.executable, "-m", "tflint", *args], cwd=cwd, capture_output=True, **kw)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_ctrl_c_exits_130_with_one_line(tmp_path) -> None:
    import sys

    sys.path.insert(0, str(os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")))
    import scaling

    (tmp_path / "slow.py").write_text(scaling.functions_source(3000))
    # the child installs Python's SIGINT handler whatever the test runner set (a worker
    # that ignores SIGINT hands the ignoring on, and Python then raises no
    # KeyboardInterrupt); not with ``preexec_fn``, which can deadlock a child forked from
    # a process with threads (a worker that imported TensorFlow)
    boot = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "sys.argv = ['tflint'] + sys.argv[1:]; runpy.run_module('tflint', run_name='__main__')")
    proc = subprocess.Popen([sys.executable, "-c", boot, "check", "--isolated", "-j", "1", "slow.py"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(2.5)
    assert proc.poll() is None, "the check ended before the interrupt: make slow.py bigger"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == b"tflint: interrupted\n"


@pytest.mark.skipif(os.name != "posix", reason="bytes file names")
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_file_names_that_are_not_utf8_survive_every_format(tmp_path, fmt: str) -> None:
    name = b"bad\xff.py"
    with open(os.path.join(os.fsencode(tmp_path), name), "w") as f:
        f.write(BAD_CODE)
    r = _tflint("check", "--isolated", "--output-format", fmt, ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    if fmt in ("text", "github"):
        assert name in r.stdout  # the bytes the OS gave
    elif fmt == "json":
        assert b'"filename": "bad\\udcff.py"' in r.stdout
    else:
        assert b'"uri": "bad%FF.py"' in r.stdout
    out = tmp_path / "report.txt"
    r = _tflint("check", "--isolated", "--output-format", fmt, "--output-file", str(out), ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert out.stat().st_size > 0


# ---------------------------------------------------------------------------------------
# --fix writes into the file


FIXED_PRINT = BAD_CODE.replace("    print(x)", "    tf.print(x)")


def test_fix_writes_into_the_same_file(tmp_path, capsys) -> None:
    f = tmp_path / "m.py"
    f.write_text(BAD_CODE)
    os.chmod(f, 0o640)
    link = tmp_path / "other-name.py"
    os.link(f, link)
    inode = f.stat().st_ino
    xattr = False
    if hasattr(os, "setxattr"):
        try:
            os.setxattr(f, "user.tflint-test", b"kept")
            xattr = True
        except OSError:
            pass
    if os.geteuid() == 0:
        os.chown(f, 12345, 23456)
    assert cli.main(["check", "--isolated", "--fix", "-j", "1", str(f)]) == 0
    assert f.read_text() == FIXED_PRINT
    assert link.read_text() == FIXED_PRINT  # the hard link is still the same file
    st = f.stat()
    assert st.st_ino == inode and st.st_nlink == 2 and st.st_mode & 0o777 == 0o640
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (12345, 23456)
    if xattr:
        assert os.getxattr(f, "user.tflint-test") == b"kept"


def test_fix_refuses_a_read_only_file_and_says_so(tmp_path, capsys) -> None:
    f = tmp_path / "ro.py"
    f.write_text(BAD_CODE)
    os.chmod(f, 0o444)
    try:
        assert cli.main(["check", "--isolated", "--fix", "-j", "1", str(f)]) == 2
    finally:
        os.chmod(f, 0o644)
    out, err = capsys.readouterr()
    assert f.read_text() == BAD_CODE
    assert "ro.py: error: cannot write the fixed file: the file is read-only" in err
    assert "could not be written; 1 finding remaining." in err  # was "0 findings remaining"
    assert "TFL101" in out


def test_fix_never_overwrites_an_edit_saved_after_the_read(tmp_path, monkeypatch, capsys) -> None:
    from tflint import writeback

    f = tmp_path / "edited.py"
    f.write_text(BAD_CODE)
    real = writeback.write_back

    def edit_then_write(path, original, new):  # noqa: ANN001
        with open(path, "a") as fh:
            fh.write("# saved by the editor meanwhile\n")
        return real(path, original, new)

    monkeypatch.setattr(writeback, "write_back", edit_then_write)
    assert cli.main(["check", "--isolated", "--fix", "-j", "1", str(f)]) == 2
    assert f.read_text() == BAD_CODE + "# saved by the editor meanwhile\n"
    assert "the file changed since it was read; not written" in capsys.readouterr().err
