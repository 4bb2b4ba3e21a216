"""The check: tape derivatives against sympy (or central differences when that is too big)."""

from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gradcalc.backends.numeric import as_function
from gradcalc.engine import functional
from gradcalc.language.parse import parse
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.check import CheckResult, check_derivative, skipped_check, time_budget

from conftest import BACKSTOP_SECONDS, examples

TINY_OPS = replace(DEFAULT_LIMITS, max_symbolic_ops=1)


def tape_check(kind: str, src: str, at: dict, *, weights=None, wrt=None, perturb=0.0,
               limits: Limits = DEFAULT_LIMITS) -> CheckResult:
    """Differentiate `src` on the tape as the CLI does, optionally spoil it, then check."""
    program = parse(src)
    of = program.default_output()
    values = {k: np.asarray(v, dtype=np.float64) for k, v in at.items()}
    wrt = list(values) if wrt is None else wrt
    constants = {k: v for k, v in values.items() if k not in wrt}
    f, decisions = as_function(program, wrt, constants, of=of)
    point = tuple(values[n] for n in wrt)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if kind == "gradient":
        tape = dict(zip(wrt, functional.grad(f, point), strict=True))
    elif kind == "vjp":
        tape = dict(zip(wrt, functional.vjp(f, point, w)[1], strict=True))
    elif kind == "jacobian":
        tape = dict(zip(wrt, functional.jacobian(f, point), strict=True))
    else:
        h = functional.hessian(f, point)
        tape = {(a, b): np.asarray(h[i][j]) for i, a in enumerate(wrt)
                for j, b in enumerate(wrt)}
    first = next(iter(tape))
    tape[first] = np.asarray(tape[first]) + perturb
    return check_derivative(kind, program, values, wrt, constants, of, decisions, tape,
                            weights=w, limits=limits)


# --------------------------------------------------------------------------- pass and fail

CORRECT = [
    ("gradient", "y = 2*x[0]**3 + 2*x[1]**3", {"x": [1, 1]}, None),
    ("vjp", "y = 2*x**2", {"x": [1, 1, 1]}, [0.1, 1.0, 0.001]),
    ("vjp", "y = x*2; while norm(y) < 1000: y = y*2", {"x": [2, 3, 4]}, [1, 1, 1]),
    ("gradient", "b = a + 3; c = b*b*3; out = mean(c)", {"a": [2, 3]}, None),
    ("vjp", "n = [[m[0]**2, m[1]**3]]", {"m": [2, 4]}, [[2, 4]]),
    ("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", {"m": [2, 4]}, None),
    ("vjp", "y = relu(x)", {"x": [-1, 0, 2]}, [1, 1, 1]),
    ("gradient", "y = (a+b)*(b+c)", {"a": 1, "b": 2, "c": 3}, None),
    ("jacobian", "y = transpose(A) @ A + clamp(A, 0, 2)", {"A": [[1, 2], [3, 4]]}, None),
    ("gradient", "y = sigmoid(x) + softplus(x) + log2(x) + log10(x) + acos(x/2) + tan(x)",
     {"x": 0.7}, None),
    ("hessian", "y = x[0]**2*x[1] + sin(a)*x[0] + exp(a*x[1])", {"x": [1, 2], "a": 0.5},
     None),
    ("hessian", "y = x[0]*relu(x[1]) + maximum(x[0], x[1])**2", {"x": [1, 1]}, None),
]


@pytest.mark.parametrize("kind, src, at, weights", CORRECT)
def test_correct_tape_results_pass(kind, src, at, weights):
    result = tape_check(kind, src, at, weights=weights)
    assert (result.status, result.method, result.detail) == ("pass", "symbolic", None)
    assert result.max_abs_error < 1e-9


@pytest.mark.parametrize("kind, src, at, weights", CORRECT)
def test_perturbed_tape_results_fail(kind, src, at, weights):
    result = tape_check(kind, src, at, weights=weights, perturb=1e-3)
    assert (result.status, result.method) == ("fail", "symbolic")
    assert "mismatch at" in result.detail and "sympy's derivative there" in result.detail
    assert result.max_abs_error == pytest.approx(1e-3, rel=1e-6)


