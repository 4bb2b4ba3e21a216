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
