"""gradcalc.homework.feedback.misconceptions: the step that went wrong. Each catalogue entry
is found at its step on a hand-made wrong answer, and (a property over random functions)
a wrong answer made by any misapplication at any step is located there, or at a step
whose misapplication gives the very same derivative."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from expression_strategies import expressions
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from gradcalc.homework.feedback import catalogue
from gradcalc.homework.feedback import misconceptions as m
from gradcalc.homework.feedback.recognise import same
from gradcalc.homework.judge import judge
from gradcalc.homework.problem import read_problem
from gradcalc.homework.proof import text
from gradcalc.language.parse import parse

from conftest import examples

CASES = [
    ("sin(3x)", "cos(3x)", "chain-inner-factor", "sin(3x)"),
    ("cos(x^2)", "-sin(x^2)", "chain-inner-factor", "cos(x^2)"),
    ("(x^2 + 1)^5", "5(x^2 + 1)^4", "chain-inner-factor", "(x^2 + 1)^5"),
    ("e^(3x)", "e^(3x)", "chain-inner-factor", "e^(3x)"),
    ("cos(x)", "sin(x)", "trig-sign", "cos(x)"),
    ("x + cos(2x)", "1 + 2sin(2x)", "trig-sign", "cos(2x)"),
    ("x^2 - sin(x)", "2x + cos(x)", "subtraction-sign", "x^2 - sin(x)"),
    ("x^3 - x^2", "3x^2 + 2x", "subtraction-sign", "x^3 - x^2"),
    ("x^2 sin(x)", "2x cos(x)", "product-of-derivatives", "x^2·sin(x)"),
    ("x^2 sin(x)", "2x sin(x)", "product-term-missing", "x^2·sin(x)"),
    ("x e^x", "x e^x", "product-term-missing", "x·e^x"),
    ("x/(x + 1)", "-1/(x + 1)^2", "quotient-reversed", "x/(x + 1)"),
    ("sin(x)/x", "(x cos(x) - sin(x))/x", "quotient-square-missing", "sin(x)/x"),
    ("x/sin(x)", "1/cos(x)", "quotient-of-derivatives", "x/sin(x)"),
    ("x^3", "3x^3", "power-not-lowered", "x^3"),
    ("x^3 + sin(x)", "3x^4 + cos(x)", "power-raised", "x^3"),
    ("2^x", "2^x", "exponential-log-missing", "2^x"),
    ("3^(x^2)", "2x * 3^(x^2)", "exponential-log-missing", "3^(x^2)"),
    ("e^(2x)", "2x e^(2x - 1)", "exponential-as-power", "e^(2x)"),
    ("exp(x^2)", "x^2 exp(x^2 - 1)", "exponential-as-power", "exp(x^2)"),
    ("x^x", "x x^(x-1)", "variable-exponent", "x^x"),
    ("5 sin(x)", "cos(x)", "constant-multiple-dropped", "5sin(x)"),
    ("x^2/3", "2x", "constant-multiple-dropped", "x^2/3"),
    ("5^x", "x 5^(x-1)", "power-rule-on-exponential", "5^x"),
    ("x^2 + 2^(3x)", "2x + 3x 2^(3x - 1)", "power-rule-on-exponential", "2^(3x)"),
    ("5^x", "5^x/ln(5)", "exponential-log-divided", "5^x"),
    ("x sin(x) + 3^(x^2)", "sin(x) + x cos(x) + 2x 3^(x^2)/ln(3)", "exponential-log-divided",
     "3^(x^2)"),
    ("x^5", "x^4", "power-coefficient-dropped", "x^5"),
    ("(x^2 + 1)^3 + x", "2x(x^2 + 1)^2 + 1", "power-coefficient-dropped", "(x^2 + 1)^3"),
    ("x^2 + 3", "2x + 3", "constant-term-kept", "x^2 + 3"),
    ("sin(x) (5 - x^2)", "cos(x) (5 - x^2) + sin(x) (5 - 2x)", "constant-term-kept",
     "5 - x^2"),
    ("sin(x^2)", "cos(2x)", "chain-outer-of-derivative", "sin(x^2)"),
    ("x + e^(x^3)", "1 + e^(3x^2)", "chain-outer-of-derivative", "e^(x^3)"),
]


@pytest.mark.parametrize("function,answer,rule,at", CASES)
def test_each_catalogue_entry_is_found_at_its_step(function, answer, rule, at):
    v = judge(read_problem(function, answer))
    assert v.verdict == "incorrect"
    assert v.misconception == {"rule": rule, "at": at}, v.feedback
    assert v.feedback.startswith(f"at {at}: ")


def test_every_catalogue_entry_has_a_case_and_words():
    assert {c[2] for c in CASES} == set(catalogue.RULES)
    for rule in catalogue.CATALOGUE:
        assert rule.name and rule.right and rule.wrong


def test_the_feedback_names_the_inner_factor():
    v = judge(read_problem("sin(3x)", "cos(3x)"))
    assert v.feedback == "at sin(3x): the chain rule's inner factor 3 is missing"
    v = judge(read_problem("2^x", "2^x"))
    assert "ln(2)" in v.feedback


@pytest.mark.parametrize("function,answer,said", [
    ("5^x", "x 5^(x-1)", "at 5^x: an exponential is not a power: (5^u)' = 5^u·ln(5)·u', "
     "not u·5^(u−1)"),
    ("5^x", "5^x/ln(5)", "at 5^x: ln(5) multiplies, it does not divide: (5^u)' = "
     "5^u·ln(5)·u'"),
    ("x^2 + 3", "2x + 3", "at x^2 + 3: the constant term 3 has derivative 0: (u + c)' = u'"),
    ("sin(pi x)", "cos(pi x)", "at sin(π·x): the chain rule's inner factor π is missing"),
    ("sin(sqrt(2) x)", "cos(sqrt(2) x)", "at sin(√2·x): the chain rule's inner factor √2 "
     "is missing"),
    ("e^(ln(3) x)", "e^(ln(3) x)", "at e^(ln(3)·x): the chain rule's inner factor ln(3) "
     "is missing"),
    ("sin(x/3)", "cos(x/3)", "at sin(x/3): the chain rule's inner factor 1/3 is missing"),
])
def test_the_feedback_says_the_rule_with_exact_constants(function, answer, said):
    assert judge(read_problem(function, answer)).feedback == said


def test_in_a_gradient_the_step_is_found_per_entry():
    v = judge(read_problem("sin(x y)", "[cos(x y), x cos(x y)]"))
    assert v.misconception == {"rule": "chain-inner-factor", "at": "sin(x·y)"}
    assert v.score == 0.5


def test_statements_are_steps_too():
    v = judge(read_problem("u = 3x\ny = sin(u)\ny", "cos(3x)"))
    assert v.misconception == {"rule": "chain-inner-factor", "at": "sin(u)"}


def test_no_guess_when_no_single_misapplication_reproduces_the_answer():
    v = judge(read_problem("sin(3x) x^2", "cos(x)"))
    assert v.verdict == "incorrect" and v.misconception is None


def test_control_flow_is_not_searched():
    program = parse("if x > 0:\n    y = sin(3x)\nelse:\n    y = x\ny")
    assert m.search(program, {"x": np.array([1.0, 2.0])}, "x", np.zeros(2), same) is None


def test_the_search_is_bounded():
    long = " + ".join(f"sin({k}x)" for k in range(1, 80))
    program = parse(long)
    assert m.search(program, {"x": np.array([1.0, 2.0])}, "x", np.zeros(2), same) is None


# --------------------------------------------------------------------------- never raises

#: formulas where a rule meets zero (a zero derivative, a zero value or divisor, the log of
#: zero, a negative power of zero) or a number past float64's range, for every kind of step
EDGES = [
    "(x - x) - (x - x)", "-(x - x)", "(x - x) + 3", "(x - x)*(x - x)", "3*(x - x)",
    "(x - x)*x", "(x - x)/(x - x)", "1/(x - x)", "x/(x - x)", "(x - x)/3", "((x - x))^-1",
    "(x - x)^-2", "(x - x)^-1.5", "(x - x)^0.5", "(x - x)^0", "0^x", "2^(x - x)",
    "0^(x - x)", "(x - x)^(x - x)", "x^(x - x)", "(x - x)^x", "e^(x - x)", "e^(1000x)",
    "(1e200 x)^2", "2^(2000x)", "(1e300 x)^-3", "log(x - x)", "sqrt(x - x)", "sin(x - x)",
    "tan(x - x)", "exp(x - x)", "exp(1000x)", "atan(1/(x - x))", "log(0x)",
    "asin(x - x + 1)", "sqrt(x - x)^-1", "log(x - x)^(x - x)", "1e308*x*10",
]
EDGE_POINTS = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 1e300])


@pytest.mark.parametrize("function", EDGES)
def test_a_misapplied_rule_on_a_zero_or_huge_number_never_raises(function):
    """Every candidate's sweep, as numbers and as a formula, and its message: inf, nan or
    zoo are answers; an exception is not."""
    numeric = m.FormulaTape(parse(function), {"x": EDGE_POINTS}, "x")
    symbolic = m.FormulaTape(parse(function), {"x": sp.Symbol("x", real=True)}, "x",
                             symbolic=True)
    assert list(numeric.candidates()) == list(symbolic.candidates())
    assert list(numeric.candidates())
    for k, mistake in numeric.candidates():
        assert np.shape(numeric.sweep(mistake, k)) in ((), EDGE_POINTS.shape)
        symbolic.sweep(mistake, k)
        assert m.message(numeric, k, mistake).startswith("at ")


def test_a_huge_constant_is_written_short():
    assert m.exact_text(1e308) == "1e+308"
    assert m.exact_text(-3.0) == "-3"
    assert m.exact_text(0.5) == "1/2"


@pytest.mark.parametrize("function", EDGES)
def test_a_misconception_search_on_a_zero_or_huge_number_finds_or_not(function):
    for answer in ("0", "1", "1/x", "x^-2"):
        assert judge(read_problem(function, answer, ["x"])).verdict


# --------------------------------------------------------------------------- property

UNARY = ["sin", "cos", "tan", "exp", "log", "sqrt", "atan"]


def _expressions() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["x", "x", "2", "3"])
    return expressions(UNARY, leaves, max_leaves=4, exponential=True).filter(lambda e: "x" in e)


FRESH = np.array([0.37, 0.81, 1.3, 1.9, 2.6, 0.55, 1.13])


def _numeric(function: str, mistake: str | None, step: int) -> np.ndarray:
    tape = m.FormulaTape(parse(function), {"x": FRESH}, "x")
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(tape.sweep(mistake, step), dtype=float),
                               FRESH.shape)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expressions(), st.integers(0, 63))
@example(function="((x - x))^-1", pick=4)  # chain-outer-of-derivative: 0.0 ** -2 raised
def test_a_misapplied_rule_is_located_at_its_step(function, pick):
    x = sp.Symbol("x", real=True)
    tape = m.FormulaTape(parse(function), {"x": x}, "x", symbolic=True)
    options = list(tape.candidates())
    assume(options)
    step, mistake = options[pick % len(options)]
    wrong = tape.sweep(mistake, step)
    made = _numeric(function, mistake, step)
    right = _numeric(function, None, -1)
    finite = np.isfinite(made) & np.isfinite(right)
    assume(finite.sum() >= 3 and not same(made[finite], right[finite]))
    # the search compares only where every step's value is moderate (2^(x + 27) never is)
    assume(m.FormulaTape(parse(function), {"x": FRESH}, "x").conditioned(FRESH.shape).sum() >= 3)
    v = judge(read_problem(function, text(wrong), ["x"]))
    assume(v.verdict == "incorrect")  # too few points where both sides are defined
    assert v.misconception is not None, (function, mistake, step, text(wrong), v.feedback)
    if v.misconception == {"rule": m.rule_id(mistake), "at": tape.steps[step].text}:
        return
    # another step whose misapplication gives the very same derivative
    found = [(k, r) for k, r in options if m.rule_id(r) == v.misconception["rule"]
             and tape.steps[k].text == v.misconception["at"]]
    assert any(np.allclose(_numeric(function, r, k)[finite], made[finite], rtol=1e-7,
                           equal_nan=True) for k, r in found), (function, mistake, step,
                                                                v.misconception)


def test_the_docs_table_is_the_catalogue():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "homework.md").read_text(
        encoding="utf-8")
    for rule in catalogue.CATALOGUE:
        assert f"| `{rule.id}` | {rule.name} | {rule.right} | {rule.wrong} |" in page
