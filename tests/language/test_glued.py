"""gradcalc.language.glued: names written against each other read apart, only where the
caller's variables (or π, or `log_2`) say how, with an error where two readings exist."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.engine.ops import FUNCTIONS
from gradcalc.errors import ParseError
from gradcalc.language.glued import readings, shown, variables_in
from gradcalc.language.parse import parse, parse_with_traps
from gradcalc.language.unparse import unparse


def read(text: str, variables: tuple[str, ...] = ("x",)) -> str:
    return unparse(parse(text, variables=variables).body[-1].value)


@pytest.mark.parametrize("typed,variables,meant", [
    ("cosx - xsinx", ("x",), "cos(x) - x * sin(x)"),
    ("2sinxcosx", ("x",), "2 * sin(x) * cos(x)"),
    ("xln(x)", ("x",), "x * log(x)"),
    ("xsec^2(x)", ("x",), "x * sec(x)**2"),
    ("2^x ln2", ("x",), "2**x * log(2)"),
    ("2cos2x", ("x",), "2 * cos(2 * x)"),
    ("lnabs(x) + 1", ("x",), "log(abs(x)) + 1"),
    ("arccotx", ("x",), "arccot(x)"),
    ("cos(x)sqrt(xy+1)", ("x", "y"), "cos(x) * sqrt(x * y + 1)"),
    ("ycos(xy)", ("x", "y"), "y * cos(x * y)"),
    ("sintheta", ("theta",), "sin(theta)"),
    ("4/3πr^3", (), "4 / 3 * 3.141592653589793 * r**3"),  # π is its value
    ("log_2x + 1", (), "logb(x, 2) + 1"),
])
def test_a_glued_name_is_read_as_its_pieces(typed, variables, meant):
    assert read(typed, variables) == meant


@pytest.mark.parametrize("typed,variables", [
    ("theta", ("t",)),  # t, h, e, t, a are not all variables: a name of its own
    ("sine", ("x",)),
    ("x2", ("x",)),  # a number only as a function's argument
    ("cosx", ()),  # no variables named: nothing is read apart
    ("xy", ("x", "y", "xy")),  # a variable itself
])
def test_a_name_that_is_no_such_pieces_stays_a_name(typed, variables):
    assert read(typed, variables) == typed


def test_a_name_the_text_assigns_is_never_read_apart():
    program = parse("xy = 3\nxy + x", variables=("x", "y"))
    assert unparse(program.body[-1].value) == "xy + x"


@pytest.mark.parametrize("typed,variables,both", [
    ("asinx", ("a", "x"), "asin(x) or a*sin(x)"),
    ("cosht", ("h", "t"), "cosh(t) or cos(h*t)"),
])
def test_two_readings_are_an_error_that_shows_both(typed, variables, both):
    with pytest.raises(ParseError) as info:
        parse(typed, variables=variables)
    assert f"can be read two ways: {both}" in info.value.message


def test_each_name_read_apart_is_recorded_with_its_place():
    _, traps = parse_with_traps("1 + xsinx", variables=("x",))
    glued = [t for t in traps if t.kind == "glued name"]
    assert [(t.written, t.read, t.other, t.start, t.end) for t in glued] == [
        ("xsinx", "x*sin(x)", None, 4, 9)]


@pytest.mark.parametrize("pieces,text", [
    (("sin", "x", "cos", "x"), "sin(x)*cos(x)"),
    (("cos", "2", "x"), "cos(2*x)"),
    (("x", "y"), "x*y"),
])
def test_a_reading_is_shown_in_the_language(pieces, text):
    assert shown(pieces, FUNCTIONS) == text


@pytest.mark.parametrize("texts,known,variables", [
    (["sint", "cost"], (), ("t",)),  # the letter both are written against
    (["sint", "2"], (), ("sint",)),  # a name of its own
    (["(cosx-y)/(x-1)"], (), ("x", "y")),
    (["theta^2", "2theta"], (), ("theta",)),
    (["ycos(xy)"], ("x", "y"), ("x", "y")),
])
def test_the_variables_a_text_shows(texts, known, variables):
    assert variables_in(texts, FUNCTIONS, known) == variables


@given(st.lists(st.sampled_from(["sin", "cos", "x", "y", "2", "ln", "tan"]), min_size=1,
                max_size=5))
def test_every_reading_is_made_of_its_pieces(pieces):
    word = "".join(pieces)
    for found in readings(word, FUNCTIONS, ("x", "y")):
        assert "".join(found) == word and len(found) > 1


@given(st.sampled_from(["", "2", "x", "3x"]),
       st.lists(st.sampled_from(["sin", "cos", "tan", "ln", "sec", "arccot"]), min_size=1,
                max_size=4))
def test_functions_glued_to_x_are_their_product(head, names):
    glued = head + "".join(f"{n}x" for n in names)
    factors = [head.replace("x", "*x").lstrip("*")] if head else []
    spaced = "*".join([*factors, *(f"{'log' if n == 'ln' else n}(x)" for n in names)])
    assert read(glued) == unparse(parse(spaced).body[-1].value)