def test_hessian_checks_every_block():
    result = tape_check("hessian", "y = a*b**2 + a**3", {"a": 1.0, "b": 2.0})
    assert result.status == "pass"
    program = parse("y = a*b**2 + a**3")
    values = {"a": np.array(1.0), "b": np.array(2.0)}
    tape = {("a", "a"): np.array(6.0), ("a", "b"): np.array(4.0), ("b", "a"): np.array(4.0),
            ("b", "b"): np.array(2.5)}
    bad = check_derivative("hessian", program, values, ["a", "b"], {}, "y", None, tape)
    assert bad.status == "fail" and "d²y/dbdb" in bad.detail


def test_wrong_shape_is_a_failure():
    program = parse("y = x**2")
    result = check_derivative("gradient", program, {"x": np.array([1.0, 2.0])}, ["x"], {},
                              "y", None, {"x": np.zeros(3)})
    assert result.status == "fail"


def test_no_check():
    assert skipped_check() == CheckResult("skipped", "none", None,
                                          "check disabled with --no-check")


# ------------------------------------------------------------- kinks (docs/checking.md)

AGREE = [  # tape and sympy's Piecewise twins give the same value: a pass
    ("y = abs(x)", {"x": 0.0}),
    ("y = relu(x)", {"x": 0.0}),
    ("y = maximum(x, z)", {"x": 1.0, "z": 1.0}),
    ("y = minimum(x, z)", {"x": 1.0, "z": 1.0}),
    ("y = maximum(x, 0)", {"x": 0.0}),
    ("y = clamp(x, 0, 1)", {"x": 0.0}),
    ("y = clamp(x, 0, 1)", {"x": 1.0}),
    ("y = clamp(x, 2, 1)", {"x": 0.0}),
    ("y = sign(x)", {"x": 0.0}),
    ("y = x**2", {"x": 0.0}),
    ("y = x**0", {"x": 0.0}),
    ("y = where(x > 0, x, 0)", {"x": 0.0}),
    ("y = exp(x)", {"x": 1000.0}),
    ("y = log(x)", {"x": -1.0}),
    ("y = sqrt(x)", {"x": -1.0}),
    ("y = x**z", {"x": -2.0, "z": 2.0}),
    ("y = x/x", {"x": 1.0}),
    ("y = sqrt(sum(x**2))", {"x": [0.0, 0.0, 0.0]}),  # nan on both sides
    ("y = x*log(x)", {"x": 0.0}),  # nan on both sides
]

SINGULAR = [  # conventions differ (PyTorch defines a value, sympy has none): skipped
    ("y = sqrt(x)", {"x": 0.0}),
    ("y = x**0.5", {"x": 0.0}),
    ("y = norm(x)", {"x": [0.0, 0.0, 0.0]}),
    ("y = x**z", {"x": 0.0, "z": 2.0}),
    ("y = x**z", {"x": 0.0, "z": 0.0}),
    ("y = atan2(x, z)", {"x": 0.0, "z": 0.0}),
    ("y = x/x", {"x": 0.0}),
    ("y = where(x > 0, sqrt(x), 0)", {"x": 0.0}),
    ("y = where(x > 0, log(x), 0)", {"x": 0.0}),
    ("y = sqrt(x**2)", {"x": 0.0}),
    ("y = log(x)", {"x": 0.0}),
    ("y = 1/x", {"x": 0.0}),
    ("y = asin(x)", {"x": 1.0}),
]


@pytest.mark.parametrize("src, at", AGREE)
def test_kinks_where_conventions_agree_pass(src, at):
    result = tape_check("gradient", src, at)
    assert (result.status, result.method) == ("pass", "symbolic"), result.detail


@pytest.mark.parametrize("src, at", SINGULAR)
def test_singular_points_are_skipped_not_failed(src, at):
    result = tape_check("gradient", src, at)
    assert (result.status, result.method) == ("skipped", "symbolic"), result.detail
    assert "singular point" in result.detail and "PyTorch" in result.detail


