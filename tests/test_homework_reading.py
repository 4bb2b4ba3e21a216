"""How both sides were read ("read as") in every view, the notation traps judged both
ways, and parser errors in the student's words."""

from __future__ import annotations

import json

import pytest

from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.reading.wording import plain
from gradcalc.homework.traps import traps


@pytest.mark.parametrize("function,answer,wrt,read", [
    ("x^2 sin(x)", "2x sin(x) + x^2 cos(x)", None,
     {"function": "f(x) = x^2·sin(x)", "answer": "f'(x) = 2x·sin(x) + x^2·cos(x)"}),
    ("x^2 y", "[2x y, x^2]", None, {"function": "f(x, y) = x^2·y", "answer": "∇f = [2x·y, x^2]"}),
    ("x^2 y", "2x y", ["x"], {"function": "f(x, y) = x^2·y", "answer": "∂f/∂x = 2x·y"}),
    ("g(t) = e^(2t)", "2e^(2t)", None, {"function": "g(t) = e^(2t)", "answer": "g'(t) = 2e^(2t)"}),
    ("[x y, x + y]", "[[y, x], [1, 1]]", None,
     {"function": "f(x, y) = [x·y, x + y]", "answer": "Jf = [[y, x], [1, 1]]"}),
    ("ln(x)", "1/x", None, {"function": "f(x) = ln(x)", "answer": "f'(x) = 1/x"}),
    # the forms of published answers: each reading shows its grouping
    ("x^2e^x", "2xe^x + x^2e^x", None,
     {"function": "f(x) = x^2·e^x", "answer": "f'(x) = 2x·e^x + x^2·e^x"}),
    ("(x + cos(x))(1 - sin(x))", "(1 - sin x)(1 - sin x) - cos x(x + cos x)", None,
     {"function": "f(x) = (x + cos(x))·(1 - sin(x))",
      "answer": "f'(x) = (1 - sin(x))·(1 - sin(x)) - cos(x)·(x + cos(x))"}),
    ("x√x", "√x(3/2)", None, {"function": "f(x) = x·√x", "answer": "f'(x) = √x·(3/2)"}),
    ("2^t", "(ln 2) 2^t", None, {"function": "f(t) = 2^t", "answer": "f'(t) = ln(2)·2^t"}),
    ("f(x) = sech^(-1) (x^2)", "-2/(x√(1 - x^4))", None,
     {"function": "f(x) = asech(x^2)", "answer": "f'(x) = -2/(x·√(1 - x^4))"}),
    ("t sin(t)", "sint + t cost", None,
     {"function": "f(t) = t·sin(t)", "answer": "f'(t) = sin(t) + t·cos(t)"}),
    ("f(t) = sint", "cost", None, {"function": "f(t) = sin(t)", "answer": "f'(t) = cos(t)"}),
    ("x^3 y", "3x^2y", ["x"], {"function": "f(x, y) = x^3·y", "answer": "∂f/∂x = 3x^2·y"}),
])
def test_every_verdict_says_how_both_sides_were_read(function, answer, wrt, read):
    assert run(AnswerJob(function, answer, wrt)).read == read


@pytest.mark.parametrize("function,answer,note", [
    ("ln(x)/2", "1/2x", "1/2x is read as (1/2)·x; if you meant 1/(2x), that would be "
     "correct — write 1/(2x)"),
    ("sqrt(x)", "1/2√x", "1/2√x is read as (1/2)·√x; if you meant 1/(2√x), that would be "
     "correct — write 1/(2√x)"),
    ("x^2/4", "1/2x", "1/2x is read as (1/2)·x; if you meant 1/(2x), that would be "
     "incorrect"),
    ("sqrt(x)", "x^-1/2 / 2", "if you meant x^(-1/2)/2, that would be correct"),
    ("-cos(x)/2", "1/2sin(x)", "1/2sin(x) is read as (1/2)·sin(x); if you meant "
     "1/(2sin(x)), that would be incorrect"),
    ("1/2x", "-1/(2x^2)", "the function 1/2x is read as (1/2)·x; if you meant 1/(2x), the "
     "answer would be correct — write 1/(2x)"),
    ("x*sin(pi/6)", "sin pi/6", "sin pi/6 is read as sin(π)/6; if you meant sin(π/6), that "
     "would be correct — write sin(π/6)"),
    ("x ln(x/2)", "ln x/2 + 1", "ln x/2 + 1 is read as ln(x)/2 + 1; if you meant ln(x/2) + 1, "
     "that would be correct — write ln(x/2) + 1"),
])
def test_a_trap_read_the_other_way_is_named_when_it_changes_the_verdict(function, answer,
                                                                        note):
    v = run(AnswerJob(function, answer))
    assert v.note is not None and note in v.note, v.note
    assert v.feedback == v.note


