"""Property: what "read as" prints of a side parses back to the same program (the
grouping it shows is the grouping that was read)."""

from __future__ import annotations

import dataclasses

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradcalc.homework.reading.student import expression
from gradcalc.language.parse import parse
from gradcalc.language.program import Binary, Call, Name, Num, Unary
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


def _numbers_only(node) -> bool:
    if isinstance(node, Num):
        return True
    if isinstance(node, Unary):
        return _numbers_only(node.operand)
    return isinstance(node, Binary) and _numbers_only(node.left) and _numbers_only(node.right)


def _as_powers_of_e(node):
    """The program with exp of a number written as a power of e: read as prints e^(-6)
    for exp(-6), the same number (a constant's power of e, as a book prints it)."""
    if isinstance(node, Call) and node.func == "exp" and len(node.args) == 1 and \
            _numbers_only(node.args[0]):
        return Binary("**", Name("e", node.pos), _as_powers_of_e(node.args[0]), node.pos)
    if not dataclasses.is_dataclass(node):
        return node
    changed = {f.name: (tuple(_as_powers_of_e(v) for v in value) if isinstance(value, tuple)
                        else _as_powers_of_e(value))
               for f in dataclasses.fields(node) for value in [getattr(node, f.name)]}
    return dataclasses.replace(node, **changed)


@settings(max_examples=examples(200), deadline=None)
@given(_programs())
@example("exp(2)").via("a constant power of e reads as e^2")
@example("exp(-(1/2)) x").via("and e^(-(1/2))")
def test_read_as_parses_back_to_the_same_program(text):
    first = parse(text).body[-1].value
    shown = expression(first)
    again = parse(shown).body[-1].value
    assert unparse(again) == unparse(_as_powers_of_e(first)), (text, shown)


def test_a_variants_text_as_read():
    from gradcalc.homework.read_as import text_read

    assert text_read("exp((-6))*x") == "e^(-6)·x"  # a variant's text, as judged
    assert text_read("2 sin(4 x)") == "2sin(4x)"
    assert text_read("x^2 y = (-3)") == "x^2·y = -3"  # an equation, side by side
    assert text_read("sin(x") == "sin(x"  # what cannot be read is shown as it is
