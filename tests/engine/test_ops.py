"""Every entry of ops.PRIMITIVES against central differences, batched cotangents and sympy.

The tests are parametrised over the table itself (`cases()`): an elementwise entry is
sampled in its `domain` unless SAMPLES below says otherwise; any other entry fails
`test_every_primitive_has_a_sample` until it gets a sample, and is then checked by every
test here. Sample points stay away from kinks (tests/engine/test_rules_conventions.py has those).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import library_samples
import numpy as np
import pytest
import sympy as sp

import gradcalc as gc
from gradcalc.engine import functional, ops, tape
from gradcalc.engine.ops import PRIMITIVES
from gradcalc.engine.tensor import Tensor, lift

Builder = Callable[[np.random.Generator], list]


def _n(r, *shape):
    return r.normal(size=shape)


def _u(r, lo, hi, *shape):
    return r.uniform(lo, hi, size=shape)


def _away(r, *shape, lo=0.3, hi=1.5):
    """Values of either sign, at least `lo` away from zero (a kink of abs, relu, sign)."""
    return r.choice([-1.0, 1.0], size=shape) * r.uniform(lo, hi, size=shape)


def _gapped(r, *shape):
    """A partner for maximum/minimum: differs from its argument by at least 0.2."""
    def build(a):
        return a + _away(r, *shape, lo=0.2, hi=1.0)
    return build


def _pair_apart(r):
    a = _n(r, 2, 3)
    return [a, _gapped(r, 2, 3)(a)]


def _grid_pair(r):
    """(3, 1) and (4,) on interleaved grids, so no pair after broadcasting is a tie."""
    a = r.permutation([0.25, 1.25, 2.25]).reshape(3, 1)
    b = r.permutation([0.0, 1.0, 2.0, 3.0])
    return [a, b]


def _clamp_args(r):
    lo = -0.5 + _u(r, -0.1, 0.1, 6)
    hi = 0.5 + _u(r, -0.1, 0.1, 6)
    band = np.array([-1.2, -0.9, -0.2, 0.1, 0.8, 1.1])  # below, inside and above the bounds
    return [r.permutation(band), lo, hi]


COND = np.array([[True, False, True], [False, False, True]])
COND_34 = np.array([[True, False, True, False], [False, False, True, True],
                    [True, True, False, False]])
REPEATED = (np.array([0, 2, 0, 3, 0]),)

# name -> (argument builder, static parameters); every argument is differentiated
SAMPLES: dict[str, tuple[Builder, dict[str, Any]]] = {
    "neg": (lambda r: [_n(r, 2, 3)], {}),
    "add": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {}),
    "sub": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {}),
    "mul": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {}),
    "div": (lambda r: [_n(r, 2, 3), _away(r, 2, 3, lo=0.5)], {}),
    "pow": (lambda r: [_u(r, 0.5, 2.0, 2, 3), _n(r, 2, 3)], {}),
    "matmul": (lambda r: [_n(r, 3, 4), _n(r, 4, 2)], {}),
    "sin": (lambda r: [_n(r, 2, 3)], {}),
    "cos": (lambda r: [_n(r, 2, 3)], {}),
    "tan": (lambda r: [_u(r, -1.0, 1.0, 2, 3)], {}),
    "asin": (lambda r: [_u(r, -0.8, 0.8, 2, 3)], {}),
    "acos": (lambda r: [_u(r, -0.8, 0.8, 2, 3)], {}),
    "atan": (lambda r: [_n(r, 2, 3)], {}),
    "atan2": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {}),
    "sinh": (lambda r: [_n(r, 2, 3)], {}),
    "cosh": (lambda r: [_n(r, 2, 3)], {}),
    "tanh": (lambda r: [_n(r, 2, 3)], {}),
    "exp": (lambda r: [_n(r, 2, 3)], {}),
    "log": (lambda r: [_u(r, 0.5, 2.0, 2, 3)], {}),
    "log2": (lambda r: [_u(r, 0.5, 2.0, 2, 3)], {}),
    "log10": (lambda r: [_u(r, 0.5, 2.0, 2, 3)], {}),
    "sqrt": (lambda r: [_u(r, 0.5, 2.0, 2, 3)], {}),
    "abs": (lambda r: [_away(r, 2, 3)], {}),
    "sign": (lambda r: [_away(r, 2, 3)], {}),
    "sgn": (lambda r: [_away(r, 2, 3)], {}),
    "relu": (lambda r: [_away(r, 2, 3)], {}),
    "sigmoid": (lambda r: [_n(r, 2, 3)], {}),
    "softplus": (lambda r: [_n(r, 2, 3)], {}),
    "maximum": (_pair_apart, {}),
    "minimum": (_pair_apart, {}),
    "clamp": (_clamp_args, {}),
    "where": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {"cond": COND}),
    "sum": (lambda r: [_n(r, 2, 3)], {"axis": None, "keepdims": False}),
    "mean": (lambda r: [_n(r, 2, 3)], {"axis": None, "keepdims": False}),
    "prod": (lambda r: [_away(r, 2, 3, lo=0.5)], {"axis": None, "keepdims": False}),
    "norm": (lambda r: [_n(r, 2, 3)], {}),
    "transpose": (lambda r: [_n(r, 2, 3)], {"axes": None}),
    "reshape": (lambda r: [_n(r, 2, 3)], {"new_shape": (3, 2)}),
    "broadcast_to": (lambda r: [_n(r, 3, 1)], {"new_shape": (2, 3, 4)}),
    "clone": (lambda r: [_n(r, 2, 3)], {}),
    "getitem": (lambda r: [_n(r, 3, 4)], {"index": (1, slice(0, 3))}),
    "scatter": (lambda r: [_n(r, 5)], {"index": REPEATED, "x_shape": (4,), "sub_ndim": 1}),
    "index_put": (lambda r: [_n(r, 3, 4), _n(r, 2)], {"index": (1, slice(1, 3))}),
    "stack": (lambda r: [_n(r, 2), _n(r, 2), _n(r, 2)], {}),
    **{name: (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {}) for name in ("zero_", "fill_", "copy_")},
    "max": (lambda r: [_n(r, 2, 3)], {"axis": None, "keepdims": False}),
    "min": (lambda r: [_n(r, 2, 3)], {"axis": (1,), "keepdims": False}),
    "amax": (lambda r: [_n(r, 2, 3)], {"axis": (0,), "keepdims": True}),
    "amin": (lambda r: [_n(r, 2, 3)], {"axis": None, "keepdims": False}),
    "softmax": (lambda r: [_n(r, 2, 3)], {"axis": (1,)}),
    "logsumexp": (lambda r: [_n(r, 2, 3)], {"axis": (0,), "keepdims": True}),
    "cbrt": (lambda r: [_away(r, 2, 3)], {}),
    "add_alpha": (lambda r: [_n(r, 2, 3), _n(r, 2, 3)], {"alpha": -0.5}),
    "threshold_backward": (lambda r: [_n(r, 2, 3), _away(r, 2, 3)], {}),
}

# more cases: broadcasting (unbroadcast), matmul shapes, axes and keepdims, indexing kinds
EXTRA: list[tuple[str, str, Builder, dict[str, Any]]] = [
    ("add", "bcast", lambda r: [_n(r, 3, 1), _n(r, 4)], {}),
    ("sub", "bcast", lambda r: [_n(r, 4), _n(r, 3, 1)], {}),
    ("mul", "bcast", lambda r: [_n(r, 3, 1), _n(r, 4)], {}),
    ("mul", "scalar", lambda r: [_n(r), _n(r, 2, 3)], {}),
    ("div", "bcast", lambda r: [_n(r, 3, 1), _away(r, 4, lo=0.5)], {}),
    ("pow", "bcast", lambda r: [_u(r, 0.5, 2.0, 3, 1), _n(r, 4)], {}),
    ("pow", "scalar-exponent", lambda r: [_u(r, 0.5, 2.0, 2, 3), _n(r)], {}),
    ("atan2", "bcast", lambda r: [_n(r, 3, 1), _n(r, 1, 4)], {}),
    ("maximum", "bcast", _grid_pair, {}),
    ("minimum", "bcast", _grid_pair, {}),
    ("clamp", "scalar-bounds", lambda r: [_u(r, -0.4, 0.4, 2, 3), np.array(-0.5),
                                          np.array(0.5)], {}),
    ("where", "bcast", lambda r: [_n(r, 3, 1), _n(r, 4)], {"cond": COND_34}),
    ("matmul", "vec-vec", lambda r: [_n(r, 4), _n(r, 4)], {}),
    ("matmul", "mat-vec", lambda r: [_n(r, 3, 4), _n(r, 4)], {}),
    ("matmul", "vec-mat", lambda r: [_n(r, 4), _n(r, 4, 2)], {}),
    ("matmul", "batch-mat", lambda r: [_n(r, 2, 3, 4), _n(r, 4, 2)], {}),
    ("matmul", "batch-batch", lambda r: [_n(r, 2, 3, 4), _n(r, 2, 4, 2)], {}),
    ("matmul", "bcast-batch", lambda r: [_n(r, 1, 3, 4), _n(r, 2, 4, 2)], {}),
    ("matmul", "batch-vec", lambda r: [_n(r, 2, 3, 4), _n(r, 4)], {}),
    ("matmul", "vec-batch", lambda r: [_n(r, 4), _n(r, 2, 4, 3)], {}),
    ("sum", "axis", lambda r: [_n(r, 2, 3)], {"axis": (1,), "keepdims": False}),
    ("sum", "keepdims", lambda r: [_n(r, 2, 3, 2)], {"axis": (0, 2), "keepdims": True}),
    ("mean", "axis", lambda r: [_n(r, 2, 3)], {"axis": (0,), "keepdims": True}),
    ("prod", "axis", lambda r: [_away(r, 2, 3, lo=0.5)], {"axis": (1,), "keepdims": False}),
    ("prod", "one-zero", lambda r: [np.array([2.0, 0.0, -1.5, 0.5])],
     {"axis": None, "keepdims": False}),
    ("prod", "two-zeros", lambda r: [np.array([2.0, 0.0, -1.5, 0.0])],
     {"axis": None, "keepdims": False}),
    ("prod", "zero-axis", lambda r: [np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5]])],
     {"axis": (1,), "keepdims": True}),
    ("prod", "zero-axes",
     lambda r: [np.array([[[2.0, 0.0], [3.0, 1.5]], [[0.5, 1.0], [2.0, 0.0]]])],
     {"axis": (0, 2), "keepdims": False}),
    ("transpose", "axes", lambda r: [_n(r, 2, 3, 4)], {"axes": (1, 0, 2)}),
    ("getitem", "negative", lambda r: [_n(r, 5)], {"index": (-1,)}),
    ("getitem", "repeated", lambda r: [_n(r, 4)], {"index": REPEATED}),
    ("getitem", "2d-advanced", lambda r: [_n(r, 3, 4)],
     {"index": (np.array([0, 2, 0]), np.array([1, 1, 1]))}),
    ("index_put", "bcast-value", lambda r: [_n(r, 3, 4), _n(r, 1)], {"index": (slice(0, 2),)}),
    ("max", "axis-keepdims", lambda r: [_n(r, 2, 3, 2)], {"axis": (0, 2), "keepdims": True}),
    ("min", "all", lambda r: [_n(r, 4)], {"axis": None, "keepdims": False}),
    ("softmax", "all", lambda r: [_n(r, 2, 3)], {}),
    ("logsumexp", "all", lambda r: [_n(r, 2, 3)], {"axis": None, "keepdims": False}),
    ("stack", "matrices", lambda r: [_n(r, 2, 2), _n(r, 2, 2)], {}),
]

SAMPLES.update(library_samples.SAMPLES)
EXTRA += library_samples.EXTRA

#: where an elementwise entry without a `domain` is sampled
DEFAULT_DOMAIN = (-1.5, 1.5)


def sample(prim: ops.Prim) -> tuple[Builder, dict[str, Any]] | None:
    """The entry's sample: SAMPLES', or one drawn from an elementwise entry's domain."""
    if prim.name in SAMPLES:
        return SAMPLES[prim.name]
    if not prim.elementwise or prim.arity is None:
        return None
    lo, hi = prim.domain or DEFAULT_DOMAIN
    n = prim.arity[0]
    return (lambda r: [_u(r, lo, hi, 2, 3) for _ in range(n)], {})


