"""The symbolic backend: programs run on sympy along the numeric run's path."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from gradcalc.backends import symbolic
from gradcalc.backends.symbolic import (
    SymbolicBackend,
    SymbolicBudgetExceeded,
    record_path,
    symbolic_output,
    symbols_for,
    to_sympy,
)
from gradcalc.backends.symbolic_derivatives import (
    evaluate_expr,
    expression_text,
    hessian_at,
    jacobian_at,
    value_at,
)
from gradcalc.language.parse import parse
from gradcalc.language.program import Pos
from gradcalc.limits import DEFAULT_LIMITS, Limits

from conftest import BACKSTOP_SECONDS


def run(src: str, at: dict, wrt: list[str] | None = None, limits: Limits = DEFAULT_LIMITS):
    program = parse(src)
    values = {k: np.asarray(v, dtype=np.float64) for k, v in at.items()}
    wrt = list(values) if wrt is None else wrt
    out, syms = symbolic_output(program, values, wrt, {}, program.default_output(), None,
                                limits)
    point = {n: values[n] for n in wrt}
    return out, syms, point


def jac(src: str, at: dict, **kw):
    out, syms, point = run(src, at, **kw)
    return jacobian_at(out, syms, point), value_at(out, syms, point)


# --------------------------------------------------------------------------- numbers, symbols


def test_numbers_are_small_integers_or_exact_floats():
    assert to_sympy(3.0) == sp.Integer(3) and isinstance(to_sympy(3.0), sp.Integer)
    assert isinstance(to_sympy(1e6), sp.Integer)
    assert isinstance(to_sympy(1e7), sp.Float) and float(to_sympy(1e7)) == 1e7
    assert float(to_sympy(0.1)) == 0.1  # the exact binary value, not 1/10
    assert to_sympy(math.inf) is sp.oo and to_sympy(-math.inf) == -sp.oo
    assert to_sympy(math.nan) is sp.nan


def test_symbol_names_follow_indices():
    assert str(symbols_for("x", ()).item()) == "x"
    assert [str(s) for s in symbols_for("x", (3,))] == ["x[0]", "x[1]", "x[2]"]
    assert str(symbols_for("A", (2, 2))[0, 1]) == "A[0,1]"
    assert symbols_for("x", (2,))[0].is_real


# --------------------------------------------------------------------------- programs


def test_seed_loop_replays_the_numeric_path():
    d, value = jac("y = x*2; while norm(y) < 1000: y = y*2", {"x": [2, 3, 4]})
    np.testing.assert_array_equal(value, [512, 768, 1024])
    np.testing.assert_array_equal(d["x"], 256 * np.eye(3))


def test_list_literal_jacobian():
    d, _ = jac("k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", {"m": [2, 4]})
    np.testing.assert_array_equal(d["m"], [[4, 3], [2, 8]])


def test_chain_with_mean():
    d, value = jac("b = a + 3; c = b*b*3; out = mean(c)", {"a": [2, 3]})
    assert value == 91.5
    np.testing.assert_array_equal(d["a"], [15, 18])


def test_indexing_slices_and_negative_indices():
    src = "y = A[0, 1]*A[-1, -1] + sum(A[1, 0:2]) + x[-1]*sum(x[1:])"
    d, value = jac(src, {"A": [[1, 2], [3, 4]], "x": [1, 2, 3]})
    assert value == 2 * 4 + 7 + 3 * 5
    np.testing.assert_array_equal(d["A"], [[0, 4], [1, 3]])
    np.testing.assert_array_equal(d["x"], [0, 3, 3 + 5])


def test_matmul_dot_transpose():
    d, value = jac("y = A @ x + dot(x, x) + transpose(A) @ x", {"A": [[1, 2], [3, 4]],
                                                              "x": [1, 1]})
    np.testing.assert_array_equal(value, [3 + 2 + 4, 7 + 2 + 6])
    np.testing.assert_array_equal(d["x"], [[1 + 2 + 1, 2 + 2 + 3], [3 + 2 + 2, 4 + 2 + 4]])
    assert d["A"].shape == (2, 2, 2)


def test_where_uses_the_recorded_mask():
    out, syms, point = run("y = where(x > 0, sqrt(x), 0*x)", {"x": [0.0, 4.0]})
    assert out[0] == 0  # the masked branch is not even built
    d = jacobian_at(out, syms, point)["x"]
    np.testing.assert_array_equal(d, [[0, 0], [0, 0.25]])


def test_reductions_with_axes():
    src = "s = sum(A, 0); m = mean(A, 1); y = prod(s) + sum(m) + norm(A) + prod(A, 1)[0]"
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    d, value = jac(src, {"A": A})
    expected_value = (4 * 6) + (1.5 + 3.5) + np.sqrt(30) + 2
    assert value == pytest.approx(expected_value)
    expected = np.array([[6, 4], [6, 4]]) + 0.5 + A / np.sqrt(30) + np.array([[2, 1], [0, 0]])
    np.testing.assert_allclose(d["A"], expected, rtol=1e-14)


def test_if_elif_else_and_for_loop_variable():
    src = ("if x[0] > 0 and x[1] < 3: y = x[0]*x[1]\n"
           "elif x[0] < -1: y = x[0]\n"
           "else: y = 0*x[0]\n"
           "for i in range(3): y = y + x[0]**i")
    out, syms, point = run(src, {"x": [2, 1]})
    assert sp.simplify(out.item() - (syms["x"][0] * syms["x"][1] + 1 + syms["x"][0]
                                     + syms["x"][0] ** 2)) == 0


def test_nested_decisions_replay_in_order():
    # a condition made of comparisons, and an index whose index is itself indexed
    d, value = jac("if x[0] > 0 and x[1] < 3: y = x[x[2]] * 3\nelse: y = x[0]",
                   {"x": [1, 2, 1]})
    assert value == 6
    np.testing.assert_array_equal(d["x"], [0, 3, 0])


def test_inputs_not_differentiated_are_numbers():
    out, syms, _ = run("y = (a+b)*(b+c)", {"a": 1, "b": 2, "c": 3}, wrt=["b"])
    assert set(syms) == {"b"}
    assert out.item().free_symbols == {syms["b"].item()}


def test_elementwise_functions_and_hessian():
    src = "y = sin(x)*cos(z) + exp(x)*tanh(z) + log(z)*sqrt(z) + atan2(x, z) + softplus(x)"
    out, syms, point = run(src, {"x": 0.3, "z": 0.7})
    h = hessian_at(out, syms, point)
    assert set(h) == {("x", "x"), ("x", "z"), ("z", "x"), ("z", "z")}
    assert h[("x", "z")] == pytest.approx(h[("z", "x")], rel=1e-12)
    x, z = 0.3, 0.7
    dxdz = (-np.cos(x) * np.sin(z) + np.exp(x) / np.cosh(z) ** 2
            + (x**2 - z**2) / (x**2 + z**2) ** 2)
    assert h[("x", "z")] == pytest.approx(dxdz, rel=1e-12)


def test_piecewise_twins_take_the_tapes_branch_or_stay_whole():
    out, syms, _ = run("y = relu(x) + maximum(x, 1)", {"x": 2.0})
    x = syms["x"].item()
    assert out.item() == 2 * x  # both branches chosen by float64 comparisons, as the tape
    program = parse("y = relu(x)")
    whole, syms = symbolic_output(program, {"x": np.array(2.0)}, ["x"], {}, "y", None,
                                  local=False)
    assert isinstance(whole.item(), sp.Piecewise)


def test_piecewise_twins_follow_pytorch_at_kinks():
    d, _ = jac("y = abs(x) + relu(x) + maximum(x, 0) + clamp(x, 0, 1)", {"x": 0.0})
    assert d["x"] == 0 + 0 + 0.5 + 1


# --------------------------------------------------------------------------- folding, budget


@pytest.mark.parametrize("src", ["y = 9**9**9 + x", "y = 2**100000 * x",
                                 "y = [x, 9] ** (9**9)", "y = x ** (2**100000)"])
def test_constant_folding_is_instant(src):
    started = time.monotonic()
    out, syms, point = run(src, {"x": 2.0})
    jacobian_at(out, syms, point)
    assert time.monotonic() - started < BACKSTOP_SECONDS  # exact arithmetic takes hours


def test_folded_constants_are_floats():
    out, _, _ = run("y = x + 9**9**9 + 2/3 + 2*3", {"x": 1.0})
    numbers = [a for a in out.item().args if a.is_Number]
    assert sp.oo in numbers or out.item() == sp.oo


def test_exact_numbers_cannot_explode():
    with pytest.raises(SymbolicBudgetExceeded):
        run("y = 2*x; for i in range(40): y = y*y", {"x": 0.5})


def test_budget_exception_on_a_huge_program():
    with pytest.raises(SymbolicBudgetExceeded):
        run("y = x; for i in range(5000): y = y + x*i", {"x": 1.0})


def test_budget_counts_array_elements():
    with pytest.raises(SymbolicBudgetExceeded):
        run("y = sum(ones(100000) * x)", {"x": 1.0})
    with pytest.raises(SymbolicBudgetExceeded):
        run("y = sum(x)", {"x": np.ones(6000)})


def test_budget_is_settable():
    with pytest.raises(SymbolicBudgetExceeded):
        run("y = sin(x) + cos(x)", {"x": 1.0}, limits=Limits(max_symbolic_ops=2))


def test_backend_never_decides():
    backend = SymbolicBackend()
    pos = Pos(1, 1)
    with pytest.raises(symbolic.SymbolicUnsupported):
        backend.truth(backend.number(1.0), pos)
    with pytest.raises(symbolic.SymbolicUnsupported):
        backend.integer(backend.number(1.0), pos)
    with pytest.raises(symbolic.SymbolicUnsupported):
        backend.compare("<", backend.number(1.0), backend.number(2.0), pos)


def test_record_path_matches_a_plain_run():
    program = parse("y = x*2; while norm(y) < 1000: y = y*2")
    path, out = record_path(program, {"x": np.array([2.0, 3, 4])}, {}, "y")
    np.testing.assert_array_equal(out, [512, 768, 1024])
    assert path.record == [True] * 7 + [False]  # nested comparisons are not recorded


# --------------------------------------------------------------------------- evaluation


def test_simultaneous_substitution_at_the_zero_vector():
    # docs/checking.md (kinks): sequential subs gives (0, 0, nan); simultaneous gives nan everywhere
    d, _ = jac("y = sqrt(sum(v**2))", {"v": [0.0, 0.0, 0.0]})
    assert np.isnan(d["v"]).all()
    d, _ = jac("y = atan2(a, b)", {"a": 0.0, "b": 0.0})
    assert np.isnan(d["a"]) and np.isnan(d["b"])


X = sp.Symbol("x", real=True)


@pytest.mark.parametrize("expr, value, reason", [
    (sp.zoo, math.nan, "complex infinity"),
    (sp.nan, math.nan, "undefined"),
    (sp.oo, math.inf, None),
    (-sp.oo, -math.inf, None),
    (sp.sqrt(sp.Integer(-1)), math.nan, "complex"),
    (sp.DiracDelta(X), math.nan, "DiracDelta at 0"),
    (sp.Heaviside(X - 1) + sp.Heaviside(X), math.nan, "Heaviside at 0"),
    (sp.Heaviside(X + 1), 1.0, None),
    (1 / X, math.nan, "complex infinity"),
    (sp.Integer(3) / 4, 0.75, None),
])
def test_evaluation_classifies_non_real_values(expr, value, reason):
    got, why = evaluate_expr(expr, {X: sp.Float(0.0)})
    assert (math.isnan(got) and math.isnan(value)) or got == value
    assert why == reason


def test_evaluation_of_overflow_and_complex_points():
    d, value = jac("y = exp(x)", {"x": 1000.0})
    assert d["x"] == math.inf and value == math.inf
    d, value = jac("y = sqrt(x)", {"x": -1.0})
    assert np.isnan(d["x"]) and np.isnan(value)


def test_expression_text_is_short():
    x = sp.Symbol("x")
    assert expression_text(2 * x) == "2*x"
    long = sum(sp.Symbol(f"x{i}") ** i for i in range(100))
    text = expression_text(long, 50)
    assert len(text) == 50 and text.endswith("…")


# --------------------------------------------------------------------------- safety, imports


def test_no_text_reaches_sympy_parsers():
    source = Path(symbolic.__file__).read_text()
    for word in ("sympify(", "parse_expr(", "lambdify", "eval(", "exec("):
        assert word not in source.replace("evalf(", "")


def test_sympy_is_not_imported_by_the_engine():
    code = ("import sys, gradcalc, gradcalc.backends.numeric, gradcalc.engine.functional; "
            "print('sympy' in sys.modules, 'gradcalc.backends.symbolic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