def test_skipped_detail_names_the_entry_and_counts_the_rest():
    result = tape_check("gradient", "y = sqrt(x[0]) + x[1]**2", {"x": [0.0, 3.0]})
    assert result.status == "skipped"
    assert "x[0]" in result.detail and "other 1 entry agree" in result.detail
    assert result.max_abs_error == 0.0


def test_a_real_mismatch_still_fails_next_to_a_kink():
    result = tape_check("gradient", "y = sqrt(x[0]) + x[1]**2", {"x": [0.0, 3.0]})
    program = parse("y = sqrt(x[0]) + x[1]**2")
    tape = {"x": np.array([math.inf, 7.0])}
    bad = check_derivative("gradient", program, {"x": np.array([0.0, 3.0])}, ["x"], {}, "y",
                           None, tape)
    assert result.status == "skipped" and bad.status == "fail"
    assert "x[1]" in bad.detail and "skipped" in bad.detail


def test_conventions_without_a_symbolic_form_are_kinks():
    # clamp with lo == hi: PyTorch gives no gradient to lo or hi; no Piecewise says so
    result = tape_check("gradient", "y = clamp(x, lo, hi)", {"x": 0.0, "lo": 1.0, "hi": 1.0})
    assert result.status == "skipped" and "clamp() with lo == hi" in result.detail
    # pow's masks at a zero exponent change the Hessian (PyTorch's double backward)
    result = tape_check("hessian", "y = exp(x)**z", {"x": 0.5, "z": 0.0})
    assert result.status == "skipped" and "pow() with a zero exponent" in result.detail
    assert tape_check("hessian", "y = exp(x)**z", {"x": 0.5, "z": 0.3}).status == "pass"


def test_piecewise_branches_follow_the_tapes_float64_comparisons():
    # log2(2) is exactly 1 in float64, so maximum() sees a tie; sympy's log(x)/log(2)
    # alone could round either way
    result = tape_check("gradient", "y = maximum(x, maximum(1, x) / log2(x))", {"x": 2.0})
    assert result.status == "pass", result.detail


def test_nested_piecewise_twins_stay_small():
    # within the symbolic operation budget (the work sympy is given), with time to spare:
    # a blow-up would fall back to finite differences
    src = "y = maximum(maximum(maximum(x, z), sin(x)), relu(z - 1))"
    limits = replace(DEFAULT_LIMITS, check_seconds=BACKSTOP_SECONDS)
    for kind in ("gradient", "hessian"):
        result = tape_check(kind, src, {"x": 0.5, "z": 1.0}, limits=limits)
        assert (result.status, result.method) == ("pass", "symbolic"), result.detail


def test_undefined_or_infinite_output_is_not_a_failure():
    result = tape_check("gradient", "y = x - (0.5 - 0.5)**-1", {"x": 1.0})
    assert result.status == "skipped" and "undefined point" in result.detail


def test_float64_underflow_is_not_a_failure():
    # v[2]**2 underflows to 0 on the tape (norm'(0) = 0) but not in sympy's Floats
    result = tape_check("gradient", "w = [x, v[2], x*v[2]]; out = sum(w*v) + norm(w)",
                        {"x": 0.0, "v": [0.0, 0.0, 4.4e-165]})
    assert result.status == "skipped" and "float64 range" in result.detail


def test_cancellation_within_float64_resolution_passes():
    result = tape_check("hessian", "y = atan2(z, x)", {"x": -1e-5, "z": -1e-5})
    assert result.status == "pass" and "float64 rounding" in result.detail


def test_dirac_delta_in_a_hessian_is_a_kink():
    result = tape_check("hessian", "y = abs(x)", {"x": 0.0})
    assert result.status == "skipped" and "DiracDelta" in result.detail
    assert tape_check("hessian", "y = abs(x)", {"x": 2.0}).status == "pass"


# --------------------------------------------------------------------------- fallback


def test_operation_budget_falls_back_to_finite_differences():
    result = tape_check("gradient", "y = 2*x[0]**3 + 2*x[1]**3", {"x": [1, 1]},
                        limits=TINY_OPS)
    assert (result.status, result.method) == ("pass", "finite-difference")
    assert "checked by central finite differences" in result.detail
    assert "operation" in result.detail


