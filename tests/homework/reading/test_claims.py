"""gradcalc.homework.reading.claims and the problem it reads: answer prefixes stripped and
checked against what is asked, vectors in every bracket, constant functions checked."""

from __future__ import annotations

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.problem import read_problem
from gradcalc.homework.reading.claims import integral, split_prefix, vector


@pytest.mark.parametrize("text,body,kind,wrt", [
    ("f'(x) = 2x", "2x", "derivative", ("x",)),
    ("f'(x)=2x", "2x", "derivative", ("x",)),
    ("y' = 2x", "2x", "derivative", ()),
    ("dy/dx = 2x", "2x", "derivative", ("x",)),
    ("df/dx = 2x", "2x", "derivative", ("x",)),
    ("d/dx(x^2) = 2x", "2x", "derivative", ("x",)),
    ("d/dx [x^2] = 2x", "2x", "derivative", ("x",)),
    ("∂f/∂x = 2x y", "2x y", "partial", ("x",)),
    ("f_x = 2x y", "2x y", "partial", ("x",)),
    ("f_{y}(x, y) = x^2", "x^2", "partial", ("y",)),
    ("∇f = [2x, 2y]", "[2x, 2y]", "gradient", ()),
    ("grad f = [2x, 2y]", "[2x, 2y]", "gradient", ()),
    ("∇f(x, y) = <2x, 2y>", "<2x, 2y>", "gradient", ()),
])
def test_prefixes_are_stripped_and_say_what_they_claim(text, body, kind, wrt):
    got, claim = split_prefix(text)
    assert got == body and claim is not None
    assert (claim.form, claim.wrt) == (kind, wrt)


@pytest.mark.parametrize("text", ["2x", "u = x^2; 2u", "where(x >= 0, 1, -1)",
                                  "f(x) = 2x"])
def test_other_text_is_left_to_the_language(text):
    assert split_prefix(text) == (text, None)


@pytest.mark.parametrize("text,list_text", [
    ("<2x, 2y>", "[2x, 2y]"), ("⟨2x, 2y⟩", "[2x, 2y]"), ("(2x, 2y)", "[2x, 2y]"),
    ("〈x, y〉", "[x, y]"), ("<<y, x>, <1, 2y>>", "[[y, x], [1, 2y]]"),
    ("((y, x), (1, 2y))", "[[y, x], [1, 2y]]"), ("(x + 1)", "(x + 1)"), ("2x", "2x"),
])
def test_vectors_in_any_bracket_are_lists(text, list_text):
    assert vector(text) == list_text


@pytest.mark.parametrize("function,answer,wrt", [
    ("x^2", "f'(x) = 2x", None), ("x^2", "y' = 2x", None), ("x^2", "dy/dx = 2x", None),
    ("x^2", "d/dx(x^2) = 2x", None), ("x^2 y", "∂f/∂y = x^2", None),
    ("x^2 y", "f_x = 2x y", ["x"]), ("x^2 y", "∇f = <2x y, x^2>", None),
    ("x^2 y", "grad f = ⟨2x y, x^2⟩", None), ("x^2 y", "(2x y, x^2)", None),
    ("f(x) = 7", "0", None), ("f(x) = 7", "f'(x) = 0", None), ("7", "dy/dt = 0", None),
    ("7", "0", None), ("h(t) = t^2", "f'(x) = 2t", None),
])
def test_answers_in_these_forms_are_correct(function, answer, wrt):
    assert run(AnswerJob(function, answer, wrt)).verdict == "correct"


def test_a_constant_takes_its_variable_from_the_answer_else_x():
    assert read_problem("7", "dy/dt = 0").wrt == ("t",)
    assert read_problem("7", "0").wrt == ("x",)
    assert read_problem("f(s) = 7", "0").wrt == ("s",)


@pytest.mark.parametrize("function,answer,wrt,fragment", [
    ("x^2 y", "∂f/∂y = x^2", ["x"], "written as ∂f/∂y (a partial derivative with respect "
     "to y), but the check asks for the derivative with respect to x (--wrt x)"),
    ("t^2", "dy/dx = 2t", None, "the function has no variable x (its variables: t)"),
    ("x^2", "f''(x) = 2", None, "a derivative of order 2"),
    ("x^2 y", "∇f = [2x y, x^2]", ["x"], "asks for the derivative with respect to x"),
    ("x^2", "f'(x) =", None, "write the formula after the '='"),
])
def test_a_prefix_that_contradicts_the_question_is_an_error(function, answer, wrt,
                                                            fragment):
    with pytest.raises(GradcalcError) as info:
        read_problem(function, answer, wrt)
    assert fragment in info.value.message


def test_no_error_blames_an_option_nobody_typed():
    with pytest.raises(GradcalcError) as info:
        read_problem("x^2", "2x", ["z"])
    assert info.value.message.startswith("--wrt 'z'")
    with pytest.raises(GradcalcError) as info:
        read_problem("x^2", "2x", ["z"], wrt_from="the row's wrt")
    assert "--" not in info.value.message and "the row's wrt 'z'" in info.value.message
    assert run(AnswerJob("f(x) = 7", "0")).verdict == "correct"


@pytest.mark.parametrize("function,expected,wrt", [
    (r"\int \frac{dx}{x^{2}+1}", r"\frac{1}{x^{2}+1}", ["x"]),
    (r"\int \frac{x\,dx}{x^2+1}", r"\frac{x}{x^2+1}", ["x"]),
    (r"\int \frac{\mathrm{d}t}{\sqrt{1-t^{2}}}", r"\frac{1}{\sqrt{1-t^{2}}}", ["t"]),
    (r"\int \frac{1}{x}\,dx", r"\frac{1}{x}", ["x"]),
])
def test_an_integral_with_dx_in_the_numerator_is_read_as_books_write_it(
        function, expected, wrt):
    assert integral(function, "", None) == (expected, "", wrt)
    answer = rf"{function} = \arctan x + C"
    assert split_prefix(answer)[0] == r"\arctan x + C"
    assert split_prefix(answer)[1].form == "antiderivative"
