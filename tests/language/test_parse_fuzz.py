"""Fuzzing through the whole command line: parse, evaluate, differentiate, check, render.

1. Generated text (arbitrary Unicode, and a soup of gradcalc's own tokens mixed with
   Python's escape hatches, lookalikes and control characters), as the program and as
   --at values, through `gradcalc.cli.main` in-process with every command and output
   format. The only outcomes allowed: a result (exit 0, or 1 for a failed check) or a
   gradcalc error (exit 2, one `error:` line, never an internal error); never an
   exception, a traceback, a hang, a file written, or raw control characters on stderr.
2. Generated valid programs of smooth functions at random points: the tape's gradient
   must equal sympy's (the CLI's symbolic check passes) and central finite differences of
   gradcalc's own forward run.

The suite runs a bounded number of examples (the same ones on every run, so the file takes
well under a minute). Maintainers run the long fuzz with, for example:

    GRADCALC_FUZZ_EXAMPLES=20000 python -m pytest tests/language/test_parse_fuzz.py \
        -p no:cacheprovider

which draws fresh random examples (and keeps hypothesis's example database, so a failure
found once is replayed first next time); GRADCALC_EXPLORE=1 draws fresh ones too, ten
times the bounded number unless GRADCALC_FUZZ_EXAMPLES says otherwise.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from conftest import BACKSTOP_SECONDS, examples, exploring

LONG = "GRADCALC_FUZZ_EXAMPLES" in os.environ or exploring()
EXAMPLES = int(os.environ.get("GRADCALC_FUZZ_EXAMPLES", examples(120)))
#: a run over this is a hang for the fuzzer (a backstop: never a measure of speed)
HANG_SECONDS = BACKSTOP_SECONDS

SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG,
    database=None if not LONG else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------- text

TOKENS = [
    # the language
    "x", "y", "z", "v", "A", "i", " ", " ", "  ", "\n", "\n    ", "\t", ";", ":", ",", "=",
    "+", "-", "*", "/", "**", "^", "@", "(", ")", "[", "]", "<", ">", "<=", "==", "!=",
    "0", "1", "2", "0.5", "1e3", "1e308", "1e-320", "3.14", "9**9**9", "10**400", "1_0",
    "pi", "E", "if ", "elif ", "else", "while ", "for ", " in ", "range(", "and", "or",
    "not ", "sin(", "cos(", "exp(", "log(", "sqrt(", "abs(", "relu(", "sign(", "tanh(",
    "sigmoid(", "softplus(", "maximum(", "minimum(", "clamp(", "where(", "sum(", "mean(",
    "prod(", "norm(", "dot(", "transpose(", "ones(", "zeros(", "atan2(", "x[0]", "x[1:]",
    "A[1, 0]", "x[-1]", "+=", "y = ", "y = x", "x**2", "ones(3)",
    # escape hatches
    "__import__", "__class__", ".", "'", '"', "f'", "b'", "lambda", "import ", "os",
    "eval(", "exec(", "open(", "getattr(", "globals()", "{", "}", "#", "\\", ":=", "*x",
    "Symbol(", "sympify(", "Function(", "oo", "zoo", "nan", "inf", "I", "S(", "N(",
    "0x1f", "0o7", "0b1", "1j", "True", "None", "%", "//", "~", "|", "&", "<<", "def ",
    "class ", "return ", "yield ", "with ", "try:", "del ", "global ", "assert ",
    # Unicode
    "ｘ", "１", "（", "）", "［", "］", "，", "×", "·", "÷", "−", "²", "³", "⁻¹", "𝐱",
    "х", "ο", "ﬁ", "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u2028", "\x00",
    "\x1b[31m", "\x07", "\x0c", "\r", "\r\n", "\udcff", "\u0301", "[bold red]", "٣",
]

token_soup = st.lists(st.sampled_from(TOKENS), max_size=25).map("".join)
any_text = st.text(max_size=60)
texts = st.one_of(token_soup, any_text, st.tuples(token_soup, any_text).map("".join))
values = st.one_of(
    st.sampled_from(["x=1", "x=[1,2]", "x=0", "x=-1", "x=[[1,2],[3,4]]", "x=1, y=2",
                     "x=[0,0,0], y=1", "x=nan", "x=inf", "x=1e308", "A=[[1,2],[3,4]], x=[1,2]",
                     "x=ones(3), v=[1,2,3], z=0.5", "ｘ=１"]),
    token_soup.map(lambda t: "x=" + t),
    any_text,
)
commands = st.sampled_from(["grad", "jacobian", "hessian"])
formats = st.sampled_from([["--json"], ["--plain"], []])


class _Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


def _cli(args: list[str], monkeypatch, capsys) -> tuple[int, str, str, float]:
    from gradcalc.cli import main

    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"")))
    started = time.monotonic()
    code = main(args)
    took = time.monotonic() - started
    captured = capsys.readouterr()
    return code, captured.out, captured.err, took


def _assert_outcome(code: int, out: str, err: str, took: float, fmt: list[str]) -> None:
    """A result (exit 0, or 1 for a failed check) or one gradcalc error (exit 2): an
    `error:` line on stderr if and only if the exit code is 2, never a traceback."""
    assert took < HANG_SECONDS, f"took {took:.1f} s"
    assert "Traceback" not in out + err
    assert "internal error" not in err, err
    assert all(ch in "\n" or ch.isprintable() for ch in err), repr(err)
    assert code in (0, 1, 2), (code, err)
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and errors == lines, err
        if fmt == ["--json"]:
            assert set(json.loads(out)["error"]) == {"kind", "message"}
        return
    assert errors == [], err
    assert out.strip(), "a result with no output"
    if fmt == ["--json"]:
        data = json.loads(out)
        assert {"command", "output", "check"} <= set(data), data
        assert data["check"]["status"] in ("pass", "fail", "skipped")
        assert (code == 1) == (data["check"]["status"] == "fail")
    elif code == 1:
        assert "fail" in out + err


@SETTINGS
@given(program=texts, at=values, command=commands, fmt=formats)
def test_generated_text_gives_a_result_or_a_gradcalc_error(program, at, command, fmt,
                                                           tmp_path_factory):
    assume("\x00" not in program + at)  # argv cannot carry NUL (stdin and files can)
    with pytest.MonkeyPatch.context() as monkeypatch:
        folder = tmp_path_factory.mktemp("fuzz")
        monkeypatch.chdir(folder)
        capsys = _Capture(monkeypatch)
        code, out, err, took = _cli([command, program, "--at", at, *fmt], monkeypatch, capsys)
        _assert_outcome(code, out, err, took, fmt)
        event(f"exit {code}")
        assert os.listdir(folder) == []


@SETTINGS
@given(program=st.binary(max_size=80))
def test_generated_bytes_on_standard_input(program, tmp_path_factory):
    from gradcalc.cli import main

    with pytest.MonkeyPatch.context() as monkeypatch:
        folder = tmp_path_factory.mktemp("fuzz")
        monkeypatch.chdir(folder)
        capsys = _Capture(monkeypatch)
        monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(program)))
        started = time.monotonic()
        code = main(["grad", "-", "--at", "x=1", "--json"])
        out, err = capsys.readouterr()
        _assert_outcome(code, out, err, time.monotonic() - started, ["--json"])
        assert os.listdir(folder) == []


class _Capture:
    """capsys for hypothesis tests (function-scoped fixtures do not reset per example)."""

    def __init__(self, monkeypatch) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", self.out)
        monkeypatch.setattr(sys, "stderr", self.err)

    def readouterr(self):
        out, err = self.out.getvalue(), self.err.getvalue()
        self.out.seek(0), self.out.truncate()
        self.err.seek(0), self.err.truncate()
        return _Pair(out, err)


class _Pair(tuple):
    def __new__(cls, out: str, err: str):
        return super().__new__(cls, (out, err))

    @property
    def out(self) -> str:
        return self[0]

    @property
    def err(self) -> str:
        return self[1]


# --------------------------------------------------------------------------- well-formed programs
# programs of the language's whole function table, kinks and domain errors included, on
# scalars, vectors and matrices whose shapes may not fit, at points that include 0,
# negative numbers, nan and inf: they reach evaluation, differentiation, the check and
# the rendering; the check may say pass or skipped, never fail

ANY_LEAVES = ["x", "v", "A", "v[0]", "v[1:]", "A[0]", "A[1, 0]", "0", "1", "-2", "0.5", "pi",
              "ones(2)", "zeros(2)", "[x, x]", "[[x, 1], [0, x]]"]
ANY_UNARY = [f"{f}({{}})" for f in (
    "sin cos tan asin acos atan sinh cosh tanh exp log log2 log10 sqrt abs sign relu "
    "sigmoid softplus sum mean prod norm transpose").split()] + ["-({})", "({})**2",
                                                                  "({})**0.5", "({})**-1"]
ANY_BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / ({})", "({}) ** ({})",
              "({}) @ ({})", "maximum({}, {})", "minimum({}, {})", "atan2({}, {})",
              "dot({}, {})", "clamp({}, {}, 1)", "where(({}) > 0, {}, 0)"]


def _grammar(leaves: list[str], unary: list[str], binary: list[str],
             depth: int) -> st.SearchStrategy[str]:
    """Expressions up to `depth` deep: leaves, unary templates of one expression, binary
    templates of two."""
    if depth == 0:
        return st.sampled_from(leaves)
    sub = _grammar(leaves, unary, binary, depth - 1)
    return st.one_of(
        st.sampled_from(leaves),
        st.tuples(st.sampled_from(unary), sub).map(lambda p: p[0].format(p[1])),
        st.tuples(st.sampled_from(binary), sub, sub).map(lambda p: p[0].format(*p[1:])),
    )


def _any_expr(depth: int) -> st.SearchStrategy[str]:
    return _grammar(ANY_LEAVES, ANY_UNARY, ANY_BINARY, depth)


any_programs = st.one_of(
    _any_expr(3).map(lambda e: f"y = {e}"),
    st.tuples(_any_expr(2), _any_expr(2)).map(
        lambda p: f"y = {p[0]}\nif sum(y) > 0:\n    y = y*({p[1]})\nelse:\n    y = -y"),
    _any_expr(2).map(lambda e: f"y = x\nfor i in range(3):\n    y = y + ({e})"),
)
special = st.sampled_from(["0", "-0", "1", "-1", "2", "0.5", "nan", "inf", "-inf", "1e-300",
                           "1e300", "3"])
any_points = st.tuples(special, special, special, special, special, special).map(
    lambda p: f"x={p[0]}, v=[{p[1]}, {p[2]}], A=[[{p[3]}, {p[4]}], [{p[5]}, {p[0]}]]")


@SETTINGS
@given(program=any_programs, at=any_points, command=commands, fmt=formats,
       wrt=st.sampled_from([[], ["--wrt", "x"], ["--wrt", "v,A"]]))
@example(program="y = x\nfor i in range(3):\n    y = y + (tan(atan2(A, x)))",
         at="x=1, v=[0, 0], A=[[0, 0], [inf, 1]]", command="jacobian", fmt=["--json"],
         wrt=[])  # at A = inf the tape's 0 and sympy's simplified 3/x: no false fail
def test_well_formed_programs_give_a_result_or_an_error_and_no_false_fail(
        program, at, command, fmt, wrt):
    with pytest.MonkeyPatch.context() as monkeypatch:
        capsys = _Capture(monkeypatch)
        extra = ["--weights", "ones(2)"] if command == "grad" and "@" in program else []
        code, out, err, took = _cli([command, program, "--at", at, *wrt, *fmt, *extra],
                                    monkeypatch, capsys)
    _assert_outcome(code, out, err, took, fmt)
    event(f"exit {code}")
    assert code != 1, f"a check failed:\n{out}\n{err}"


# --------------------------------------------------------------------------- valid programs

LEAVES = ["a", "v[0]", "v[1]", "v[2]", "0.5", "2", "1.5"]
UNARY = ["sin({})", "cos({})", "tanh({})", "sigmoid({})", "softplus({})", "atan({})",
         "exp(tanh({}))", "log(1 + ({})**2)", "sqrt(1 + ({})**2)", "({})**2", "({})**3",
         "-({})", "sinh(tanh({}))", "cosh(sin({}))"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (1 + ({})**2)",
          "atan2(({}), 2 + ({})**2)", "({}) * sum(v*({}))"]


def _expr(depth: int) -> st.SearchStrategy[str]:
    return _grammar(LEAVES, UNARY, BINARY, depth)


programs = st.one_of(
    _expr(3).map(lambda e: f"y = {e}"),
    st.tuples(_expr(2), _expr(2)).map(lambda p: f"t = {p[0]}\ny = t*({p[1]}) + norm(v*t)"),
    _expr(2).map(lambda e: f"s = 0\nfor i in range(3):\n    s = s + v[i]*({e})\ny = s"),
    _expr(2).map(lambda e: f"w = [{e}, v[0]*a, v[1]]\ny = dot(w, v) + mean(w)"),
)
coordinates = st.floats(min_value=-2, max_value=2, allow_nan=False).map(
    lambda f: round(f, 3))


def _forward(program, point: dict[str, np.ndarray]) -> float:
    from gradcalc.backends.numeric import run_numeric

    out = run_numeric(program, point, of="y")
    return float(np.asarray(getattr(out, "value", out)))


@SETTINGS
@given(source=programs, a=coordinates, v=st.lists(coordinates, min_size=3, max_size=3))
def test_generated_programs_tape_equals_sympy_equals_finite_differences(source, a, v):
    from gradcalc.cli import main
    from gradcalc.language.parse import parse

    at = f"a={a}, v=[{v[0]}, {v[1]}, {v[2]}]"
    with pytest.MonkeyPatch.context() as monkeypatch:
        capsys = _Capture(monkeypatch)
        code = main(["grad", source, "--at", at, "--json", "--check-seconds", "30"])
        out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    check = data["check"]
    assert check["method"] == "symbolic" and check["status"] != "fail", check
    if check["status"] == "skipped":  # e.g. norm at the zero vector: a singular point
        assert re.search(r"singular point|kink|undefined point", check["detail"]), check
        event("skipped at a singular point")
        return  # finite differences do not see a convention at a kink either
    assert check["status"] == "pass", check
    program = parse(source)
    point = {"a": np.float64(a), "v": np.array(v, dtype=np.float64)}
    f0 = _forward(program, point)
    assume(math.isfinite(f0) and abs(f0) < 1e6)
    for name in ("a", "v"):
        tape = np.asarray(data["gradient"][name], dtype=np.float64)
        for idx in np.ndindex(*tape.shape):
            h = 1e-6 * (1 + abs(float(point[name][idx])))
            plus = {k: np.array(x, dtype=np.float64, copy=True) for k, x in point.items()}
            minus = {k: np.array(x, dtype=np.float64, copy=True) for k, x in point.items()}
            plus[name][idx] += h
            minus[name][idx] -= h
            fd = (_forward(program, plus) - _forward(program, minus)) / (2 * h)
            t = float(tape[idx])
            assert abs(fd - t) <= 1e-5 * (1 + abs(f0)) + 1e-4 * abs(t), (name, idx, t, fd)