SMOOTH = [c for c in CORRECT if "relu" not in c[1] and "clamp" not in c[1]]


@pytest.mark.parametrize("kind, src, at, weights", SMOOTH)
def test_finite_differences_pass_and_fail(kind, src, at, weights):
    good = tape_check(kind, src, at, weights=weights, limits=TINY_OPS)
    assert (good.status, good.method) == ("pass", "finite-difference"), good.detail
    bad = tape_check(kind, src, at, weights=weights, limits=TINY_OPS, perturb=0.5)
    assert (bad.status, bad.method) == ("fail", "finite-difference"), bad.detail


def _spin(job):
    while True:  # Python code that never ends, as sympy on a hostile input
        pass


def test_time_budget_falls_back_and_never_hangs(monkeypatch):
    monkeypatch.setattr("gradcalc.verify.against_sympy.symbolic_check", _spin)
    limits = replace(DEFAULT_LIMITS, check_seconds=0.05)
    started = time.monotonic()
    result = tape_check("gradient", "y = x**3", {"x": 2.0}, limits=limits)
    assert time.monotonic() - started < BACKSTOP_SECONDS  # a hang, not a slow machine
    assert (result.status, result.method) == ("pass", "finite-difference")
    assert result.detail.startswith("symbolic check exceeded 0.05 s of CPU time; checked by")


def test_the_budget_counts_cpu_time_not_the_wall_clock(monkeypatch):
    """A symbolic check that waits (a machine too busy to run it) longer than its budget
    is still made: only the CPU time it spends counts; the finite differences that
    follow a check that gave way get the same allowance whatever the clock said."""
    from gradcalc.verify import against_sympy

    real = against_sympy.symbolic_check
    monkeypatch.setattr(against_sympy, "symbolic_check",
                        lambda job: time.sleep(0.3) or real(job))
    limits = replace(DEFAULT_LIMITS, check_seconds=0.05)
    assert tape_check("gradient", "y = x**3", {"x": 2.0}, limits=limits).method == "symbolic"
    monkeypatch.setattr("time.monotonic", lambda: 1e9 * np.random.rand())
    small = replace(DEFAULT_LIMITS, max_symbolic_ops=1)
    first = tape_check("gradient", "y = sum(sin(x) * x)", {"x": np.linspace(-1, 1, 600)},
                       limits=small)
    again = tape_check("gradient", "y = sum(sin(x) * x)", {"x": np.linspace(-1, 1, 600)},
                       limits=small)
    assert first == again and "random directions" in first.detail


def test_time_budget_restores_the_previous_alarm():
    calls = []

    def handler(signum, frame):
        calls.append(signum)

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    try:
        limits = replace(DEFAULT_LIMITS, check_seconds=0.01, max_symbolic_ops=10**9)
        tape_check("gradient", "y = x; for i in range(60): y = y*y + y", {"x": 0.001},
                   limits=limits)
        assert signal.getsignal(signal.SIGALRM) is handler
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90 < left <= 100
        assert calls == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_time_budget_swallows_a_late_alarm():
    with time_budget(0.05) as armed:
        assert armed
    time.sleep(0.1)  # no alarm may arrive after the block


def test_outside_the_main_thread_the_time_budget_is_armed_too():
    results = []
    thread = threading.Thread(target=lambda: results.append(
        tape_check("gradient", "y = x**3", {"x": 2.0})))
    thread.start()
    thread.join(30)
    assert results[0].status == "pass"
    with time_budget(1.0) as armed:
        assert armed
    armed_in_thread = []

    def probe():
        with time_budget(1.0) as armed:
            armed_in_thread.append(armed)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join(5)
    assert armed_in_thread == [True]


def test_finite_differences_skip_kinks():
    result = tape_check("vjp", "y = relu(x) + abs(x)", {"x": [0.0, 1.0]}, weights=[1, 1],
                        limits=TINY_OPS)
    assert (result.status, result.method) == ("skipped", "finite-difference")
    assert "kink at x[0]" in result.detail


