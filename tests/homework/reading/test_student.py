"""gradcalc.homework.reading.student: formulas in the notation students type, read back to
the same value, simplified within a bound, and as LaTeX."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from gradcalc.backends.numeric import run_numeric
from gradcalc.homework.proof import exact_number
from gradcalc.homework.reading.student import expression, formula, latex, simplest
from gradcalc.language.parse import parse
from gradcalc.language.program import RESULT_NAME

x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)


@pytest.mark.parametrize("expr,text", [
    (2 * x * sp.exp(2 * x), "2x·e^(2x)"),
    (sp.log(3) * sp.exp(x), "ln(3)·e^x"),
    (sp.pi * sp.cos(sp.pi * x), "π·cos(π·x)"),
    (1 / (2 * sp.sqrt(x)), "1/(2√x)"),
    (sp.sqrt(2) * x, "√2·x"),
    (3 * x**2 - 2, "3x^2 - 2"),
    (sp.Abs(x) / x, "|x|/x"),
    (x**x * (sp.log(x) + 1), "x^x·(ln(x) + 1)"),
    (sp.Rational(3, 2) * x, "3x/2"),
    (-2 * x / (x**2 + 1) ** 2, "-2x/(x^2 + 1)^2"),
    (sp.exp(-x**2), "e^(-x^2)"),
    (x / sp.sqrt(x**2 + 1), "x/√(x^2 + 1)"),
    (4 * (x + 1), "4x + 4"),
    (2 * x * y, "2x·y"),
    (1 / (2 * x * (x + 1)), "1/(2x·(x + 1))"),
])
def test_formulas_are_printed_as_students_write_them(expr, text):
    assert formula(expr) == text


@pytest.mark.parametrize("expr", [
    2 * x * sp.exp(2 * x), sp.log(3) * sp.exp(x), 1 / (2 * sp.sqrt(x)), sp.Abs(x) / x,
    x**x * (sp.log(x) + 1), -2 * x / (x**2 + 1) ** 2, sp.exp(-x**2) * sp.sin(3 * x) / 7,
    sp.pi * x**sp.Rational(3, 2), 3**x * sp.log(3), 2 * x * y + sp.cos(x * y),
])
def test_what_is_printed_reads_back_to_the_same_value(expr):
    text = formula(expr)
    program = parse(text)
    for px, py in ((0.7, 1.3), (2.5, -0.4)):
        got = float(run_numeric(program, {"x": px, "y": py}, of=RESULT_NAME))
        want = float(expr.subs({x: px, y: py}))
        assert math.isclose(got, want, rel_tol=1e-12), (text, got, want)


def test_expected_is_the_shortest_form_found():
    assert formula(simplest(-x / (x + 1) ** 2 + 1 / (x + 1))) == "1/(x + 1)^2"
    assert formula(simplest(sp.sin(x) ** 2 + sp.cos(x) ** 2 + x)) == "x + 1"
    assert simplest(x) == x


def test_exact_constants_are_written_exactly():
    assert formula(exact_number(math.log(3))) == "ln(3)"
    assert formula(exact_number(1 / math.log(10))) == "1/ln(10)"
    assert formula(exact_number(math.pi / 2)) == "π/2"
    assert formula(exact_number(math.sqrt(2))) == "√2"


def test_latex_uses_ln():
    assert latex(sp.log(x) / x) == r"\frac{\ln{\left(x \right)}}{x}"


@pytest.mark.parametrize("text,shown", [
    ("1/2x", "(1/2)·x"), ("1/(2x)", "1/(2x)"), ("1/2√x", "(1/2)·√x"),
    ("x^2 sin(x)", "x^2·sin(x)"), ("e^(2x)", "e^(2x)"), ("ln(x)", "ln(x)"),
    ("sqrt(x + 1)", "√(x + 1)"), ("abs(x)", "|x|"), ("-3x^4", "-3x^4"),
    ("2pi x", "2π·x"), ("(x+1)(x-1)", "(x + 1)·(x - 1)"), ("x^(1/2)", "x^(1/2)"),
    ("|x|^3", "|x|^3"), ("abs(x - 1)^2", "|x - 1|^2"), ("sqrt(x)^3", "(√x)^3"),
])
def test_the_ir_is_printed_with_the_grouping_it_was_read_with(text, shown):
    program = parse(text)
    assert expression(program.body[-1].value) == shown


def test_several_absolute_values_print_as_abs_so_the_text_reads_back():
    x = sp.Symbol("x", real=True)
    assert formula(sp.Abs(x) * x) in ("x·|x|", "|x|·x")  # one: bars
    several = formula(x * sp.Abs(x) + x * sp.sign(x) + 2 * sp.Abs(x))
    assert "|" not in several and several.count("abs(") == 2  # |x| + ... + 2|x| pairs two ways
    parse(several)


#: rewritings whose shortest form only trigsimp finds (about 100,000 counted calls)
TRIG_ONLY = (sp.tan(x) ** 2 + sp.tan(x) * sp.sec(x) + 1) / (sp.tan(x) + sp.sec(x))


def test_the_shortest_form_does_not_depend_on_the_machines_speed(slow_machine):
    """Bounded by counted calls, not CPU time: a machine a thousand times slower (every
    time budget spent a thousand times sooner) finds the same form."""
    assert formula(simplest(TRIG_ONLY)) == "1/cos(x)"
    assert formula(simplest(-x / (x + 1) ** 2 + 1 / (x + 1))) == "1/(x + 1)^2"


def test_a_rewriting_past_its_count_gives_nothing_alike_in_every_run(monkeypatch):
    """Past `SIMPLIFY_CALLS` counted calls a rewriting is dropped; its count is decided
    in a fresh process (`counted.decide`), so exactly at the same call in every run."""
    from sympy.core.cache import clear_cache

    from gradcalc.homework.reading import student

    clear_cache()  # not cached by an earlier test: counted here, it would cost far less
    monkeypatch.setattr(student, "SIMPLIFY_CALLS", 20_000)
    assert [simplest(TRIG_ONLY) for _ in range(2)] == [TRIG_ONLY, TRIG_ONLY]
