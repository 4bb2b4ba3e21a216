"""A Python function traced into a fused kernel (gradcalc/engine/tracing.py): the tape's
numbers within the documented tolerance, sympy's derivatives, the work counted (one call
of f, one pass), and everything the trace cannot take left to the tape with its answers."""

from __future__ import annotations

import numpy as np
import pytest

import gradcalc
from gradcalc.backends.numeric import as_function
from gradcalc.engine import blocks, functional, fused, primitive, tracing
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse

N = 3000
A = np.linspace(-2.5, 2.5, N)
B = np.cos(np.arange(N) * 0.37) * 1.5
C = np.sin(np.arange(N) * 0.11) + 1.6
#: the documented tolerance: |fused - tape| <= RTOL * (largest |tape| of that result)
RTOL = 1e-13


def w1(x):
    return gradcalc.sum(gradcalc.sin(x) * gradcalc.exp(-x**2) + gradcalc.log(1 + x**2))


SCALAR = [  # (f, its inputs): scalar outputs, for grad and hessian
    (w1, (A,)),
    (lambda x: ((x - B) ** 2).sum() / len(x), (A,)),  # a constant array, a mean by hand
    (lambda x: (x.exp() * B).mean(), (A,)),
    (lambda a, b, c: 0.5 * (a * b * c.sin() + (a * c).exp() / (1 + b**2)).sum(), (A, B, C)),
    (lambda a, c: (a.tanh() / c - c.sqrt() * a.atan() + 2**a - 3 / c.cosh()).sum(), (A, C)),
    (lambda x: gradcalc.sum(x * x + (x - x), dim=0), (A,)),  # x - x: g and -g on one node
]
ELEMENTWISE = [  # vector outputs, for vjp and jacobian
    (lambda x: x.sin() * gradcalc.tensor(B[: len(x)]) + x, (A,)),
    (lambda a, c: a * c.log() - c / (1 + a * a), (A, C)),
]


def _both(derive, f, point, *args):
    found = []
    for on in (False, True):
        with fusion(on, min_size=0):
            found.append(derive(f, point, *args))
    return found


def _close(tape, fast) -> None:
    if isinstance(tape, (tuple, list)):
        for t, f in zip(tape, fast, strict=True):
            _close(t, f)
        return
    tape, fast = np.asarray(tape), np.asarray(fast)
    assert fast.shape == tape.shape
    assert np.max(np.abs(fast - tape), initial=0.0) <= RTOL * np.max(np.abs(tape), initial=0.0)


@pytest.mark.parametrize(("f", "point"), SCALAR)
def test_a_traced_gradient_is_the_tapes(f, point) -> None:
    with fusion(min_size=0):
        assert tracing.kernel_for(f, point) is not None
    tape, fast = _both(functional.grad, f, point)
    _close(tape, fast)


@pytest.mark.parametrize(("f", "point"), ELEMENTWISE)
def test_a_traced_vjp_and_jacobian_are_the_tapes(f, point) -> None:
    seed = np.cos(np.arange(N))
    (tape_value, tape_pull), (value, pull) = _both(functional.vjp, f, point, seed)
    _close(tape_value, value)
    _close(tape_pull, pull)
    small = tuple(p[:200] for p in point)
    tape, fast = _both(functional.jacobian, f, small)
    for t, g in zip(tape, fast, strict=True):  # the same bits, zeros' signs and all
        assert t.tobytes() == g.tobytes() or np.max(np.abs(g - t)) <= RTOL * np.max(np.abs(t))


@pytest.mark.parametrize(("f", "point"), [SCALAR[0], *SCALAR[3:]])
def test_a_traced_hessian_is_the_tapes(f, point) -> None:
    small = tuple(p[:150] for p in point)
    tape, fast = _both(functional.hessian, f, small)
    _close(tape, fast)


def test_one_call_of_f_and_one_pass(kernels_made: list[fused.Kernel]) -> None:
    calls, made = [], kernels_made

    def f(x):
        calls.append(type(x).__name__)
        return w1(x)

    with fusion(min_size=0):
        functional.grad(f, A)
    assert calls == ["Tracer"]  # traced once, never run on the tape
    assert len(made) == 1 and made[0].passes == 1  # the value and the gradient together


def test_a_stand_in_answers_about_itself_as_the_tapes_tensor_does() -> None:
    def f(x):
        y = x * 1
        assert x.is_leaf and not y.is_leaf and x.requires_grad and y.requires_grad
        assert x.dtype == gradcalc.float64 and x.shape == (N,) and x.ndim == 1
        assert x.numel() == N == len(x) and np.shape(x) == (N,) and x.grad is None
        return (y * y).sum()

    with fusion(min_size=0):
        assert tracing.kernel_for(f, (A,)) is not None
    with fusion(False):
        functional.grad(f, A)  # the same answers on the tape


def test_the_trace_of_w1_is_the_programs_plan() -> None:
    program, _ = as_function(parse("y = sum(sin(x)*exp(-x**2) + log(1+x**2))"), ["x"], {},
                             of="y")
    steps = []
    with fusion(min_size=0):
        for kernel in (fused.kernel_for(program, (A,)), tracing.kernel_for(w1, (A,))):
            plan = blocks.Plan(kernel.graph, [kernel.out, *kernel.unit], [True],
                               kernel._feeds, kernel.size)
            steps.append([step[0].__name__ for step in plan.steps])
    assert steps[0] == steps[1] and len(steps[1]) == 24


