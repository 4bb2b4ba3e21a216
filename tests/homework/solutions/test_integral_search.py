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


def test_sympy_takes_parts_by_the_same_u_in_every_search():
    """sympy counts each u = sin(x) taken by parts in its module, refusing a fourth in a
    process; every search starts afresh."""
    found = [type(integral_search.sympy_steps(sp.exp(x) * sp.sin(x), x)).__name__
             for _ in range(5)]
    assert found == ["CyclicPartsRule"] * 5


def test_a_search_stopped_past_the_budget_leaves_nothing_behind():
    """A stopped search left its integrands in sympy's table of searches under way,
    where a later search of them read 'leads around in a loop'."""
    f = x**2 * sp.exp(x) * sp.sin(x)
    with pytest.raises(integral_search.OverBudget), integral_search.budget(3):
        integral_search.sympy_steps(f, x)
    assert not integral_search.unknown(integral_search.sympy_steps(f, x))
    assert not integral_search.unknown(integral_search.sympy_steps(sp.exp(x) * sp.sin(x), x))


def test_a_solution_is_the_same_whatever_was_solved_before(invoke, monkeypatch):
    from gradcalc.homework import dispatch

    monkeypatch.setattr(dispatch, "_SOLVED", {})  # solved afresh, and forgotten after
    alone = invoke("derive", "e^x sin(x) + 1", "--antiderivative", "--plain").out
    for earlier in ("sin(x) e^x", "2 e^x sin(x)", "3 e^x sin(x)", "x^2 e^x sin(x)"):
        invoke("derive", earlier, "--antiderivative", "--plain")
    dispatch._SOLVED.clear()
    assert invoke("derive", "e^x sin(x) + 1", "--antiderivative", "--plain").out == alone
    assert "by parts" in alone
