"""Functional helpers (grad, vjp, jvp, jacobian, hessian) and higher derivatives.

Property tests build random programs from a small grammar over inputs x, y (scalars) and
v (a 3-vector): once with gradcalc's library API (operators, tensor methods, module-level
functions) and once, the same expression, directly in sympy. Then:
- Hessians equal sympy's and are symmetric;
- gradients recorded with create_graph=True, differentiated again, equal sympy's second
  derivatives;
- jvp and vjp agree: <u, J v> computed both ways (and with the Jacobian).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gradcalc
from gradcalc import Tensor

from conftest import examples

# --------------------------------------------------------------------------- unit tests


def test_grad_of_a_scalar_function():
    g = gradcalc.grad(lambda x: (x**2).sum(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(g, [2.0, 4.0, 6.0])
    assert isinstance(g, np.ndarray)


def test_grad_with_a_tuple_of_inputs_returns_a_tuple():
    gx, gy = gradcalc.grad(lambda x, y: (x * y).sum() + y**2, ([1.0, 2.0], 3.0))
    np.testing.assert_allclose(gx, [3.0, 3.0])
    np.testing.assert_allclose(gy, 3.0 + 6.0)
    assert np.shape(gy) == ()


def test_grad_needs_a_scalar_output():
    with pytest.raises(ValueError, match="scalar output"):
        gradcalc.grad(lambda x: x * 2, [1.0, 2.0])


def test_grad_of_an_unused_input_is_zeros():
    gx, gy = gradcalc.grad(lambda x, y: (x**2).sum(), ([1.0, 2.0], [5.0, 6.0, 7.0]))
    np.testing.assert_allclose(gy, [0.0, 0.0, 0.0])


def test_vjp_is_backward_with_weights():
    out, g = gradcalc.vjp(lambda x: 2 * x**2, [1.0, 1.0, 1.0], [0.1, 1.0, 0.001])
    np.testing.assert_allclose(out, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(g, [0.4, 4.0, 0.004])


def test_vjp_checks_the_shape_of_v():
    with pytest.raises(ValueError, match="shape"):
        gradcalc.vjp(lambda x: 2 * x, [1.0, 1.0, 1.0], [1.0, 1.0])


def test_jvp_pushes_a_tangent_forward():
    out, t = gradcalc.jvp(lambda x: gradcalc.stack([x[0] * x[1], gradcalc.sin(x[1])]),
                          [2.0, 3.0], [1.0, 0.5])
    np.testing.assert_allclose(out, [6.0, np.sin(3.0)])
    np.testing.assert_allclose(t, [3.0 + 2.0 * 0.5, np.cos(3.0) * 0.5])


def test_jvp_with_tuples_and_shape_check():
    out, t = gradcalc.jvp(lambda a, b: a * b, ([1.0, 2.0], 3.0), ([1.0, 0.0], 1.0))
    np.testing.assert_allclose(t, [3.0 + 1.0, 0.0 + 2.0])
    with pytest.raises(ValueError, match="shapes"):
        gradcalc.jvp(lambda a, b: a * b, ([1.0, 2.0], 3.0), ([1.0, 0.0], [1.0]))


def test_jacobian_of_the_tutorial_program():
    def k(m):
        return gradcalc.stack([m[0] ** 2 + 3 * m[1], m[1] ** 2 + 2 * m[0]])

    np.testing.assert_allclose(gradcalc.jacobian(k, [2.0, 4.0]), [[4.0, 3.0], [2.0, 8.0]])


def test_jacobian_shapes_are_output_then_input():
    j = gradcalc.jacobian(lambda a: a.sum(0) * 2, np.ones((2, 3)))
    assert j.shape == (3, 2, 3)
    ja, jb = gradcalc.jacobian(lambda a, b: a * b, ([1.0, 2.0], 5.0))
    np.testing.assert_allclose(ja, [[5.0, 0.0], [0.0, 5.0]])
    np.testing.assert_allclose(jb, [1.0, 2.0])


def test_hessian_of_a_known_function():
    h = gradcalc.hessian(lambda x: x[0] ** 2 * x[1] + gradcalc.sin(x[1]), [1.0, 2.0])
    np.testing.assert_allclose(h, [[4.0, 2.0], [2.0, -np.sin(2.0)]])


def test_hessian_blocks_for_a_tuple():
    (hxx, hxy), (hyx, hyy) = gradcalc.hessian(lambda x, y: (x * x).sum() * y, ([1.0, 2.0], 3.0))
    np.testing.assert_allclose(hxx, 6.0 * np.eye(2))
    np.testing.assert_allclose(hxy, [2.0, 4.0])
    np.testing.assert_allclose(hyx, [2.0, 4.0])
    np.testing.assert_allclose(hyy, 0.0)


def test_hessian_needs_a_scalar_output():
    with pytest.raises(ValueError, match="scalar output"):
        gradcalc.hessian(lambda x: x * x, [1.0, 2.0])


def test_helpers_accept_tensors_and_constant_functions():
    x = gradcalc.tensor([1.0, 2.0])
    np.testing.assert_allclose(gradcalc.grad(lambda a: (a * a).sum(), x), [2.0, 4.0])
    np.testing.assert_allclose(gradcalc.grad(lambda a: gradcalc.tensor(3.0), x), [0.0, 0.0])
    np.testing.assert_allclose(gradcalc.hessian(lambda a: a.sum(), x), np.zeros((2, 2)))


def test_third_derivative_through_create_graph():
    x = gradcalc.tensor(0.7, requires_grad=True)
    y = gradcalc.sin(x) * x**2
    (d1,) = gradcalc.autograd.grad(y, x, create_graph=True)
    (d2,) = gradcalc.autograd.grad(d1, x, create_graph=True)
    (d3,) = gradcalc.autograd.grad(d2, x)
    s = sp.Symbol("s")
    expected = [float(sp.diff(sp.sin(s) * s**2, s, k).subs(s, 0.7)) for k in (1, 2, 3)]
    np.testing.assert_allclose([d1.item(), d2.item(), d3.item()], expected, rtol=1e-12)


# --------------------------------------------------------------------------- random programs

A = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-1.0, 1.0, 1.0]]
UNARY = ["sin", "cos", "tanh", "exp", "sigmoid", "softplus", "sqrt1", "log1", "square",
         "cube", "neg", "atan"]
BINARY = ["add", "sub", "mul", "div"]
REDUCE = ["sum", "mean", "prod", "dot", "norm"]
SCALAR_LEAVES = [("x",), ("y",), ("vi", 0), ("vi", 1), ("vi", 2), ("c", 0.5), ("c", 2.0)]


@st.composite
def scalar_expr(draw, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(SCALAR_LEAVES))
    kind = draw(st.sampled_from(["unary", "binary", "reduce"]))
    if kind == "unary":
        return ("u", draw(st.sampled_from(UNARY)), draw(scalar_expr(depth - 1)))
    if kind == "binary":
        return ("b", draw(st.sampled_from(BINARY)), draw(scalar_expr(depth - 1)),
                draw(scalar_expr(depth - 1)))
    return ("r", draw(st.sampled_from(REDUCE)), draw(vector_expr(depth - 1)))


@st.composite
def vector_expr(draw, depth: int = 3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return ("v",)
    kind = draw(st.sampled_from(["unary", "binary", "mixed", "stack", "matvec"]))
    if kind == "unary":
        return ("u", draw(st.sampled_from(UNARY)), draw(vector_expr(depth - 1)))
    if kind == "binary":
        return ("b", draw(st.sampled_from(BINARY)), draw(vector_expr(depth - 1)),
                draw(vector_expr(depth - 1)))
    if kind == "mixed":
        pair = [draw(vector_expr(depth - 1)), draw(scalar_expr(depth - 1))]
        if draw(st.booleans()):
            pair.reverse()
        return ("b", draw(st.sampled_from(BINARY)), *pair)
    if kind == "stack":
        return ("stack", *(draw(scalar_expr(depth - 1)) for _ in range(3)))
    return ("matvec", draw(vector_expr(depth - 1)))


# the same grammar, evaluated twice -------------------------------------------------------

T_UNARY = {
    "sin": gradcalc.sin, "cos": lambda a: gradcalc.cos(a), "tanh": gradcalc.tanh,
    "exp": lambda a: gradcalc.exp(0.5 * a), "sigmoid": gradcalc.sigmoid,
    "softplus": gradcalc.softplus, "sqrt1": lambda a: gradcalc.sqrt(1 + a * a),
    "log1": lambda a: gradcalc.log(1 + a**2), "square": lambda a: a**2,
    "cube": lambda a: a**3, "neg": lambda a: -a, "atan": gradcalc.atan,
}
S_UNARY = {
    "sin": sp.sin, "cos": sp.cos, "tanh": sp.tanh, "exp": lambda a: sp.exp(a / 2),
    "sigmoid": lambda a: 1 / (1 + sp.exp(-a)), "softplus": lambda a: sp.log(1 + sp.exp(a)),
    "sqrt1": lambda a: sp.sqrt(1 + a * a), "log1": lambda a: sp.log(1 + a**2),
    "square": lambda a: a**2, "cube": lambda a: a**3, "neg": lambda a: -a, "atan": sp.atan,
}
BIN = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.5 + b * b),
}
T_REDUCE = {
    "sum": lambda v: v.sum(), "mean": lambda v: gradcalc.mean(v), "prod": lambda v: v.prod(),
    "dot": lambda v: v @ v, "norm": lambda v: v.norm(),
}
S_REDUCE = {
    "sum": lambda v: sum(v), "mean": lambda v: sum(v) / 3, "prod": lambda v: v[0] * v[1] * v[2],
    "dot": lambda v: sum(e * e for e in v), "norm": lambda v: sp.sqrt(sum(e * e for e in v)),
}


def eval_tensor(e, env):
    tag = e[0]
    if tag in ("x", "y", "v"):
        return env[tag]
    if tag == "vi":
        return env["v"][e[1]]
    if tag == "c":
        return e[1]
    if tag == "u":
        return T_UNARY[e[1]](eval_tensor(e[2], env))
    if tag == "b":
        return BIN[e[1]](eval_tensor(e[2], env), eval_tensor(e[3], env))
    if tag == "r":
        return T_REDUCE[e[1]](eval_tensor(e[2], env))
    if tag == "stack":
        return gradcalc.stack([eval_tensor(s, env) for s in e[1:]])
    if tag == "matvec":
        return gradcalc.tensor(A) @ eval_tensor(e[1], env)
    raise AssertionError(e)


def _lift(f):
    """Apply a scalar sympy function elementwise over 3-vectors (lists), broadcasting."""

    def g(*args):
        if any(isinstance(a, list) for a in args):
            cols = [a if isinstance(a, list) else [a] * 3 for a in args]
            return [f(*row) for row in zip(*cols, strict=True)]
        return f(*args)

    return g


def eval_sympy(e, env):
    tag = e[0]
    if tag in ("x", "y", "v"):
        return env[tag]
    if tag == "vi":
        return env["v"][e[1]]
    if tag == "c":
        return sp.nsimplify(e[1])
    if tag == "u":
        return _lift(S_UNARY[e[1]])(eval_sympy(e[2], env))
    if tag == "b":
        return _lift(BIN[e[1]])(eval_sympy(e[2], env), eval_sympy(e[3], env))
    if tag == "r":
        return S_REDUCE[e[1]](eval_sympy(e[2], env))
    if tag == "stack":
        return [eval_sympy(s, env) for s in e[1:]]
    if tag == "matvec":
        v = eval_sympy(e[1], env)
        return [sum(sp.nsimplify(A[i][j]) * v[j] for j in range(3)) for i in range(3)]
    raise AssertionError(e)


X, Y = sp.symbols("x y")
V = list(sp.symbols("v0:3"))
SYMBOLS = [X, Y, *V]
SYM_ENV = {"x": X, "y": Y, "v": V}

# Inputs are 0 or at least 1e-3 in size: prod's VJP divides by the factors (ans / x), and
# differentiated again that formula cancels catastrophically for factors near the smallest
# floats (x = 5e-40 gives an error of 1e23 on a diagonal that is exactly 0). Exact zeros take
# prod's other, division-free path and are kept.
COORDINATE = st.floats(-1.5, 1.5).map(lambda f: 0.0 if abs(f) < 1e-3 else f)
POINTS = st.tuples(*(COORDINATE for _ in range(5)))
SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def point_args(p):
    return (np.float64(p[0]), np.float64(p[1]), np.array(p[2:], dtype=np.float64))


def flat_vector(p):
    return np.array(p, dtype=np.float64)


def function_of(expr):
    return lambda x, y, v: eval_tensor(expr, {"x": x, "y": y, "v": v})


def well_conditioned(expr, p) -> bool:
    """Keep away from norm(0) (a kink) and from values too large to compare closely."""
    with gradcalc.no_grad():
        env = {"x": gradcalc.tensor(p[0]), "y": gradcalc.tensor(p[1]),
               "v": gradcalc.tensor(p[2:])}

        def walk(e):
            if e[0] == "r" and e[1] == "norm":
                if float(gradcalc.tensor(eval_tensor(e[2], env)).norm()) < 0.2:
                    return False
            return all(walk(c) for c in e[1:] if isinstance(c, tuple))

        value = np.asarray(gradcalc.tensor(eval_tensor(expr, env)).tolist())
        return walk(expr) and bool(np.all(np.abs(value) < 1e6))


def sympy_numbers(matrix, p):
    f = sp.lambdify(SYMBOLS, matrix, "numpy")
    return np.array(f(*p), dtype=np.float64)


def assemble(blocks):
    """5x5 matrix from gradcalc.hessian's blocks for (x, y, v)."""
    sizes = [1, 1, 3]
    rows = []
    for i, row in enumerate(blocks):
        rows.append(np.hstack([np.reshape(b, (sizes[i], sizes[j])) for j, b in enumerate(row)]))
    return np.vstack(rows)