def _where(x):
    return gradcalc.where(x > 0, x, -x).sum()


def _branch(x):
    return (x * x).sum() if x.sum() > 0 else (3 * x).sum()


def _in_place(x):
    y = x * 2
    y += 1
    return (y * y).sum()


def _no_grad(x):
    with gradcalc.no_grad():
        c = x * 2
    return (c * x).sum()


WEIGHT = gradcalc.tensor(2.0, requires_grad=True)
REFUSED = {
    "a branch on a value": _branch,
    "a comparison": _where,
    "an in-place change": _in_place,
    "no_grad": _no_grad,
    "NumPy on the value": lambda x: (x * np.max(x.detach().numpy())).sum(),
    "a number read": lambda x: (x * float(x.sum())).sum(),
    "a tensor that requires grad": lambda x: (x * WEIGHT).sum(),
    "a kink": lambda x: abs(x).sum(),
    "a max": lambda x: (x * x.max()).sum(),
    "a sum inside": lambda x: (x * x.sum()).sum(),
    "a sum plus a number": lambda x: x.sum() + 1,
    "an index": lambda x: (x[1:] * x[:-1]).sum(),
    "a function the graph lacks": lambda x: gradcalc.sigmoid(x).sum(),
    "a matrix product": lambda x: x @ x,
    "a printout": lambda x: (x * len(repr(x))).sum(),
    "a power of two varying values": lambda x: (x**x).sum(),
    "a result not computed from x": lambda x: gradcalc.tensor(3.0),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_the_trace_refuses_runs_on_the_tape(name: str) -> None:
    f = REFUSED[name]
    with fusion(min_size=0):
        assert tracing.kernel_for(f, (C,)) is None
    tape, fast = _both(functional.vjp, f, C, 1.0)
    assert np.array_equal(tape[1], fast[1], equal_nan=True)
    assert primitive.tracer is None  # the hook is gone after a refused trace too


def test_a_trace_is_made_anew_at_each_call() -> None:
    scale = [1.0]

    def f(x):  # Python state and the shape, not the values, pick the steps
        return (x.sin() * scale[0]).sum() if x.shape[0] % 2 else (x.cos() * x).sum()

    with fusion(min_size=0):
        for x in (A, A[:-1], A):
            scale[0] += 1.0
            fast = functional.grad(f, x)
            with fusion(False):
                _close(functional.grad(f, x), fast)


def test_below_the_size_fusion_starts_at_f_runs_on_the_tape_alone() -> None:
    calls = []

    def f(x):
        calls.append(type(x).__name__)
        return w1(x)

    with fusion(min_size=N + 1):
        functional.grad(f, A)
    assert calls == ["Tensor"]


def test_a_traced_gradient_agrees_with_sympy_and_finite_differences() -> None:
    import sympy as sp

    f = SCALAR[3][0]
    a, b, c = sp.symbols("a b c")
    expr = sp.Rational(1, 2) * (a * b * sp.sin(c) + sp.exp(a * c) / (1 + b**2))
    with fusion(min_size=0):
        grads = functional.grad(f, (A, B, C))
    for g, s in zip(grads, (a, b, c), strict=True):
        exact = sp.lambdify((a, b, c), sp.diff(expr, s), "numpy")(A, B, C)
        assert np.max(np.abs(g - exact)) <= 1e-12 * np.max(np.abs(exact))
    h = 1e-6
    with fusion(False):  # central differences of the summed value, along one direction
        up = f(gradcalc.tensor(A + h * B), gradcalc.tensor(B), gradcalc.tensor(C)).item()
        down = f(gradcalc.tensor(A - h * B), gradcalc.tensor(B), gradcalc.tensor(C)).item()
    assert abs((up - down) / (2 * h) - np.dot(grads[0], B)) <= 1e-6 * abs(np.dot(grads[0], B))


def test_grad_of_a_vector_output_says_so_before_any_pass(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    runs = []
    monkeypatch.setattr(fused.Kernel, "_run", lambda self, *a: runs.append(a) or [])
    with fusion(min_size=0), pytest.raises(ValueError, match="scalar output"):
        functional.grad(lambda x: x.sin(), A)
    assert runs == []  # no fused pass spent on a gradient that cannot be


@pytest.mark.parametrize(("f", "point"), [SCALAR[0], SCALAR[3], *ELEMENTWISE])
def test_a_traced_jvp_is_the_tapes_from_one_pass(f, point, kernels_made: list[fused.Kernel]
                                                 ) -> None:
    v = tuple(np.cos(np.arange(N) * (k + 1)) for k in range(len(point)))
    tape, fast = _both(functional.jvp, f, point, v)
    _close(tape, fast)
    made = kernels_made
    with fusion(min_size=0):
        functional.jvp(f, point, v)
        with pytest.raises(ValueError, match="v has shapes"):
            functional.jvp(f, point, tuple(vi[:-1] for vi in v))
    assert made[0].passes == 1
