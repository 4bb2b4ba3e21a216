"""The teacher's hints: read from a key's cell, put on a student's variant, and fired by
equivalence (a rewritten form of the foreseen answer fires, a look-alike does not) or by
a mistake the verdict names."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading import hints
from gradcalc.grading.hints import Hint
from gradcalc.homework import answer as checking
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import PLAIN, Kind

WHERE = "key.csv, line 4"
SETTINGS = Settings()


def test_a_cell_of_hints_one_per_line():
    found = hints.read_hints("a*cos(b*x) -> the chain rule: what is d/dx of {b}x?\n\n"
                             "chain-inner-factor -> inside -> out\n", WHERE)
    assert found == (Hint("a*cos(b*x)", "the chain rule: what is d/dx of {b}x?"),
                     Hint("chain-inner-factor", "inside -> out", rule=True))
    assert hints.read_hints("f'(x) = 2x -> the power rule", WHERE)[0].on == "2x"


@pytest.mark.parametrize("cell, message", [
    ("a*cos(b*x)", "write each hint as ANSWER -> MESSAGE"),
    ("-> no answer", "write each hint as ANSWER -> MESSAGE"),
    ("2x ->", "write each hint as ANSWER -> MESSAGE"),
    ("chain-inner-missing -> x", "'chain-inner-missing' is not a mistake gradcalc names; "
     "did you mean chain-inner-factor?"),
    ("cos( -> x", "'(' was never closed"),
])
def test_a_bad_hint_names_the_line_and_the_column(cell, message):
    with pytest.raises(GradcalcError) as exc:
        hints.read_hints(cell, WHERE)
    assert exc.value.message.startswith("key.csv, line 4, column hints, ")
    assert message in exc.value.message


def test_every_mistake_id_of_the_catalogue_and_of_tensor_problems_is_known():
    from pathlib import Path

    from gradcalc.homework.feedback.catalogue import CATALOGUE

    assert {r.id for r in CATALOGUE} <= set(hints.known_rules())
    formulas = (Path(hints.__file__).parent.parent / "homework" / "backprop" /
                "formulas.py").read_text(encoding="utf-8")
    assert all(f'"{rule}"' in formulas for rule in hints.TENSOR_RULES)


def test_a_hint_on_a_variant_takes_its_values():
    hint = Hint("a*cos(b*x)", "what is the derivative of {b}x? ({c} stays)")
    put = hint.put((("a", Fraction(3)), ("b", Fraction(2))), WHERE)
    assert put == Hint("3*cos(2*x)", "what is the derivative of 2x? ({c} stays)")
    assert Hint("chain-inner-factor", "{a}", rule=True).put((("a", Fraction(1, 2)),),
                                                            WHERE).message == "1/2"


def verdict(function: str, answer: str, kind: Kind = PLAIN, wrt=None):
    return checking.run(checking.AnswerJob(function, answer, wrt, SETTINGS, kind=kind))


@pytest.mark.parametrize("answer", ["3cos(2x)", "cos(2x)*3", "f'(x) = 3 cos(2x)",
                                    "6cos(2x)/2", "3(cos(x)^2 - sin(x)^2)"])
def test_a_foreseen_answer_fires_in_any_form(answer):
    v = verdict("3sin(2x)", answer)
    assert v.verdict == "incorrect"
    assert hints.fire((Hint("3*cos(2*x)", "chain"),), answer, v, PLAIN, SETTINGS) == 0


@pytest.mark.parametrize("answer", ["3cos(x)", "3cos(2x) + 1", "cos(2x)", "3sin(2x)"])
def test_other_answers_do_not_fire_it(answer):
    v = verdict("3sin(2x)", answer)
    assert hints.fire((Hint("3*cos(2*x)", "chain"),), answer, v, PLAIN, SETTINGS) is None


def test_the_first_hint_that_fires_and_a_mistakes_id():
    v = verdict("3sin(2x)", "3cos(2x)")
    assert v.misconception["rule"] == "chain-inner-factor"
    by_rule = (Hint("x", "not this"), Hint("chain-inner-factor", "inner", rule=True),
               Hint("3cos(2x)", "later"))
    assert hints.fire(by_rule, "3cos(2x)", v, PLAIN, SETTINGS) == 1
    assert hints.fire((Hint("trig-sign", "no", rule=True),), "3cos(2x)", v, PLAIN,
                      SETTINGS) is None


def test_a_correct_answer_fires_nothing():
    v = verdict("3sin(2x)", "6cos(2x)")
    assert hints.fire((Hint("6cos(2x)", "?"),), "6cos(2x)", v, PLAIN, SETTINGS) is None


def test_gradients_and_matrices_fire_entry_by_entry():
    v = verdict("x^2 y", "[2x y, y^2]")
    assert hints.fire((Hint("[2*x*y, y**2]", "d/dy"),), "[2x y, y^2]", v, PLAIN,
                      SETTINGS) == 0
    hessian = Kind(order=2)
    h = verdict("x^2 y", "[[2y, 2x], [2x, 1]]", hessian, ["x", "y"])
    assert h.verdict == "incorrect"
    assert hints.same("[[2y, 2x], [2x, 1]]", "[[2*y, 2*x], [2*x, 1]]", hessian, ("x", "y"),
                      SETTINGS)
    assert not hints.same("[[2y, 2x], [2x, 1]]", "[[2*y, 2*x], [2*x, 0]]", hessian,
                          ("x", "y"), SETTINGS)


def test_an_antiderivative_fires_up_to_its_constant():
    kind = Kind(antiderivative=True)
    assert hints.same("-sin(2x)/2 + C", "-sin(2*x)/2", kind, ("x",), SETTINGS)
    assert hints.same("-sin(2x)/2", "-sin(2*x)/2 + 7", kind, ("x",), SETTINGS)
    assert not hints.same("sin(2x)/2 + C", "-sin(2*x)/2", kind, ("x",), SETTINGS)


def test_implicit_and_tensor_answers_fire_by_value():
    assert hints.same("x/y", "x/y", Kind(implicit="y"), ("x",), SETTINGS)
    assert hints.same("(2x)/(2y)", "x/y", Kind(implicit="y"), ("x",), SETTINGS)
    assert not hints.same("-x/y", "x/y", Kind(implicit="y"), ("x",), SETTINGS)
    tensor = Kind(shape=(("W", (2, 3)), ("x", (3,))))
    wrong = "outer(x, 2*(W@x - 1))"  # transposed: of shape 3x2
    assert hints.same("outer(2*(W@x - 1), x)", "outer(2*(W@x - 1), x)", tensor, ("W",),
                      SETTINGS)
    assert not hints.same(wrong, "outer(2*(W@x - 1), x)", tensor, ("W",), SETTINGS)


def test_an_answer_that_cannot_be_compared_does_not_fire():
    assert not hints.same("cos(2x) + C", "3*cos(2*x)", PLAIN, ("x",), SETTINGS)
    assert not hints.same("(", "3*cos(2*x)", PLAIN, ("x",), SETTINGS)