def cases(primitives: dict[str, ops.Prim] = PRIMITIVES) -> list:
    """One case per entry of the table (its sample), plus the EXTRA cases."""
    found = [(name, sample(p)) for name, p in primitives.items()]
    return [pytest.param(name, *s, id=name) for name, s in found if s is not None] + [
        pytest.param(name, build, params, id=f"{name}[{tag}]")
        for name, tag, build, params in EXTRA if name in primitives]


CASES = cases()
NO_SYM = {"scatter", "index_put"}  # structural: their effect is the index bookkeeping itself


def _rng(name: str, salt: str = "") -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{name}/{salt}".encode()))


def _args(name: str, build: Builder) -> list[np.ndarray]:
    return [np.asarray(a, dtype=np.float64) for a in build(_rng(name, "args"))]


def _forward(prim, args, params) -> np.ndarray:
    with np.errstate(all="raise"):
        return np.asarray(prim.forward(*args, **params), dtype=np.float64)


def _vjps(prim, g, args, params) -> list[np.ndarray]:
    ans = _forward(prim, args, params)
    return [np.asarray(prim.vjp(i, g, ans, list(args), params), dtype=np.float64)
            for i in range(len(args))]


def _close(a, b, rtol, scale=1.0) -> None:
    assert np.allclose(a, b, rtol=rtol, atol=rtol * scale), (a, b)


