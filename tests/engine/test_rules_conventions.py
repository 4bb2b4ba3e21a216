"""PyTorch's conventions (docs/language.md): values and gradients at kinks and singular points.

One case per applicable row, asserted exactly: nan, signed infinities and the sign of a
zero gradient (row 34's -0) included. Rows 17-18 (max/amax reductions), 27 (heaviside)
and 31-33 (floor, round) name functions gradcalc does not have.
Each case is written against a module `m` (gradcalc) so the same lines can be replayed
against another library when the table is re-measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gradcalc as gc

from conftest import same_ieee

nan, inf = math.nan, math.inf


def _tensor_grad(f: Callable[..., Any], point: tuple) -> tuple[Any, list[Any]]:
    """Value and gradients through the PyTorch-shaped API: leaves, f, .backward()."""
    leaves = [gc.tensor(p, requires_grad=True) for p in point]
    out = f(gc, *leaves)
    out.backward()
    return out.tolist(), [leaf.grad.tolist() for leaf in leaves]


# (row, expression as in the table, f(m, *inputs), point, f(p) torch, d torch per input)
ROWS: list[tuple[int, str, Callable[..., Any], tuple, Any, tuple]] = [
    (1, "abs(x)", lambda m, x: m.abs(x), (0.0,), 0.0, (0.0,)),
    (2, "relu(x)", lambda m, x: m.relu(x), (0.0,), 0.0, (0.0,)),
    (3, "maximum(x, tensor 0)", lambda m, x: m.maximum(x, m.tensor(0.0)), (0.0,), 0.0, (0.5,)),
    (4, "x.clamp(min=0)", lambda m, x: x.clamp(min=0), (0.0,), 0.0, (1.0,)),
    (5, "sqrt(x)", lambda m, x: m.sqrt(x), (0.0,), 0.0, (inf,)),
    (6, "x**0.5", lambda m, x: x**0.5, (0.0,), 0.0, (inf,)),
    (7, "x**2", lambda m, x: x**2, (0.0,), 0.0, (0.0,)),
    (8, "x**2.0", lambda m, x: x**2.0, (0.0,), 0.0, (0.0,)),
    (9, "x**0", lambda m, x: x**0, (0.0,), 1.0, (0.0,)),
    (10, "x**y at 0**0", lambda m, x, y: x**y, (0.0, 0.0), 1.0, (0.0, 0.0)),
    (11, "x**y at (0, 2)", lambda m, x, y: x**y, (0.0, 2.0), 0.0, (0.0, 0.0)),
    (12, "x**y at (-2, 2)", lambda m, x, y: x**y, (-2.0, 2.0), 4.0, (-4.0, nan)),
    (13, "x**(1/3) at -8", lambda m, x: x ** (1 / 3), (-8.0,), nan, (nan,)),
    (14, "sign(x)*abs(x)**(1/3)", lambda m, x: m.sign(x) * m.abs(x) ** (1 / 3), (0.0,), 0.0,
     (nan,)),
    (15, "maximum tie", lambda m, x, y: m.maximum(x, y), (1.0, 1.0), 1.0, (0.5, 0.5)),
    (16, "minimum tie", lambda m, x, y: m.minimum(x, y), (1.0, 1.0), 1.0, (0.5, 0.5)),
    (19, "clamp(x, 0, 1) at 0", lambda m, x: m.clamp(x, 0, 1), (0.0,), 0.0, (1.0,)),
    (20, "clamp(x, 0, 1) at 1", lambda m, x: m.clamp(x, 0, 1), (1.0,), 1.0, (1.0,)),
    (21, "log(x) at 0", lambda m, x: m.log(x), (0.0,), -inf, (inf,)),
    (22, "log(x) at -1", lambda m, x: m.log(x), (-1.0,), nan, (-1.0,)),
    (23, "sqrt(x) at -1", lambda m, x: m.sqrt(x), (-1.0,), nan, (nan,)),
    (24, "1/x", lambda m, x: 1 / x, (0.0,), inf, (-inf,)),
    (25, "x/x", lambda m, x: x / x, (0.0,), nan, (nan,)),
    (26, "sign(x)", lambda m, x: m.sign(x), (0.0,), 0.0, (0.0,)),
    (28, "where(x>0, x, 0)", lambda m, x: m.where(x > 0, x, m.zeros_like(x)), (0.0,), 0.0,
     (0.0,)),
    (29, "where(x>0, sqrt(x), 0)", lambda m, x: m.where(x > 0, m.sqrt(x), m.zeros_like(x)),
     (0.0,), 0.0, (nan,)),
    (30, "where(x>0, log(x), 0)", lambda m, x: m.where(x > 0, m.log(x), m.zeros_like(x)),
     (0.0,), 0.0, (nan,)),
    (34, "atan2(y, x) at (0, 0)", lambda m, y, x: m.atan2(y, x), (0.0, 0.0), 0.0, (0.0, -0.0)),
    (35, "norm(v) at 0", lambda m, v: m.norm(v), ([0.0, 0.0, 0.0],), 0.0, ([0.0, 0.0, 0.0],)),
    (36, "sqrt(sum(v**2)) at 0", lambda m, v: m.sqrt(m.sum(v**2)), ([0.0, 0.0, 0.0],), 0.0,
     ([nan, nan, nan],)),
    (37, "sqrt(x**2)", lambda m, x: m.sqrt(x**2), (0.0,), 0.0, (nan,)),
    (38, "x*log(x)", lambda m, x: x * m.log(x), (0.0,), nan, (nan,)),
    (39, "asin(x) at 1", lambda m, x: m.asin(x), (1.0,), math.pi / 2, (inf,)),
    (40, "exp(x) at 1000", lambda m, x: m.exp(x), (1000.0,), inf, (inf,)),
]


@pytest.mark.parametrize("row, expr, f, point, value, grads", ROWS,
                         ids=[f"row{r[0]}-{r[1]}" for r in ROWS])
def test_torch_column(row, expr, f, point, value, grads):
    got_value, got_grads = _tensor_grad(f, point)
    assert same_ieee(got_value, value), (row, expr, got_value, value)
    for got, expected in zip(got_grads, grads, strict=True):
        assert same_ieee(got, expected), (row, expr, got_grads, grads)


@pytest.mark.parametrize("row, expr, f, point, value, grads", ROWS,
                         ids=[f"row{r[0]}-{r[1]}" for r in ROWS])
def test_torch_column_through_functional_grad(row, expr, f, point, value, grads):
    """gradcalc.grad (what the CLI uses) gives the same values as .backward()."""
    got = gc.grad(lambda *xs: f(gc, *xs), tuple(np.asarray(p, dtype=float) for p in point))
    for g, expected in zip(got, grads, strict=True):
        assert same_ieee(g, expected), (row, expr, got, grads)


# -------------------------------------------------------------------- variants of the rows


def test_row3_maximum_with_a_constant_array_and_a_tensor_zero():
    x = gc.tensor(0.0, requires_grad=True)
    z = gc.tensor(0.0, requires_grad=True)
    gc.maximum(x, z).backward()
    assert same_ieee(x.grad.tolist(), 0.5) and same_ieee(z.grad.tolist(), 0.5)
    x = gc.tensor([0.0, 1.0, -1.0], requires_grad=True)
    gc.sum(gc.maximum(x, np.zeros(3))).backward()
    assert same_ieee(x.grad.tolist(), [0.5, 1.0, 0.0])


@pytest.mark.parametrize("clamp", [
    lambda x: x.clamp(min=0), lambda x: gc.clamp(x, min=0), lambda x: x.clamp(0, None),
    lambda x: x.clip(min=0.0),
])
def test_row4_clamp_with_a_scalar_lower_bound_passes_the_gradient(clamp):
    x = gc.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    gc.sum(clamp(x)).backward()
    assert same_ieee(x.grad.tolist(), [0.0, 1.0, 1.0])


def test_rows19_20_clamp_bounds_inside_and_outside():
    x = gc.tensor([-0.5, 0.0, 0.5, 1.0, 1.5], requires_grad=True)
    y = gc.clamp(x, 0, 1)
    gc.sum(y).backward()
    assert same_ieee(y.tolist(), [0.0, 0.0, 0.5, 1.0, 1.0])
    assert same_ieee(x.grad.tolist(), [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clamp_with_tensor_bounds_follows_torch():
    """Bounds that require grad: the bound that decides takes the gradient; when
    lo > hi the result is hi everywhere (measured with torch 2.13.0)."""
    cases = [  # x, lo, hi -> value, (dx, dlo, dhi)
        (0.0, -1.0, 1.0, 0.0, (1.0, 0.0, 0.0)),
        (-2.0, -1.0, 1.0, -1.0, (0.0, 1.0, 0.0)),
        (2.0, -1.0, 1.0, 1.0, (0.0, 0.0, 1.0)),
        (-1.0, -1.0, 1.0, -1.0, (1.0, 0.0, 0.0)),
        (1.0, -1.0, 1.0, 1.0, (1.0, 0.0, 0.0)),
        (0.0, 1.0, -1.0, -1.0, (0.0, 0.0, 1.0)),
        (2.0, 1.0, -1.0, -1.0, (0.0, 0.0, 1.0)),
        (-1.0, 0.0, 0.0, 0.0, (0.0, 0.0, 0.0)),
        (1.0, 0.0, 0.0, 0.0, (0.0, 0.0, 1.0)),
        (0.0, 0.0, 0.0, 0.0, (1.0, 0.0, 0.0)),
    ]
    for x0, lo0, hi0, value, grads in cases:
        value_got, grads_got = _tensor_grad(lambda m, x, lo, hi: m.clamp(x, lo, hi),
                                            (x0, lo0, hi0))
        assert same_ieee(value_got, value), (x0, lo0, hi0)
        assert all(same_ieee(g, e) for g, e in zip(grads_got, grads, strict=True)), \
            (x0, lo0, hi0, grads_got)


def test_rows10_11_pow_with_tensor_exponent_on_vectors():
    x = gc.tensor([0.0, 0.0, 2.0, 0.0], requires_grad=True)
    y = gc.tensor([0.0, 2.0, 0.0, 0.5], requires_grad=True)
    gc.sum(x**y).backward()
    assert same_ieee(x.grad.tolist(), [0.0, 0.0, 0.0, inf])
    assert same_ieee(y.grad.tolist(), [0.0, 0.0, math.log(2.0), 0.0])


def test_row34_atan2_signed_zeros():
    """torch: d/dy = x * r, d/dx = -y * r with r = 0 where x² + y² = 0."""
    cases = [((0.0, 0.0), (0.0, -0.0)), ((-0.0, 0.0), (0.0, 0.0)),
             ((0.0, -0.0), (-0.0, -0.0)), ((-0.0, -0.0), (-0.0, 0.0))]
    for point, grads in cases:
        _, got = _tensor_grad(lambda m, y, x: m.atan2(y, x), point)
        assert all(same_ieee(g, e) for g, e in zip(got, grads, strict=True)), (point, got)


def test_maximum_minimum_relu_pass_the_gradient_through_nan():
    """torch masks the losing side, so a nan input (say log(-1)) still passes g on."""
    for fn in (gc.maximum, gc.minimum):
        a = gc.tensor(nan, requires_grad=True)
        b = gc.tensor(1.0, requires_grad=True)
        fn(a, b).backward()
        assert same_ieee(a.grad.tolist(), 1.0) and same_ieee(b.grad.tolist(), 1.0)
    x = gc.tensor(-1.0, requires_grad=True)
    gc.relu(gc.log(x)).backward()
    assert same_ieee(x.grad.tolist(), -1.0)


def test_prod_with_zeros_follows_torch():
    for point, grads in [([2.0, 0.0, 3.0], [0.0, 6.0, 0.0]), ([2.0, 0.0, 0.0], [0.0] * 3)]:
        value, (got,) = _tensor_grad(lambda m, v: m.prod(v), (point,))
        assert same_ieee(value, 0.0) and same_ieee(got, grads)


def test_hessians_at_kinks_follow_torch():
    """Second derivatives measured with torch.autograd.functional.hessian."""
    assert same_ieee(gc.hessian(lambda v: gc.prod(v), np.array([2.0, 0.0, 3.0])),
                 [[0.0, 3.0, 0.0], [3.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    assert same_ieee(gc.hessian(lambda v: gc.prod(v), np.array([2.0, 0.0, 0.0])),
                 [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    assert same_ieee(gc.hessian(lambda x: gc.abs(x) + gc.relu(x), np.array(0.0)), 0.0)
