"""keepdims=True in the language: sum(x, axis=1, keepdims=True) and mean(...) keep the
summed axis as length 1, so a row's sum divides its row (NumPy's idiom). The primitives
had keepdims already (tests/engine/test_ops.py checks their VJPs, batches and sympy twins); these
tests check the language's road to it: the parser, the tape's gradient against central
differences, the symbolic backend against the numeric one, and the vectorised backend
against single points."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.backends import batched
from gradcalc.backends.numeric import as_function, run_numeric
from gradcalc.backends.symbolic import symbolic_output
from gradcalc.engine import ops
from gradcalc.engine.functional import grad
from gradcalc.errors import GradcalcError
from gradcalc.language.parse import parse
from gradcalc.limits import DEFAULT_LIMITS

X = np.array([[0.3, -1.2, 0.7], [1.5, 0.4, -0.6]])
PROGRAMS = [
    "y = sum(x/sum(x**2, axis=1, keepdims=True))",
    "y = sum(exp(x)/sum(exp(x), axis=1, keepdims=True)*x)",
    "y = sum((x - mean(x, axis=0, keepdims=True))**2)",
    "y = sum(sin(x)*sum(x, keepdims=True, axis=-1))",
    "y = sum(x*mean(x, axis=0, keepdims=False))",
]


def value(program: str, x: np.ndarray) -> float:
    out = run_numeric(parse(program), {"x": x}, of="y", limits=DEFAULT_LIMITS)
    return float(np.asarray(ops.value(out)))


def tape_gradient(program: str, x: np.ndarray) -> np.ndarray:
    f, _ = as_function(parse(program), ["x"], {}, of="y", limits=DEFAULT_LIMITS)
    return np.asarray(grad(f, x))


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_tape_gradient_matches_central_differences(program):
    g, h = tape_gradient(program, X), 1e-6
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = h
        fd = (value(program, X + e) - value(program, X - e)) / (2 * h)
        assert g[i] == pytest.approx(fd, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_symbolic_backend_agrees(program):
    """The symbolic run (sympy's expressions of the entries of x) has the same value and,
    differentiated by sympy, the tape's gradient."""
    import sympy as sp

    out, symbols = symbolic_output(parse(program), {"x": X}, ["x"], {}, "y",
                                   limits=DEFAULT_LIMITS)
    expr, entries = np.asarray(out, dtype=object).item(), np.asarray(symbols["x"])
    at = {entries[i]: X[i] for i in np.ndindex(X.shape)}
    assert float(sp.N(expr.subs(at))) == pytest.approx(value(program, X), rel=1e-12)
    d = np.array([[float(sp.N(sp.diff(expr, entries[i, j]).subs(at))) for j in range(3)]
                  for i in range(2)])
    np.testing.assert_allclose(d, tape_gradient(program, X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_vectorised_backend_equals_single_points(program):
    xs = np.stack([X, X[::-1], 2 * X])
    out, derivative, _, _ = batched.evaluate(parse(program), {"x": xs}, ["x"], "y",
                                             DEFAULT_LIMITS)
    for k in range(len(xs)):
        assert out[k] == pytest.approx(value(program, xs[k]), rel=1e-12)
        np.testing.assert_allclose(derivative["x"][k], tape_gradient(program, xs[k]),
                                   rtol=1e-12)


def test_the_kept_axis_has_length_one():
    kept = run_numeric(parse("y = sum(x, axis=1, keepdims=True)"), {"x": X}, of="y")
    assert np.shape(ops.value(kept)) == (2, 1)
    dropped = run_numeric(parse("y = mean(x, axis=0, keepdims=False)"), {"x": X}, of="y")
    assert np.shape(ops.value(dropped)) == (3,)


@pytest.mark.parametrize("text,message", [
    ("sum(x, keepdims=True)", "goes with an axis, e.g. sum(x, axis=1, keepdims=True)"),
    ("sum(x, axis=1, keepdims=1)", "keepdims= at line 1, column 16 takes True or False"),
    ("max(x, axis=1, keepdims=True)", "(keepdims= goes with sum and mean)"),
    ("sum(x, axis=1, keepdims=y)", "takes True or False"),
])
def test_what_keepdims_takes(text, message):
    with pytest.raises(GradcalcError) as err:
        parse(text)
    assert message in err.value.message


def test_explain_writes_keepdims_back_as_it_was_written():
    from gradcalc.engine.ops import FUNCTIONS, takes_axis
    from gradcalc.language.unparse import KEEPDIMS

    assert set(KEEPDIMS) == {n for n in FUNCTIONS if takes_axis(n) and FUNCTIONS[n][1][1] == 3}