# ------------------------------------------------------------------------------- the table


def test_every_primitive_has_a_sample():
    missing = [name for name, p in PRIMITIVES.items() if sample(p) is None]
    assert not missing, f"give these primitives an entry in SAMPLES: {missing}"
    assert set(SAMPLES) <= set(PRIMITIVES), "SAMPLES names a primitive the table lacks"


def test_symbolic_twins_are_explicit():
    assert {name for name, p in PRIMITIVES.items() if p.sym is None} == NO_SYM


def test_every_primitive_has_a_rule_per_argument():
    for name, prim in PRIMITIVES.items():
        build, _params = sample(prim)
        if prim.variadic_vjp is None:
            assert len(prim.vjps) == len(build(_rng(name))), name


# ------------------------------------------------------------------------------- (a) VJP vs FD


@pytest.mark.parametrize("name, build, params", CASES)
def test_vjp_matches_central_differences(name, build, params):
    """<u, J v> by central differences of the forward equals <VJP(u), v> from the rule."""
    prim, args = PRIMITIVES[name], _args(name, build)
    r = _rng(name, "directions")
    ans = _forward(prim, args, params)
    h = 1e-6
    for _ in range(3):
        u = r.normal(size=ans.shape)
        v = [r.normal(size=a.shape) for a in args]
        plus = _forward(prim, [a + h * d for a, d in zip(args, v, strict=True)], params)
        minus = _forward(prim, [a - h * d for a, d in zip(args, v, strict=True)], params)
        u_jv = np.sum(u * (plus - minus)) / (2 * h)
        grads = _vjps(prim, u, args, params)
        for gr, a in zip(grads, args, strict=True):
            assert gr.shape == a.shape
        vjp_v = sum(np.sum(gr * d) for gr, d in zip(grads, v, strict=True))
        scale = max(1.0, sum(np.sum(np.abs(gr * d)) for gr, d in zip(grads, v, strict=True)))
        assert abs(u_jv - vjp_v) <= 1e-6 * scale, (u_jv, vjp_v)


