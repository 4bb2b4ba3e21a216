"""The sheets as data: a roster read, each problem on a student's variant, asked in the
judge's own notation (f'(x), f''(x), f_xy, f'(2), F(x), dy/dx, ∂L/∂W), with its formula
and its answer."""

from __future__ import annotations

import pytest
import sympy as sp

from gradcalc.errors import GradcalcError
from gradcalc.grading import worksheets
from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
from gradcalc.ingest.headers import parse_table

KEY = """problem,function,params,kind,order,partial,at,shape,wrt,constant
d,a*sin(b*x),a = 2..9; b = 2..5 except 3,,,,,,,
g,x^2 y^a,a = 2..3,,,,,,,
o,x^a,a = 3..5,,2,,,,,
p,x^2 y^a,a = 2..3,,,x;y,,,,
at,x^a,a = 3..4; c = 1..2,,,,x=c,,,
i,x^2 + y^2 = r^2,r = 2..5,implicit,,,,,,
ad,cos(a x),a = 2..4,antiderivative,,,,,,required
t,sum((W@x - a)^2),a = 1..3,tensor,,,,W=2x3; x=3,W,
fixed,x^3,,,,,,,,
"""


def key():
    return key_from(parse_table(KEY.encode(), "key.csv", REQUIRED, OPTIONAL, "key"))


@pytest.fixture(scope="module")
def sheet():
    return worksheets.sheets(key(), [("ana", (("Name", "Ana"),))])[0]


def test_each_problem_is_asked_in_the_judges_notation(sheet):
    prompts = {it.problem: it.prompt for it in sheet.items}
    assert prompts["d"] == "Find f'(x)."
    assert prompts["g"] == "Find the gradient ∇f."
    assert prompts["o"] == "Find f''(x)."
    assert prompts["p"] == "Find f_xy."
    assert prompts["at"].startswith("Find f'(") and prompts["at"] in ("Find f'(1).",
                                                                      "Find f'(2).")
    assert prompts["i"] == "Find dy/dx by implicit differentiation."
    assert prompts["ad"] == "Find an antiderivative F(x), with its constant + C."
    assert prompts["t"] == "Find the gradient ∂L/∂W of the loss L (of W's shape, 2×3)."
    assert prompts["fixed"] == "Find f'(x)."


def test_each_item_is_the_students_variant_with_its_formula_and_answer(sheet):
    items = {it.problem: it for it in sheet.items}
    d = items["d"]
    a, b = (int(dict(d.values)[n]) for n in ("a", "b"))
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    assert d.function == f"{a}*sin({b}*x)" and d.label == "f(x)"
    assert d.read == f"f(x) = {a}sin({b}x)"
    assert sp.simplify(d.formula - a * sp.sin(b * x)) == 0
    assert sp.simplify(d.answer_formula - a * b * sp.cos(b * x)) == 0
    assert isinstance(items["g"].answer_formula, list) and len(items["g"].answer_formula) == 2
    r = int(dict(items["i"].values)["r"])
    assert items["i"].label == "" and items["i"].formula == (x**2 + y**2, r**2)
    assert items["t"].formula is None and items["t"].answer.startswith("∂L/∂W = ")
    assert items["fixed"].values == () and items["fixed"].answer == "3x^2"
    assert items["ad"].answer.endswith("+ C")


def test_without_parameters_every_student_gets_the_same_problem():
    one, two = worksheets.sheets(key(), [("ana", ()), ("ben", ())])
    assert one.items[-1] == two.items[-1]
    assert [it.function for it in one.items[:-1]] != [it.function for it in two.items[:-1]]


def test_a_roster_and_its_errors(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("Email,Name\nana@uni.edu,Ana\nben@uni.edu,Ben\n")
    assert worksheets.roster(str(roster)) == [("ana@uni.edu", (("Name", "Ana"),)),
                                              ("ben@uni.edu", (("Name", "Ben"),))]
    for text, message in (("email\na\na\n", "student 'a' is in the roster twice (first on "
                           "line 2)"), ("email,name\n,Ana\n", "line 2: the student is empty"),
                          ("email\n", "has no students"),
                          ("Name Text\nx\n", "no column for the student")):
        roster.write_text(text)
        with pytest.raises(GradcalcError, match=message.replace("(", r"\(").replace(
                ")", r"\)")):
            worksheets.roster(str(roster))
