"""gradcalc.verify.counted: sympy work counted in a fresh process, so the count is the same
in every run whatever the caller's process did, its string hashing and its settings."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.verify import counted

x = sp.Symbol("x", real=True)
#: an integral whose count varied by about 1% between processes when counted in place
#: (sympy's shuffled assumptions, string hashing, class-keyed cache collisions)
SI = sp.sin(x) / x


def test_the_same_work_makes_the_same_count_in_every_run(monkeypatch):
    first = counted.run(sp.integrate, SI, x, calls=10**7)
    sp.integrate(sp.cos(x) ** 3, x)  # the caller's state changes: no effect on the count
    second = counted.run(sp.integrate, SI, x, calls=10**7)
    for name, value in (("PYTHONHASHSEED", "123"), ("SYMPY_GROUND_TYPES", "python"),
                        ("SYMPY_USE_CACHE", "no")):
        monkeypatch.setenv(name, value)  # the caller's settings are not passed on
    third = counted.run(sp.integrate, SI, x, calls=10**7)
    assert first.result == second.result == third.result == sp.Si(x)
    assert first.made == second.made == third.made > 100_000
    assert not (first.over or second.over or third.over)


def test_work_past_its_calls_is_stopped_at_the_count():
    stopped = counted.run(sp.integrate, SI, x, calls=1000)
    assert (stopped.result, stopped.made, stopped.over) == (None, 1001, True)


def test_an_exception_of_the_work_is_raised_in_the_caller():
    with pytest.raises(ValueError, match="invalid literal"):
        counted.run(int, "seven", calls=100)


def test_what_the_work_prints_does_not_spoil_its_answer():
    done = counted.run(print, "printed by the work", calls=100)
    assert (done.result, done.over) == (None, False)


def test_a_child_that_dies_is_a_failure_not_an_answer():
    import os

    with pytest.raises(counted.ChildFailed, match="code 3"):
        counted.run(os._exit, 3, calls=100)


def test_the_fixed_environment_replaces_the_callers(monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    monkeypatch.setenv("MPMATH_NOGMPY", "0")
    env = counted._environment()
    assert {k: env[k] for k in counted.FIXED_ENVIRONMENT} == counted.FIXED_ENVIRONMENT
    assert not any(k.startswith("SYMPY_") and k not in counted.FIXED_ENVIRONMENT for k in env)


def test_counting_here_stops_past_the_count_and_cannot_be_swallowed():
    def swallowing():
        try:
            return [abs(k) for k in range(2000) for _ in [_call()]]
        except Exception:  # noqa: BLE001 - what sympy does in places: not a stop
            return "swallowed"

    with pytest.raises(counted.OverCount), counted.counting(1000) as counter:
        swallowing()
    assert counter.made == 1001


def _call() -> None:
    """One Python call."""


class _Finalized:
    """Calls made while it is finalized, where an exception cannot propagate."""

    def __del__(self) -> None:
        for _ in range(10):
            _call()


def test_a_stop_in_a_finalizer_is_raised_again_when_the_work_returns():
    """Python drops an exception raised in a finalizer (and unsets a profile function
    that raises): the work ran on uncounted, so the stop is raised when it returns."""
    def work():
        for _ in range(200):
            _Finalized()
        return "done"

    with pytest.raises(counted.OverCount), counted.counting(500) as counter:
        work()
    assert counter.made == 501


def test_an_enclosing_count_counts_the_work_counted_inside_it():
    with counted.counting(10**7) as outer:
        with counted.counting(10**7) as inner:
            sp.factor(x**6 - 1)
        sp.expand((x + 1) ** 3)
    assert outer.made > inner.made > 100


def test_decide_runs_work_here_within_a_tenth_of_its_limit(monkeypatch):
    def no_child(*args, **kwargs):
        raise AssertionError("sent to a fresh process")

    monkeypatch.setattr(counted, "run", no_child)
    done = counted.decide(sp.factor, x**6 - 1, calls=10**6)
    assert done.result == sp.factor(x**6 - 1) and not done.over and done.made < 10**5


def test_decide_leaves_work_past_a_tenth_to_the_exact_count():
    """Past a tenth of its limit here, the fresh process decides: done at exactly its
    count, stopped one call below it, in every run."""
    exact = counted.run(sp.integrate, SI, x, calls=10**7).made
    done = [counted.decide(sp.integrate, SI, x, calls=exact) for _ in range(2)]
    stopped = counted.decide(sp.integrate, SI, x, calls=exact - 1)
    assert [(d.result, d.made, d.over) for d in done] == [(sp.Si(x), exact, False)] * 2
    assert (stopped.result, stopped.made, stopped.over) == (None, exact, True)