# ------------------------------------------------------------------------------- (b) batches


@pytest.mark.parametrize("name, build, params", CASES)
def test_batched_cotangents_equal_single_ones(name, build, params):
    """A stack of K cotangents gives the K single VJPs: a Jacobian is one sweep."""
    prim, args = PRIMITIVES[name], _args(name, build)
    ans = _forward(prim, args, params)
    k = 4
    gs = _rng(name, "batch").normal(size=(k,) + ans.shape)
    batched = _vjps(prim, gs, args, params)
    for i, a in enumerate(args):
        assert batched[i].shape == (k,) + a.shape
        singles = np.stack([_vjps(prim, gs[j], args, params)[i] for j in range(k)])
        _close(batched[i], singles, 1e-12)


@pytest.mark.parametrize("name, build, params", CASES)
def test_recorded_rule_matches_plain_rule(name, build, params):
    """Under create_graph the rules run on tensors; the values must not change."""
    prim, args = PRIMITIVES[name], _args(name, build)
    leaves = [Tensor(a, requires_grad=True) for a in args]
    out = prim(*leaves, **params)
    u = _rng(name, "u").normal(size=out.shape)
    found = tape.backward([(out.node, u)], retain_graph=True, create_graph=True, lift=lift)
    plain = _vjps(prim, u, args, params)
    for leaf, expected in zip(leaves, plain, strict=True):
        _close(ops.value(found[leaf.node]), expected, 1e-12)


