"""Antiderivatives of a first-year course, with steps: the textbook's rewritings before
sympy's rules, a substitution searched where sympy finds none, and every limit counted
work (calls of sympy's rule search), never time."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from gradcalc.homework.solutions import integral_rules

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("function,rule,answer", [
    ("\\sin(3x)\\sin(7x)", "product-to-sum", "sin(4x)/8 - sin(10x)/20"),
    ("sin(2x)^5", "trig-identity", "-cos(2x)^5/10 + cos(2x)^3/3 - cos(2x)/2"),
    ("sin(2x)^3 cos(2x)^2", "trig-identity", "cos(2x)^5/10 - cos(2x)^3/6"),
    ("tan(x)^4", "trig-identity", "x + tan(x)^3/3 - tan(x)"),
    ("1/(x^2+4x+29)", "complete-square", None),
    ("cos(2x)/(1+sin(2x)^2)", "substitution", "atan(sin(2x))/2"),
    ("sec(3/x)^2/x^2", "substitution", "-tan(3/x)/3"),
    ("sec(4-x)^2", None, None),
    ("4s + 3/sin(s)^2", "trig-identity", None),
    ("x cosh(x)", "parts", "x·sinh(x) - cosh(x)"),
    ("2sec(x)^3", "reduction", "ln(|tan(x) + sec(x)|) + sec(x)·tan(x)"),
    ("sec(3x)^4", "reduction", "(sec(3x)^2 + 2)·tan(3x)/9"),
    ("sqrt(4 - x^2)", "trig-substitution", "x·√(4 - x^2)/2 + 2asin(x/2)"),
    ("1/(x^2+9)^(3/2)", "trig-substitution", "x/(9√(x^2 + 9))"),
    ("sqrt(x^2 - 4)/x", "trig-substitution", "√(x^2 - 4) - 2atan(√(x^2 - 4)/2)"),
    ("x^2/sqrt(9 - x^2)", "trig-substitution", None),
    ("1/(x^2 sqrt(x^2 + 4))", "trig-substitution", "-√(x^2 + 4)/(4x)"),
    ("sqrt(x^2 + 9)", "trig-substitution", None),
    ("x sqrt(4 - x^2)", "substitution", "-(4 - x^2)^(3/2)/3"),
    ("sqrt(x^2 - 1)", "trig-substitution", "x·√(x^2 - 1)/2 - ln(|x + √(x^2 - 1)|)/2"),
    ("1/(1 - x^2)^(3/2)", "trig-substitution", None),
    ("x^2 cosh(x)", "tabular-parts", None),
    ("x^2 3^x", "tabular-parts", None),
])
def test_a_first_year_antiderivative_has_steps(invoke, function, rule, answer):
    run = invoke("derive", function, "--antiderivative", "--json")
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["note"] is None and out["verified"]["merged"] == 0
    rules = [s["rule"] for s in out["steps"]]
    assert rules[-1] == "differentiate-back"
    if rule:
        assert rule in rules
    if answer:
        assert out["answer"].split(" = ", 1)[1] == f"{answer} + C"
    assert "_u" not in run.out and "Dummy" not in run.out


def test_completing_the_square_states_the_arctangent_formula(invoke):
    run = invoke("derive", "1/(x^2+4x+29)", "--antiderivative", "--plain")
    assert "1/(x^2 + 4x + 29) = 1/((x + 2)^2 + 25)" in run.out
    assert "∫ 1/(u^2 + a^2) du = (1/a)·atan(u/a)" in run.out


def test_more_substitutions_than_letters_do_not_crash(invoke):
    from gradcalc.homework.solutions.integrating import Integrator

    maker = Integrator(x)
    names = [maker.name(sp.Dummy()).name for _ in range(7)]
    assert names == ["u", "w", "t", "s", "z", "u1", "u2"]


def test_the_rule_search_is_cut_by_counted_calls(monkeypatch):
    monkeypatch.setattr(integral_rules, "MAX_RULE_CALLS", 3)
    with pytest.raises(integral_rules.OverBudget), integral_rules.budget(3):
        integral_rules.steps(sp.exp(x) * sp.sin(x) * x**2 * sp.cos(x), x)


def test_the_same_integral_makes_the_same_count_of_calls():
    counts = []
    for _ in range(2):
        with integral_rules.budget():
            integral_rules.steps(x**2 * sp.exp(x), x)
            counts.append(integral_rules.calls_used())
    assert counts[0] == counts[1] > 0


def test_a_refusal_past_the_budget_names_the_count(invoke, monkeypatch):
    from gradcalc.homework import dispatch

    monkeypatch.setattr(dispatch, "_SOLVED", {})  # solved afresh, and forgotten after
    monkeypatch.setattr(integral_rules, "MAX_RULE_CALLS", 1)
    run = invoke("derive", "x^2 e^x sin(x)", "--antiderivative", "--plain")
    assert run.code == 0
    assert "more than 1 searches" in run.out


def test_steps_that_do_not_verify_are_said_alike_in_plain_and_json(invoke, monkeypatch):
    from gradcalc.homework import dispatch
    from gradcalc.homework.solutions import verified

    monkeypatch.setattr(dispatch, "_SOLVED", {})  # solved afresh, and forgotten after
    monkeypatch.setattr(verified.Checker, "holds", lambda self, raw: (False, False, 0))
    said = ("no worked steps found (the steps found could not all be verified); sympy's "
            "antiderivative, verified by differentiating it back (by sympy)")
    plain = invoke("derive", "x^3 cos(x)", "--antiderivative", "--plain")
    assert plain.out.splitlines()[-1] == f"checked: {said}"
    out = json.loads(invoke("derive", "x^3 cos(x)", "--antiderivative", "--json").out)
    assert out["steps"] == [] and out["verified"]["merged"] == 0
    assert out["note"] == said


@pytest.mark.parametrize("function,said,triangle", [
    ("sqrt(4 - x^2)", "x = 2sin(θ), dx = 2cos(θ) dθ, √(4 - x^2) = 2cos(θ)",
     "x = 2sin(θ): the right triangle with opposite side x, adjacent side √(4 - x^2) and "
     "hypotenuse 2 gives sin(2θ) = 2cos(θ)·sin(θ), cos(θ) = √(4 - x^2)/2, "
     "sin(θ) = x/2, θ = asin(x/2)"),
    ("1/(x^2+9)^(3/2)", "x = 3tan(θ), dx = 3sec(θ)^2 dθ, √(x^2 + 9) = 3sec(θ)",
     "x = 3tan(θ): the right triangle with opposite side x, adjacent side 3 and "
     "hypotenuse √(x^2 + 9) gives sin(θ) = x/√(x^2 + 9)"),
    ("sqrt(x^2 - 4)/x", "x = 2sec(θ), dx = 2sec(θ)·tan(θ) dθ, √(x^2 - 4) = 2tan(θ)",
     "x = 2sec(θ): the right triangle with opposite side √(x^2 - 4), adjacent side 2 "
     "and hypotenuse x gives tan(θ) = √(x^2 - 4)/2, θ = atan(√(x^2 - 4)/2)"),
])
def test_trig_substitution_says_x_dx_and_the_root_then_the_triangle(invoke, function,
                                                                   said, triangle):
    out = json.loads(invoke("derive", function, "--antiderivative", "--json").out)
    notes = {s["rule"]: s["note"] for s in out["steps"]}
    assert notes["trig-substitution"] == said
    assert notes["back-substitution"] == triangle


def test_a_trig_substitution_in_latex_writes_theta_by_its_command(invoke):
    run = invoke("derive", "1/(x^2+9)^(3/2)", "--antiderivative", "--latex")
    assert "\\int \\frac{\\cos{\\left(\\theta \\right)}}{9}\\, d\\theta" in run.out
    assert "θ" not in run.out


def test_u_before_theta_where_both_would_do():
    with integral_rules.budget():
        rule = integral_rules.steps(x * sp.sqrt(4 - x**2), x)
    assert type(rule).__name__ == "URule"
