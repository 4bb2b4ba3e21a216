"""gradcalc.homework.real_roots: the textbooks' odd roots of negative numbers in a homework
check (verdicts, domains, expected texts), the engine's PyTorch convention kept outside it."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from gradcalc.backends.numeric import run_numeric
from gradcalc.homework import real_roots
from gradcalc.homework.dispatch import check
from gradcalc.homework.kinds.registry import Kind
from gradcalc.language.parse import parse

X = sp.Symbol("x", real=True)


@pytest.mark.parametrize("function,answer,wrt", [
    ("cbrt(y^2)*(y^2+9y)", "(8/3)y^(5/3) + 15y^(2/3)", ["y"]),  # the issue's own case
    ("x^(2/3)*(x-5)", "(5/3)x^(2/3) - (10/3)x^(-1/3)", None),
    ("cbrt(x)", "(1/3)x^(-2/3)", None),
    ("x^0.6", "0.6x^(-0.4)", None),
    ("(x^2 - 1)^(1/5)", "2x/(5(x^2-1)^(4/5))", None),
])
def test_an_odd_root_is_real_below_zero_in_a_homework_check(function, answer, wrt):
    verdict = check(function, answer, wrt)
    assert verdict.verdict == "correct", verdict.feedback


@pytest.mark.parametrize("function,answer", [
    ("x^(2/3)", "2/(3 sqrt(x)^(2/3))"),  # √x needs x ≥ 0 whatever the convention
    ("x^(1/3)", "1/(3x^(1/3))"),  # a wrong exponent stays wrong
    ("abs(x)^(3/4)", "(3/4)x^(-1/4)"),  # an even root is not real below zero
])
def test_an_even_root_and_a_slip_stay_incorrect(function, answer):
    assert check(function, answer, None).verdict == "incorrect"


def test_the_expected_text_writes_the_real_roots_as_powers():
    assert check("cbrt(x^2)", "0", None).expected == "2/(3x^(1/3))"
    assert check("cbrt(y^2)*(y^2+9y)", "0", ["y"]).expected == "y^(2/3)·(8y + 45)/3"
    anti = check("x^(2/3)", "0", None, Kind(antiderivative=True))
    assert anti.expected == "3x^(5/3)/5 + C"


def test_the_engine_keeps_pytorchs_nan_outside_homework():
    program = parse("x**(1/3)")
    value = run_numeric(program, {"x": np.asarray(-8.0)}, of="result")
    assert math.isnan(float(np.asarray(getattr(value, "value", value))))
    real = real_roots.tape_program(program)
    assert float(np.asarray(run_numeric(real, {"x": np.asarray(-8.0)}, of="result"))) == \
        pytest.approx(-2.0)


def test_a_program_without_odd_roots_is_the_same_object():
    program = parse("sqrt(x) + x^(3/4) + x^2 + x^y")
    assert real_roots.tape_program(program) is program


@pytest.mark.parametrize("value,root", [(2 / 3, Fraction(2, 3)), (-5 / 3, Fraction(-5, 3)),
                                        (0.6, Fraction(3, 5)), (0.5, None), (2.0, None),
                                        (0.75, None), (math.pi, None)])
def test_odd_root_reads_the_exponent(value, root):
    assert real_roots.odd_root(value) == root


def test_real_powers_and_as_written_are_inverse_on_the_books_forms():
    expr = sp.Rational(8, 3) * X ** sp.Rational(5, 3) + 15 * X ** sp.Rational(2, 3)
    real = real_roots.real_powers(expr)
    assert real.subs(X, -1) == sp.Rational(-8, 3) + 15
    assert real_roots.as_written(real) == expr
    assert real_roots.real_powers(sp.sqrt(X)) == sp.sqrt(X)
