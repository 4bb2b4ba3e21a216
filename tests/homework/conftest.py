"""Fixtures shared by the homework tests."""

from __future__ import annotations

import pytest

from gradcalc.verify import budget


@pytest.fixture
def slow_machine(monkeypatch) -> float:
    """sympy's CPU-time budgets (`gradcalc.verify.budget`) on a machine a thousand times
    slower: their clock runs a thousand times fast, so a budget of 1 s is spent after
    1 ms of work. Returns the factor."""
    factor = 1000.0
    real = budget.cpu_clock
    monkeypatch.setattr(budget, "cpu_clock", lambda: real() * factor)
    return factor
