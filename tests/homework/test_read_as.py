"""Property: what "read as" prints of a side parses back to the same program (the
grouping it shows is the grouping that was read)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.homework.reading.student import expression
from gradcalc.language.parse import parse
from gradcalc.language.unparse import unparse

from conftest import examples

UNARY = ["sin", "cos", "tan", "exp", "log", "sqrt", "abs", "atan", "sinh", "sec", "log10"]
LEAVES = st.sampled_from(["x", "y", "2", "3", "0.5", "pi", "e", "1/2"])


def _programs() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        unary = st.tuples(st.sampled_from(UNARY), inner).map(lambda t: f"{t[0]}({t[1]})")
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", " ", "^"]), inner).map(
            lambda t: f"({t[0]}){t[1]}({t[2]})" if t[1] != " " else f"({t[0]}) ({t[2]})")
        neg = inner.map(lambda t: f"-({t})")
        return unary | binary | neg

    return st.recursive(LEAVES, extend, max_leaves=6)


@settings(max_examples=examples(200), deadline=None)
@given(_programs())
def test_read_as_parses_back_to_the_same_program(text):
    first = parse(text).body[-1].value
    shown = expression(first)
    again = parse(shown).body[-1].value
    assert unparse(again) == unparse(first), (text, shown)