def test_finite_differences_skip_jumps_of_the_gradient():
    # the Hessian at a tie of maximum: the gradient jumps, its quotient grows like 1/step
    result = tape_check("hessian", "y = maximum(x[0], x[1])**2", {"x": [1, 1]},
                        limits=TINY_OPS)
    assert (result.status, result.method) == ("skipped", "finite-difference"), result.detail
    assert "kink at d²y/dx[0]dx[0]" in result.detail


def test_finite_differences_follow_the_recorded_path():
    # perturbing x must not flip the loop count (the path is replayed)
    result = tape_check("vjp", "y = x*2; while norm(y) < 1000: y = y*2", {"x": [2, 3, 4]},
                        weights=[1, 1, 1], limits=TINY_OPS)
    assert (result.status, result.method) == ("pass", "finite-difference")


def test_finite_differences_use_random_directions_for_large_inputs():
    x = np.linspace(-1, 1, 600)
    result = tape_check("gradient", "y = sum(sin(x) * x)", {"x": x}, limits=TINY_OPS)
    assert (result.status, result.method) == ("pass", "finite-difference")
    assert "random directions" in result.detail
    bad = tape_check("gradient", "y = sum(sin(x) * x)", {"x": x}, limits=TINY_OPS,
                     perturb=1e-2)
    assert bad.status == "fail"


def test_symbolic_route_handles_a_few_hundred_inputs():
    patient = replace(DEFAULT_LIMITS, check_seconds=60)  # a loaded machine must not matter
    result = tape_check("gradient", "y = sum(x**2)", {"x": np.linspace(0, 1, 300)},
                        limits=patient)
    assert (result.status, result.method) == ("pass", "symbolic")


def test_deep_expression_falls_back():
    result = tape_check("gradient", "y = x; for i in range(400): y = sin(y) + x",
                        {"x": 0.3})
    assert result.status == "pass"


# --------------------------------------------------------------------------- property


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["x", "z", "x", "z", "2", "0.5"]))
    kind = draw(st.sampled_from(["unary", "binary", "binary", "call2"]))
    if kind == "unary":
        f = draw(st.sampled_from(["sin", "cos", "exp", "tanh", "sigmoid", "softplus", "abs",
                                  "relu", "sqrt", "log", "atan", "sign"]))
        return f"{f}({draw(expressions(depth - 1))})"
    if kind == "call2":
        f = draw(st.sampled_from(["maximum", "minimum", "atan2"]))
        return f"{f}({draw(expressions(depth - 1))}, {draw(expressions(depth - 1))})"
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    return f"({draw(expressions(depth - 1))} {op} {draw(expressions(depth - 1))})"


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions(), st.sampled_from([-1.5, -0.5, 0.0, 0.5, 1.0, 2.0]),
       st.sampled_from([-1.0, 0.0, 0.5, 1.0, 3.0]))
@example(expr="(z / cos(atan2(x, z)))", x=-1.5, z=0.0)  # 0/0 on the tape, √(x²+z²) in sympy
def test_the_tape_never_falsely_fails(expr, x, z):
    src = f"y = {expr} + 0*x + 0*z"
    patient = replace(DEFAULT_LIMITS, check_seconds=30)
    gradient = tape_check("gradient", src, {"x": x, "z": z}, limits=patient)
    assert gradient.status != "fail", (src, gradient.detail)
    hessian = tape_check("hessian", src, {"x": x, "z": z}, limits=patient)
    assert hessian.status != "fail", (src, hessian.detail)


def test_time_budget_works_in_a_thread_too():
    """A Dask worker runs the check in a thread, where no alarm signal arrives."""
    from gradcalc.verify.budget import Timeout

    found = {}

    def spin_in_a_thread():
        try:
            with time_budget(0.01) as armed:
                found["armed"] = armed
                while True:  # Python code, as sympy is: stopped between two bytecodes
                    pass
        except Timeout:
            found["stopped"] = True
        with time_budget(0.05):
            pass
        found["after"] = sum(range(10**6))  # no Timeout arrives after the block

    worker = threading.Thread(target=spin_in_a_thread)
    worker.start()
    worker.join(BACKSTOP_SECONDS)
    assert not worker.is_alive()  # a hang, not a slow machine
    assert found == {"armed": True, "stopped": True, "after": sum(range(10**6))}