# ------------------------------------------------------------------------------- (c) sympy


def _symbols(args: list[np.ndarray]) -> list[np.ndarray]:
    out = []
    for i, a in enumerate(args):
        names = [sp.Symbol(f"a{i}_{j}", real=True) for j in range(a.size)]
        out.append(np.array(names, dtype=object).reshape(a.shape))
    return out


def _objective(prim, syms, params, u) -> Any:
    """sum(u * prim(symbols)) as one sympy expression."""
    out = np.asarray(prim.sym(*syms, **params), dtype=object)
    return np.sum(np.asarray(u, dtype=object) * out)


def _point(syms, args) -> dict:
    return {s: sp.Float(float(v), 30) for ss, a in zip(syms, args, strict=True)
            for s, v in zip(ss.reshape(-1), a.reshape(-1), strict=True)}


WITH_SYM = [c for c in CASES if c.values[0] not in NO_SYM]


@pytest.mark.parametrize("name, build, params", WITH_SYM)
def test_symbolic_twin_matches_forward_and_gradient(name, build, params):
    prim, args = PRIMITIVES[name], _args(name, build)
    syms = _symbols(args)
    point = _point(syms, args)
    ans = _forward(prim, args, params)
    sym_out = np.asarray(prim.sym(*syms, **params), dtype=object)
    assert sym_out.shape == ans.shape
    values = np.array([float(e.xreplace(point)) if isinstance(e, sp.Basic) else float(e)
                       for e in sym_out.reshape(-1)]).reshape(ans.shape)
    _close(values, ans, 1e-12)
    u = _rng(name, "u").normal(size=ans.shape)
    expr = _objective(prim, syms, params, u)
    for ss, gr in zip(syms, _vjps(prim, u, args, params), strict=True):
        expected = np.array([float(sp.diff(expr, s).xreplace(point)) for s in ss.reshape(-1)])
        _close(gr.reshape(-1), expected, 1e-9)


# ------------------------------------------------------------------------------- (d) order 2


@pytest.mark.parametrize("name, build, params", WITH_SYM)
def test_hessian_of_recorded_vjp_matches_sympy(name, build, params):
    """functional.hessian differentiates the recorded VJP; sympy differentiates twice."""
    prim, args = PRIMITIVES[name], _args(name, build)
    ans = _forward(prim, args, params)
    w = _rng(name, "w").normal(size=ans.shape)

    def f(*xs):
        return ops.sum(ops.mul(w, prim(*xs, **params)))

    blocks = functional.hessian(f, tuple(args))
    syms = _symbols(args)
    point = _point(syms, args)
    expr = _objective(prim, syms, params, w)
    firsts = [[sp.diff(expr, s) for s in ss.reshape(-1)] for ss in syms]
    for i, ai in enumerate(args):
        for j, (sj, aj) in enumerate(zip(syms, args, strict=True)):
            expected = np.array([[float(sp.diff(d, t).xreplace(point)) for t in sj.reshape(-1)]
                                 for d in firsts[i]])
            got = np.asarray(blocks[i][j]).reshape(ai.size, aj.size)
            _close(got, expected, 1e-9)


# ------------------------------------------------------------------------------- unbroadcast


