"""Choosing the output from the program's text (language/outputs.py)."""

from __future__ import annotations

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.language.outputs import check_given, choose, dependents
from gradcalc.language.parse import parse


def test_dependents_follow_values_not_control_flow():
    program = parse("a = x*2; b = a + 1; c = 3; if x > 0: d = 1; e = c + b")
    assert dependents(program, ["x"]) == {"x", "a", "b", "e"}


def test_last_dependent_name_is_the_output():
    out = choose(parse("y = x*2; i = 0; while i < 5: y = y*2; i = i + 1"), ["x"])
    assert out.name == "y" and "i" in out.note and out.warning is None


def test_no_note_when_nothing_is_skipped():
    assert choose(parse("b = a + 3; c = b*b*3; out = mean(c)"), ["a"]).note is None
    assert choose(parse("2*x + 1"), ["x"]).name == "result"


def test_nothing_depends_gives_the_last_name_with_a_warning():
    out = choose(parse("y = 3; z = 4"), ["x"])
    assert out.name == "z" and "does not depend" in out.warning and "--of" in out.warning


def test_of_is_taken_as_given():
    out = choose(parse("y = x**2; z = 3"), ["x"], of="z")
    assert out.name == "z" and "does not depend" in out.warning and out.note is None
    assert choose(parse("y = x**2"), ["x"], of="x").name == "x"


def test_of_never_assigned_is_an_error():
    with pytest.raises(GradcalcError, match="--of 'q'"):
        choose(parse("y = x**2"), ["x"], of="q")


@pytest.mark.parametrize("text", ["x > 0", "y = x > 0", "y = x; z = (x < 1)"])
def test_comparison_outputs_are_refused(text):
    with pytest.raises(GradcalcError, match="comparison"):
        choose(parse(text), ["x"])


def test_a_given_name_overwritten_before_it_is_read_is_refused():
    with pytest.raises(GradcalcError, match="y is given a value with --at"):
        check_given(parse("y = x**2"), ["x", "y"])
    check_given(parse("x = x + 1; y = x"), ["x"])
    check_given(parse("if x > 0: y = 1\nz = y + x"), ["x", "y"])
