"""The check's derivatives memo: several points of one program differentiate once, and
say exactly what they said without it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from verify.test_check import tape_check

from gradcalc.limits import DEFAULT_LIMITS
from gradcalc.verify import memo

PROGRAM = "y = a*b*sin(c) + exp(a*c)/(1+b**2)"
POINTS = [{"a": 0.3, "b": -1.2, "c": 0.7}, {"a": 1.5, "b": 0.25, "c": -2.0},
          {"a": -0.4, "b": 2.0, "c": 0.1}, {"a": 2.5, "b": 1.5, "c": 1.0},
          {"a": 0.1, "b": 0.2, "c": 0.3}]


@pytest.fixture
def diffs(monkeypatch):
    """Counts sympy's differentiations (sympy.diff calls) from a cleared memo."""
    count = [0]
    real = sp.diff

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "diff", counted)
    memo.clear()
    yield count
    memo.clear()


def without_memo(monkeypatch):
    monkeypatch.setattr(memo, "derivatives",
                        lambda what, make, target, symbols, spend: make(target, symbols, spend))


def test_five_points_of_one_path_differentiate_once(diffs):
    first = tape_check("gradient", PROGRAM, POINTS[0])
    one = diffs[0]
    assert one > 0 and first.status == "pass"
    for at in POINTS[1:]:
        assert tape_check("gradient", PROGRAM, at).status == "pass"
    assert diffs[0] == one  # four more points: no differentiation
    assert memo.COUNTS == {"made": 1, "reused": 4}


def test_a_hessian_is_kept_too(diffs):
    src = "y = x[0]**2*x[1] + sin(a)*x[0] + exp(a*x[1])"
    tape_check("hessian", src, {"x": [1, 2], "a": 0.5}, wrt=["x"])
    one = diffs[0]
    result = tape_check("hessian", src, {"x": [3, -1], "a": 0.5}, wrt=["x"])
    assert result.status == "pass" and diffs[0] == one


def test_another_path_or_constant_is_differentiated_again(diffs):
    src = "if x > 0:\n    y = x**3\nelse:\n    y = sin(x)"
    tape_check("gradient", src, {"x": 1.0})
    tape_check("gradient", src, {"x": 2.0})
    assert memo.COUNTS == {"made": 1, "reused": 1}
    tape_check("gradient", src, {"x": -1.0})  # the other branch: another expression
    assert memo.COUNTS == {"made": 2, "reused": 1}
    # a constant folded into the expression makes it another one
    tape_check("gradient", "y = k*x**2", {"x": 1.0, "k": 2.0}, wrt=["x"])
    tape_check("gradient", "y = k*x**2", {"x": 1.0, "k": 3.0}, wrt=["x"])
    assert memo.COUNTS["made"] == 4


@pytest.mark.parametrize("kind, src, points, wrt, perturb", [
    ("gradient", PROGRAM, POINTS, None, 0.0),
    ("gradient", PROGRAM, POINTS, None, 1e-3),  # a wrong tape: the same fail messages
    ("gradient", "y = relu(x) * abs(x)", [{"x": 1.0}, {"x": 0.0}, {"x": -2.0}], None, 0.0),
    ("gradient", "y = x**0.5 + log(x)", [{"x": 4.0}, {"x": 0.0}, {"x": 1e-300}], None, 0.0),
    ("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]",
     [{"m": [2, 4]}, {"m": [0, 1]}, {"m": [-3, 5]}], None, 1e-6),
    ("hessian", "y = x[0]*relu(x[1]) + maximum(x[0], x[1])**2",
     [{"x": [1, 1]}, {"x": [2, -1]}, {"x": [0.5, 3]}], None, 0.0),
])
def test_verdicts_and_messages_are_those_without_the_memo(monkeypatch, diffs, kind, src,
                                                          points, wrt, perturb):
    kept = [tape_check(kind, src, at, wrt=wrt, perturb=perturb) for at in points]
    without_memo(monkeypatch)
    fresh = [tape_check(kind, src, at, wrt=wrt, perturb=perturb) for at in points]
    assert kept == fresh


def test_the_operation_budget_is_charged_as_the_first_time(monkeypatch, diffs):
    """A budget that the symbolic run fits but its derivatives exceed: exceeded at a later
    point too, at the same step, with the derivatives kept from a roomy first point."""
    src = "y = sin(x) * 2"  # a Jacobian: n*n derivatives of a run of n operations
    at, later = {"x": [1.0, 2.0, 3.0]}, {"x": [0.5, 2.0, 1.0]}

    def check(ops, point=later):
        return tape_check("jacobian", src, point,
                          limits=replace(DEFAULT_LIMITS, max_symbolic_ops=ops))

    low, high = 1, 10_000  # the least budget the whole check fits, without the memo
    with monkeypatch.context() as m:
        without_memo(m)
        while low < high:
            mid = (low + high) // 2
            low, high = (low, mid) if check(mid).method == "symbolic" else (mid + 1, high)
        short = check(low - 1)
    assert short.method == "finite-difference" and "too large" in (short.detail or "")
    memo.clear()
    assert check(10_000, at).status == "pass" and memo.COUNTS["made"] == 1
    assert check(low - 1) == short and memo.COUNTS["reused"] == 1
    assert check(low).method == "symbolic" and memo.COUNTS["reused"] == 2


def test_the_memo_is_bounded(diffs):
    for k in range(memo.SIZE + 5):
        tape_check("gradient", f"y = x**2 + {k}*sin(x)", {"x": 0.5})
    assert len(memo._MEMO) == memo.SIZE
    assert np.isfinite(memo.COUNTS["made"])