@pytest.mark.parametrize("out_shape, x_shape", [
    ((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 4), (1, 4)), ((3, 4), ()), ((2, 3, 4), (3, 1)),
    ((2, 3, 4), (1, 1, 4)), ((3, 4), (3, 4)),
])
def test_unbroadcast_sums_broadcast_axes_and_keeps_the_batch(out_shape, x_shape):
    r = _rng(f"{out_shape}{x_shape}")
    g = r.normal(size=(5,) + out_shape)
    got = ops.unbroadcast(g, out_shape, x_shape)
    assert np.shape(got) == (5,) + x_shape
    # <unbroadcast(g), v> = <g, broadcast(v)> for every v: it is the adjoint of broadcasting
    v = r.normal(size=x_shape)
    lhs = np.sum(got * v, axis=tuple(range(1, 1 + len(x_shape))))
    rhs = np.sum(g * np.broadcast_to(v, out_shape), axis=tuple(range(1, 1 + len(out_shape))))
    _close(lhs, rhs, 1e-12)


def test_mixed_shapes_through_the_tape():
    """x of shape (3, 1) with y of shape (4,): each gradient has its input's shape."""
    x = Tensor(np.arange(3.0).reshape(3, 1), requires_grad=True)
    y = Tensor(np.arange(4.0) + 1.0, requires_grad=True)
    ops.sum(x * y + ops.maximum(x, y) - y / (1.0 + x)).backward()
    xv, yv = np.arange(3.0).reshape(3, 1), np.arange(4.0) + 1.0
    share = (xv > yv) + 0.5 * (xv == yv)
    dx = np.sum(yv + share + yv / (1.0 + xv) ** 2, axis=1, keepdims=True)
    dy = np.sum(xv + (1 - share) - 1.0 / (1.0 + xv), axis=0)
    assert x.grad.shape == (3, 1) and y.grad.shape == (4,)
    _close(x.grad.value, dx, 1e-12)
    _close(y.grad.value, dy, 1e-12)


# ------------------------------------------------------------------------------- PyTorch


