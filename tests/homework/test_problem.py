"""gradcalc.homework.problem: the names of a problem, a letter glued to a variable it
names read as a constant times that variable, the reading shown."""

from __future__ import annotations

import pytest

from gradcalc.homework.dispatch import check
from gradcalc.homework.problem import function_variables


@pytest.mark.parametrize("function,wrt,answer,read", [
    ("xy", ["x"], "y", "f(x, y) = x·y"),
    ("xy", ["y"], "x", "f(x, y) = x·y"),
    ("ln(kx)", ["x"], "1/x", "f(k, x) = ln(k·x)"),
    ("e^(xa)", ["x"], "a e^(ax)", "f(x, a) = e^(x·a)"),
])
def test_a_letter_glued_to_a_named_variable_is_a_constant(function, wrt, answer, read):
    got = check(function, answer, wrt)
    assert got.verdict == "correct", got.feedback
    assert got.read["function"] == read


@pytest.mark.parametrize("function,wrt,variables", [
    ("xy", ("x",), ("x", "y")),
    ("pi x", ("p",), ("p", "x")),  # pi is never p·i
    ("sin(x)", ("x",), ("x",)),
])
def test_function_variables(function, wrt, variables):
    assert set(function_variables(function, wrt)) >= set(variables)
    assert "i" not in function_variables(function, wrt)
