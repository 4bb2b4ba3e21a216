"""sympy's rule search within a budget of counted calls, never time: the same integral
makes the same count, and a search past the budget stops."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.homework.solutions import integral_rules, integral_search

x = sp.Symbol("x", real=True)


def test_the_rule_search_is_cut_by_counted_calls(monkeypatch):
    monkeypatch.setattr(integral_search, "MAX_RULE_CALLS", 3)
    with pytest.raises(integral_search.OverBudget), integral_search.budget(3):
        integral_rules.steps(sp.exp(x) * sp.sin(x) * x**2 * sp.cos(x), x)


def test_the_same_integral_makes_the_same_count_of_calls():
    counts = []
    for _ in range(2):
        with integral_search.budget():
            integral_rules.steps(x**2 * sp.exp(x), x)
            counts.append(integral_search.calls_used())
    assert counts[0] == counts[1] > 0


def test_a_refusal_past_the_budget_names_the_count(invoke, monkeypatch):
    from gradcalc.homework import dispatch

    monkeypatch.setattr(dispatch, "_SOLVED", {})  # solved afresh, and forgotten after
    monkeypatch.setattr(integral_search, "MAX_RULE_CALLS", 1)
    run = invoke("derive", "x^2 e^x sin(x)", "--antiderivative", "--plain")
    assert run.code == 0
    assert "more than 1 searches" in run.out