@SETTINGS
@given(scalar_expr(), POINTS)
def test_hessian_equals_sympy_and_is_symmetric(expr, p):
    assume(well_conditioned(expr, p))
    h = assemble(gradcalc.hessian(function_of(expr), point_args(p)))
    f = eval_sympy(expr, SYM_ENV)
    expected = sympy_numbers(sp.hessian(sp.sympify(f), SYMBOLS), p)
    np.testing.assert_allclose(h, expected, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(scalar_expr(), POINTS)
def test_create_graph_gradients_equal_sympy_second_derivatives(expr, p):
    assume(well_conditioned(expr, p))
    x, y, v = (gradcalc.tensor(a, requires_grad=True) for a in point_args(p))
    out = gradcalc.tensor(0.0) + eval_tensor(expr, {"x": x, "y": y, "v": v})
    assume(out.requires_grad)
    first = gradcalc.autograd.grad(out, (x, y, v), create_graph=True, materialize_grads=True)
    flat = [first[0], first[1], first[2][0], first[2][1], first[2][2]]
    f = sp.sympify(eval_sympy(expr, SYM_ENV))
    gradient = [sp.diff(f, s) for s in SYMBOLS]
    np.testing.assert_allclose([float(g.detach()) for g in flat],
                               sympy_numbers(sp.Matrix(gradient), p).reshape(-1),
                               rtol=1e-8, atol=1e-8)
    second = []
    for g in flat:
        if not g.requires_grad:  # the gradient is constant: its derivative is 0
            second.append(np.zeros(5))
            continue
        gx, gy, gv = gradcalc.autograd.grad(g, (x, y, v), retain_graph=True,
                                            materialize_grads=True)
        second.append(np.concatenate([[gx.item()], [gy.item()], gv.numpy()]))
    expected = sympy_numbers(sp.Matrix([[sp.diff(d, s) for s in SYMBOLS] for d in gradient]), p)
    np.testing.assert_allclose(np.array(second), expected, rtol=1e-8, atol=1e-8)


@SETTINGS
@given(scalar_expr(), POINTS, st.tuples(*(st.floats(-1, 1) for _ in range(5))))
def test_backward_with_create_graph_gives_hessian_vector_products(expr, p, u):
    """x.grad from backward(create_graph=True), dotted with u and differentiated: H u."""
    assume(well_conditioned(expr, p))
    x, y, v = (gradcalc.tensor(a, requires_grad=True) for a in point_args(p))
    out = gradcalc.tensor(0.0) + eval_tensor(expr, {"x": x, "y": y, "v": v})
    assume(out.requires_grad)
    out.backward(create_graph=True)
    grads = [t.grad if t.grad is not None else gradcalc.zeros_like(t) for t in (x, y, v)]
    directional = grads[0] * u[0] + grads[1] * u[1] + (grads[2] * gradcalc.tensor(u[2:])).sum()
    for t in (x, y, v):
        t.grad = None
    h = assemble(gradcalc.hessian(function_of(expr), point_args(p)))
    if directional.requires_grad:
        directional.backward()
    got = np.concatenate([[0.0 if t.grad is None else t.grad.item()] for t in (x, y)]
                         + [np.zeros(3) if v.grad is None else v.grad.numpy()])
    np.testing.assert_allclose(got, h @ np.array(u), rtol=1e-8, atol=1e-8)


@SETTINGS
@given(vector_expr(), POINTS, st.tuples(*(st.floats(-1, 1) for _ in range(3))),
       st.tuples(*(st.floats(-1, 1) for _ in range(5))))
def test_jvp_and_vjp_agree(expr, p, u, t):
    """<u, J t> from jvp equals <vjp(u), t> equals u·J·t with J from jacobian (and sympy)."""
    assume(well_conditioned(expr, p))
    f = function_of(expr)
    u = np.array(u)
    tangent = (np.float64(t[0]), np.float64(t[1]), np.array(t[2:]))
    out, jt = gradcalc.jvp(f, point_args(p), tangent)
    out2, (ux, uy, uv) = gradcalc.vjp(f, point_args(p), u)
    np.testing.assert_allclose(out, out2)
    forward = float(u @ jt)
    reverse = float(ux * t[0] + uy * t[1] + uv @ np.array(t[2:]))
    scale = 1.0 + abs(forward)
    assert abs(forward - reverse) <= 1e-9 * scale
    blocks = gradcalc.jacobian(f, point_args(p))
    jac = np.hstack([np.reshape(blocks[0], (3, 1)), np.reshape(blocks[1], (3, 1)), blocks[2]])
    assert abs(float(u @ jac @ np.array(t)) - forward) <= 1e-9 * scale
    expected = sympy_numbers(sp.Matrix(eval_sympy(expr, SYM_ENV)).jacobian(SYMBOLS), p)
    np.testing.assert_allclose(jac, expected, rtol=1e-8, atol=1e-8)


def test_grammar_evaluators_agree_on_values():
    expr = ("r", "sum", ("b", "mul", ("matvec", ("u", "sin", ("v",))), ("vi", 1)))
    p = (0.1, 0.2, 0.3, -0.4, 0.5)
    got = float(eval_tensor(expr, {"x": p[0], "y": p[1], "v": gradcalc.tensor(p[2:])}))
    expected = float(sp.sympify(eval_sympy(expr, SYM_ENV)).subs(dict(zip(SYMBOLS, p,
                                                                         strict=True))))
    assert got == pytest.approx(expected, rel=1e-12)
    assert isinstance(gradcalc.sin(0.5), Tensor)