def test_a_power_then_a_name_is_a_trap_judged_both_ways():
    v = run(AnswerJob("x^3 y", "3x^2y", ["x"]))
    assert v.verdict == "correct"
    assert v.note == ("3x^2y is read as 3x^2·y; if you meant 3x^(2y), that would be "
                      "incorrect")


@pytest.mark.parametrize("function,answer", [
    ("x^2", "1/2x"),  # both readings are wrong: no note
    ("x^2e^x", "2xe^x + x^2e^x"),  # e^ after an exponent is a new factor to every reader
    ("x^3 ln(x)", "3x^2ln x + x^2"),
    ("x^2/4", "x/2"),  # no trap
    ("ln(2x)", "1/(2x)"),  # written unambiguously
])
def test_no_note_when_the_other_reading_changes_nothing(function, answer):
    assert run(AnswerJob(function, answer)).note is None


@pytest.mark.parametrize("text,count", [
    ("1/2x", 1), ("1/2√x", 1), ("1/2sin(x)", 1), ("x^1/2", 1), ("x^-3/2", 1),
    ("x^2/4", 0), ("sin x^2", 1),
    ("e^2x", 1), ("sin^-1 x", 1), ("1/(2x)", 0), ("x/2", 0), ("2x + 1", 0),
    ("sin pi/6", 1), ("ln x/2", 1), ("x^2y", 1), ("x^2e^x", 0), ("x^3ln x", 0),
    ("x^2sin(x)", 0),
])
def test_traps_are_found_in_the_text(text, count):
    assert len(list(traps(text))) == count


@pytest.mark.parametrize("message,said", [
    ("syntax error at line 1, column 5: invalid syntax",
     "cannot read the formula at line 1, column 5: an operator, a number or a "
     "parenthesis is missing or extra there"),
    ("syntax error at line 1, column 1: unterminated string literal (detected at line 1)",
     "a quote mark at line 1, column 1 cannot be read: a prime is read only in a prefix "
     "before '=', as in f'(x) = 2x or y' = 2x"),
    ("syntax error at line 1, column 1: invalid syntax. Maybe you meant '==' or ':=' "
     "instead of '='?", "'=' cannot be read at line 1, column 1"),
    ("syntax error at line 1, column 4: '(' was never closed",
     "a '(' at line 1, column 4 is never closed"),
    ("syntax error at line 1, column 3: unmatched ')'",
     "a ')' at line 1, column 3 has nothing to close"),
    ("name 'q' is not an input", "name 'q' is not an input"),
])
def test_parser_errors_are_said_in_the_students_words(message, said):
    assert said in plain(message)


def test_the_views_show_the_reading(invoke):
    r = invoke("check", "ln(x)/2", "--answer", "1/2x", "--json")
    out = json.loads(r.out)
    assert out["read"] == {"function": "f(x) = ln(x)/2", "answer": "f'(x) = (1/2)·x"}
    assert out["expected"] == "1/(2x)" and out["expected_latex"] == r"\frac{1}{2 x}"
    assert out["note"].startswith("1/2x is read as (1/2)·x")
    r = invoke("check", "x^2", "--answer", "2x", "--plain")
    assert r.out == "correct (symbolic); read as f(x) = x^2 and f'(x) = 2x\n"
    r = invoke("check", "x^2", "--answer", "2x")
    assert "read as" in r.out and "f'(x) = 2x" in r.out


def test_class_rows_read_every_form_and_name_no_option(invoke, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("id,function,answer,wrt\n"
                    "a,x^2,f'(x) = 2x,\n"
                    "b,x^2 y,\"<2x y, x^2>\",\n"
                    "c,f(x) = 7,0,\n"
                    "d,x^2 y,∂f/∂y = x^2,x\n"
                    "e,x^2,2x,z\n"
                    "f,x^2,2x = 2x,\n", encoding="utf-8")
    r = invoke("grade", str(path), "--json")
    rows = [row for row in map(json.loads, r.out.splitlines()) if "id" in row]
    assert [row.get("verdict") for row in rows[:3]] == ["correct"] * 3
    errors = [row["error"]["message"] for row in rows[3:]]
    assert "the check asks for the derivative with respect to x (the row's wrt x)" in errors[0]
    assert errors[1].startswith("the row's wrt 'z'")
    assert "'=' cannot be read" in errors[2]
    assert not any("--" in e or "syntax error" in e for e in errors)