#: values and gradients measured with PyTorch 2.13.0 (float64, CPU): the reductions at
#: X with the cotangent W_OF(y) (ones for a scalar), the elementwise functions at V with
#: ones; torch has no sec/csc/cot/cbrt, so those are 1/cos(t), 1/sin(t), 1/tan(t) and
#: sign(t)*abs(t)**(1/3), and arcsin/arccos are at t/3
X = [[1.0, 3.0, 2.0], [3.0, 0.5, 3.0]]  # ties: three 3.0s in all, two in a row
V = [-2.0, -0.3, 0.4, 1.1, 2.5]
TORCH = {
    "max_all": (
        3.0,
        [[0.0, 0.3333333333333333, 0.0],
         [0.3333333333333333, 0.0, 0.3333333333333333]]),
    "amax_dim1": (
        [3.0, 3.0],
        [[0.0, 0.5, 0.0],
         [-0.35, -0.0, -0.35]]),
    "amin_dim0": (
        [1.0, 0.5, 2.0],
        [[0.5, -0.0, -0.7],
         [0.0, -0.09999999999999998, -0.0]]),
    "min_all": (
        0.5,
        [[0.0, 0.0, 0.0],
         [0.0, 1.0, 0.0]]),
    "softmax_dim1": (
        [[0.09003057317038045, 0.6652409557748218, 0.2447284710547976],
         [0.48028778876026895, 0.039424422479462075, 0.48028778876026895]],
        [[0.024949947260440204, 0.024698730586796537, -0.04964867784723671],
         [0.11526906930246454, 0.0, -0.11526906930246454]]),
    "softmax_dim0": (
        [[0.11920292202211755, 0.9241418199787566, 0.2689414213699951],
         [0.8807970779778823, 0.07585818002124356, 0.7310585786300049]],
        [[0.07559538149052468, 0.05047467591247784, 0.1415605919338669],
         [-0.0755953814905247, -0.050474675912477875, -0.1415605919338669]]),
    "logsumexp_dim1": (
        [3.4076059644443806, 3.7333697948272113],
        [[0.04501528658519022, 0.33262047788741084, 0.12236423552739879],
         [-0.3362014521321882, -0.027597095735623446, -0.3362014521321882]]),
    "logsumexp_all": (
        4.276842075307795,
        [[0.037747271829805265, 0.2789167091320157, 0.10260772308886366],
         [0.2789167091320157, 0.022894877685283893, 0.2789167091320157]]),
    "sec": (
        [-2.402997961722381, 1.0467516015380856, 1.0857044283832387, 2.2046043887173594,
         -1.2482156514688179],
        [-5.25064633769958, -0.32379821469265807, 0.4590284698744255, 4.331517763145194,
         0.9324449234094873]),
    "csc": (
        [-1.0997501702946164, -3.383863361824123, 2.567932455547783, 1.1220733185272,
         1.6709215455586797],
        [0.503308973344342, -10.939110324426892, -6.073731417007703, -0.571099530870098,
         2.236775999505206]),
    "cot": (
        [0.45765755436028577, -3.2327281437658275, 2.3652224200391103, 0.5089681052390643,
         -1.3386481283041514],
        [-1.209450437063038, -11.450531251495653, -6.594277096255666, -1.2590485321506435,
         -2.791978811412208]),
    "arcsin": (
        [-0.7297276562269663, -0.10016742116155979, 0.13373158940994154, 0.3754236079810394,
         0.9851107833377457],
        [0.4472135954999579, 0.335012605086404, 0.33633639699815626, 0.3582871819500093,
         0.6030226891555273]),
    "arccos": (
        [2.300523983021863, 1.6709637479564563, 1.4370647373849552, 1.1953727188138572,
         0.5856855434571508],
        [-0.4472135954999579, -0.335012605086404, -0.33633639699815626, -0.3582871819500093,
         -0.6030226891555273]),
    "arctan": (
        [-1.1071487177940904, -0.2914567944778671, 0.3805063771123649, 0.8329812666744317,
         1.1902899496825317],
        [0.2, 0.9174311926605504, 0.8620689655172413, 0.45248868778280543, 0.13793103448275862]),
    "cbrt": (
        [-1.2599210498948732, -0.6694329500821695, 0.7368062997280773, 1.0322801154563672,
         1.3572088082974532],
        [0.20998684164914552, 0.7438143889801885, 0.6140052497733978, 0.3128121561988991,
         0.18096117443966042]),
}
OURS = {
    "max_all": lambda x: gc.max(x), "amax_dim1": lambda x: gc.amax(x, 1),
    "amin_dim0": lambda x: gc.amin(x, 0), "min_all": lambda x: gc.min(x),
    "softmax_dim1": lambda x: gc.softmax(x, 1), "softmax_dim0": lambda x: gc.softmax(x, 0),
    "logsumexp_dim1": lambda x: gc.logsumexp(x, 1), "logsumexp_all": lambda x: gc.logsumexp(x),
    "sec": gc.sec, "csc": gc.csc, "cot": gc.cot, "arctan": gc.arctan, "cbrt": gc.cbrt,
    "arcsin": lambda x: gc.arcsin(x / 3), "arccos": lambda x: gc.arccos(x / 3),
}


def _weights(y) -> np.ndarray:
    """torch.linspace(0.5, -0.7, n) in y's shape (ones for a scalar), as measured."""
    return np.ones(()) if y.ndim == 0 else np.linspace(0.5, -0.7, y.numel()).reshape(y.shape)


@pytest.mark.parametrize("name", sorted(OURS))
def test_new_functions_agree_with_pytorch(name):
    value, grad = TORCH[name]
    x = gc.tensor(X if "_" in name else V, requires_grad=True)  # a reduction: X
    y = OURS[name](x)
    (y * gc.tensor(_weights(y) if "_" in name else np.ones(y.shape))).sum().backward()
    assert np.allclose(y.value, value, rtol=1e-14, atol=1e-15)
    assert np.allclose(x.grad.value, grad, rtol=1e-13, atol=1e-15)


def test_max_without_axis_splits_ties_evenly_like_torch_max():
    x = gc.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 1 / 3, 1 / 3, 1 / 3]
    m = gc.tensor([[1.0, 3.0], [3.0, 0.0]], requires_grad=True)
    m.amax(0).sum().backward()  # PyTorch's amax(dim=0): one winner per column here
    assert m.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_cbrt_is_the_real_cube_root_with_an_infinite_slope_at_zero():
    x = gc.tensor([-8.0, 0.0, 27.0], requires_grad=True)
    y = gc.cbrt(x)
    y.sum().backward()
    assert y.tolist() == [-2.0, 0.0, 3.0]
    assert x.grad.tolist() == [1 / 12, np.inf, 1 / 27]
