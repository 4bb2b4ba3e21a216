"""--symbolic: the derivative as a formula, against sympy's own derivative of each
primitive's twin (parametrised over the primitives table), and through the CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from typer.testing import CliRunner

from gradcalc.cli import app
from gradcalc.commands.one_point import Job, run
from gradcalc.engine.ops import FUNCTIONS, PRIMITIVES
from gradcalc.limits import DEFAULT_LIMITS
from gradcalc.verify.symbolic_formula import exact_number

#: how each primitive is written in the language: (program, point); x and w are inputs
SPELLINGS = {
    "neg": ("y = -x", "x=0.3"), "add": ("y = x + w", "x=0.3, w=0.7"),
    "sub": ("y = x - w", "x=0.3, w=0.7"), "mul": ("y = x * w", "x=0.3, w=0.7"),
    "div": ("y = x / w", "x=0.3, w=0.7"), "pow": ("y = x ** w", "x=0.3, w=0.7"),
    "matmul": ("y = x @ w", "x=[0.3, 0.4], w=[0.5, 0.6]"),
    "atan2": ("y = atan2(x, w)", "x=0.3, w=0.7"),
    "maximum": ("y = maximum(x, w)", "x=0.3, w=0.7"),
    "minimum": ("y = minimum(x, w)", "x=0.3, w=0.7"),
    "clamp": ("y = clamp(x, w, 0.9)", "x=0.3, w=0.1"),
    "sum": ("y = sum(x)", "x=[0.3, 0.4, 0.5]"), "mean": ("y = mean(x)", "x=[0.3, 0.4, 0.5]"),
    "prod": ("y = prod(x)", "x=[0.3, 0.4, 0.5]"), "norm": ("y = norm(x)", "x=[0.3, 0.4]"),
    "max": ("y = max(x)", "x=[0.3, 0.5, 0.4]"), "min": ("y = min(x)", "x=[0.3, 0.5, 0.4]"),
    "amax": ("y = amax(x, 0)", "x=[0.3, 0.5, 0.4]"),
    "amin": ("y = amin(x)", "x=[0.3, 0.5, 0.4]"),
    "logsumexp": ("y = logsumexp(x)", "x=[0.3, 0.4, 0.5]"),
    "logb": ("y = log(x, w)", "x=0.3, w=2.5"),
    "log_softmax": ("y = sum(log_softmax(x))", "x=[0.3, 0.4, 0.5]"),
    # every elementwise function of one argument in the table, at x = 0.3 or, for a
    # function defined on part of the line only (acosh, asec), in the middle of its domain
    **{name: (f"y = {name}(x)", f"x={sum(p.domain) / 2 if p.domain else 0.3}")
       for name, p in PRIMITIVES.items() if p.elementwise and p.arity == (1, 1)},
}
#: primitives that move or select elements rather than compute (their derivative is a
#: 0/1 pattern, tested through the programs that use them: getitem, stack, ...)
STRUCTURAL = {"where", "transpose", "reshape", "broadcast_to", "clone", "getitem", "scatter",
              "index_put", "stack", "zero_", "fill_", "copy_", "add_alpha",
              "softmax"}  # softmax: its elements sum to 1, so the sum-of-twin test is void


#: parts of other primitives' recorded derivatives, which no program spells (relu's and
#: abs's second-order nodes, as PyTorch records them)
DERIVATIVE_HELPERS = {"threshold_backward", "sgn"}


#: the library's own primitives, which the language does not spell (conv, cumsum, ...):
#: tests/engine/test_ops.py checks them against finite differences and their twins
LIBRARY_ONLY = {"cat", "ceil", "conv", "conv_input_grad", "conv_weight_grad", "cumprod",
                "cumsum", "einsum", "elu", "erf", "flip", "floor", "hardtanh",
                "hardtanh_backward", "leaky_relu", "leaky_relu_backward", "pad", "repeat",
                "roll", "round", "tril", "triu", "trunc"}


def test_every_primitive_is_covered():
    assert set(PRIMITIVES) == set(SPELLINGS) | STRUCTURAL | DERIVATIVE_HELPERS | LIBRARY_ONLY
    assert not (set(SPELLINGS) | set(FUNCTIONS)) & LIBRARY_ONLY


def _point(at: str) -> dict[str, np.ndarray]:
    from gradcalc.language.values import parse_assignments

    return parse_assignments([at])


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_formula_agrees_with_sympy(name):
    program, at = SPELLINGS[name]
    point = _point(at)
    result = run(Job("grad", program, at=[at], symbolic=True, check=False))
    assert result.formulas.reason is None
    prim = PRIMITIVES[name]
    syms = {n: np.asarray(sp.Symbol(n, real=True), dtype=object) if v.ndim == 0 else
            np.array([sp.Symbol(f"{n}[{i}]", real=True) for i in range(v.size)], dtype=object)
            for n, v in point.items()}
    args = [syms["x"]] + ([syms["w"]] if "w" in syms and "w" in program else [])
    extra = [0.9] if name == "clamp" else []
    twin = sp.sympify(np.asarray(prim.sym(*args, *extra), dtype=object).sum())
    subs = {s: sp.Float(float(v)) for n in syms for s, v in
            zip(np.asarray(syms[n]).reshape(-1), point[n].reshape(-1))}
    for n, formula in result.formulas.items.items():
        got = np.asarray(formula.expr, dtype=object).reshape(-1)
        want = [sp.diff(twin, s) for s in np.asarray(syms[n]).reshape(-1)]
        for g, wnt in zip(got, want, strict=True):
            gv = complex(sp.sympify(g).xreplace(subs).evalf(30))
            wv = complex(sp.sympify(wnt).xreplace(subs).evalf(30))
            assert abs(gv - wv) <= 1e-12 * max(1.0, abs(wv)), (name, n, g, wnt)
        tape = result.derivative[n].reshape(-1)
        assert np.allclose([complex(sp.sympify(g).xreplace(subs)).real for g in got], tape)


def test_exact_value_at_the_point():
    result = run(Job("grad", "y = sin(x)", at=["x=pi/2"], symbolic=True))
    f = result.formulas.items["x"]
    assert f.text == "cos(x)" and f.exact == "0"
    assert result.derivative["x"] != 0  # float64's cos(π/2) is 6e-17: the exact value is 0


def test_exact_numbers():
    assert exact_number(2.0) == 2
    assert exact_number(0.1) == sp.Rational(1, 10)
    assert exact_number(np.pi / 2) == sp.pi / 2
    assert exact_number(0.7390851332151607) is None  # cos's fixed point: no closed form here
    assert exact_number(float("nan")) is None


def test_the_graph_example_formulas():
    result = run(Job("grad", "y = (a+b)*(b+c)", at=["a=1, b=2, c=3"], symbolic=True))
    texts = {k: f.text for k, f in result.formulas.items.items()}
    assert texts == {"a": "b + c", "b": "a + 2*b + c", "c": "a + b"}
    assert {k: f.exact for k, f in result.formulas.items.items()} == {"a": "5", "b": "8",
                                                                      "c": "3"}


def test_jacobian_and_hessian_formulas():
    jac = run(Job("jacobian", "y = x**2", at=["x=[2,3]"], symbolic=True))
    assert jac.formulas.items["x"].text == "[[2*x[0], 0], [0, 2*x[1]]]"
    hes = run(Job("hessian", "y = x*w**2", at=["x=1, w=2"], symbolic=True))
    assert {k: f.text for k, f in hes.formulas.items.items()} == {
        "x,x": "0", "x,w": "2*w", "w,x": "2*w", "w,w": "2*x"}


def test_weights_contract_the_jacobian():
    result = run(Job("grad", "y = x**2", at=["x=[2,3]"], weights="[1, 0]", symbolic=True))
    assert result.formulas.items["x"].text == "[2*x[0], 0]"


runner = CliRunner()


def test_cli_symbolic_json_and_latex():
    out = runner.invoke(app, ["grad", "y = sin(x)", "--at", "x=pi/2", "--symbolic", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["symbolic"]["formulas"]["x"] == {
        "formula": "cos(x)", "latex": r"\cos{\left(x \right)}", "exact": "0",
        "simplified": True}
    plain = runner.invoke(app, ["grad", "y = x**3", "--at", "x=2", "--latex", "--plain"])
    assert plain.output.splitlines() == ["12", "3 x^{2}"]
    rich = runner.invoke(app, ["grad", "y = x**3", "--at", "x=2", "--symbolic"])
    assert "∂y/∂x =" in rich.output and "at the point, exactly: 12" in rich.output


def _spin(e):
    while True:  # sympy's simplify on a hostile formula: it works, and never ends
        pass


def test_a_formula_out_of_time_is_shown_unsimplified(monkeypatch):
    from gradcalc.verify import symbolic_formula

    monkeypatch.setattr(symbolic_formula.sp, "simplify", _spin)
    limits = replace(DEFAULT_LIMITS, check_seconds=0.3)
    result = run(Job("grad", "y = sin(x)*x", at=["x=0.5"], symbolic=True, check=False,
                     limits=limits))
    f = result.formulas.items["x"]
    assert not f.simplified
    assert f.text == "x*cos(x) + sin(x)"


def test_latex_writes_elements_as_subscripts():
    result = run(Job("grad", "y = x[0]*x[1]**2", at=["x=[1, 2]"], symbolic=True))
    assert result.formulas.items["x"].latex == \
        r"\left[\begin{matrix}x_{1}^{2} & 2 x_{0} x_{1}\end{matrix}\right]"
