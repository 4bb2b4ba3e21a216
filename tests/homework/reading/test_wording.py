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


# --------------------------------------------------------------------------- the long tail


@pytest.mark.parametrize("args,read", [
    (["x cos(x)", "--answer", "cosx - xsinx"], "f'(x) = cos(x) - x·sin(x)"),
    (["sin(x)^2", "--answer", "2sinxcosx"], "f'(x) = 2sin(x)·cos(x)"),
    (["x^2 ln(x)", "--answer", "2xln(x) + x"], "f'(x) = 2x·ln(x) + x"),
    (["x tan(x)", "--answer", "tan(x) + xsec^2(x)"], "f'(x) = tan(x) + x·sec(x)^2"),
    (["2^x", "--answer", "2^x ln2"], "f'(x) = 2^x·ln(2)"),
    (["sin(2x)", "--answer", "2cos2x"], "f'(x) = 2cos(2x)"),
    (["ln|ln|x||", "--answer", "1/(x ln|x|)"], "f'(x) = 1/(x·ln(|x|))"),
    (["x arccotx", "--answer", "arccotx - x/(1+x^2)"], "f'(x) = arccot(x) - x/(1 + x^2)"),
    (["x lnabs(x)", "--answer", "lnabs(x) + 1"], "f'(x) = ln(|x|) + 1"),
    (["x^2 y", "--wrt", "x", "--answer", "2xy"], "∂f/∂x = 2x·y"),
    (["r(2s^2 + 3t^3)", "--wrt", "s", "--answer", "4rs"], "∂f/∂s = 4r·s"),
    (["x y ln(y)", "--wrt", "y", "--answer", "x(ln y + 1)"], "∂f/∂y = x·(ln(y) + 1)"),
    (["4/3πr^3", "--answer", "4πr^2"], "f'(r) = 4π·r^2"),
    (["x^2", "--answer", "(dy)/(dx) = 2x"], "f'(x) = 2x"),
    (["x^2", "--answer", "2x = dy/dx"], "f'(x) = 2x"),
    (["sin(x)^3", "--answer", "3sin^2(x)cos(x)"], "f'(x) = 3sin(x)^2·cos(x)"),
    (["(z-(x+1))^2", "--wrt", "z", "--answer", "2[z-(x+1)]"], "∂f/∂z = 2(z - (x + 1))"),
    (["x•x", "--answer", "2x"], "f'(x) = 2x"),
    (["x^2 y", "--partial", "x,y", "--answer", "2x"], "f_xy = 2x"),
    (["x^2 + y^2 = 1", "--implicit", "y", "--answer", "(dy)/(dx) = -x/y"], "dy/dx = -x/y"),
    (["x y - y = sin(x)", "--implicit", "y", "--answer", "(cosx-y)/(x-1)"],
     "dy/dx = (cos(x) - y)/(x - 1)"),
    (["x y = sin(x)^2", "--implicit", "y", "--answer", "((2sinxcosx)-y)/x"],
     "dy/dx = (2sin(x)·cos(x) - y)/x"),
    (["2sqrt(x y + 1) = sin(x)", "--implicit", "y", "--answer", "(cos(x)sqrt(xy+1)-y)/x"],
     "dy/dx = (cos(x)·√(x·y + 1) - y)/x"),
    (["x cos(x)", "--antiderivative", "--answer", "xsinx + cosx + C"],
     "F(x) = x·sin(x) + cos(x) + C"),
])
def test_the_long_tail_is_read_in_every_kind(invoke, args, read):
    r = invoke("check", *args, "--plain")
    assert r.code == 0 and r.out.startswith("correct") and read in r.out, r.out + r.err


def test_the_long_tail_is_read_in_a_class_with_a_key(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(
        "problem,function,wrt,partial,implicit\n"
        "p1,x cos(x),,,\n"
        "p2,x^2 y,,x;y,\n"
        "p3,x y - y = sin(x),,,y\n", encoding="utf-8")
    (tmp_path / "subs.csv").write_text(
        "student,problem,answer\n"
        "ana,p1,cosx - xsinx\n"
        "ana,p2,2x\n"
        "ana,p3,(dy)/(dx) = (cosx-y)/(x-1)\n"
        "ben,p1,cosx + xsinx\n", encoding="utf-8")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json")
    rows = [row for row in map(json.loads, r.out.splitlines()) if "problem" in row]
    assert [row["verdict"] for row in rows] == ["correct", "correct", "correct", "incorrect"]


@pytest.mark.parametrize("function,answer,wrt,note", [
    ("y^2/(4x)", "y / 2 x", ["y"], "y / 2 x is read as (y/2)·x; if you meant y/(2x), that "
     "would be correct — write y/(2x)"),
    ("2x^2/(5y)", "4 x / 5 y", ["x"], "4 x / 5 y is read as (4x/5)·y; if you meant "
     "4x/(5y), that would be correct — write 4x/(5y)"),
    ("log x", "1/(x ln(10))", None, "the function log x is read as ln(x); if you meant "
     "log10(x), the answer would be correct — write log10(x)"),
    ("log_2.5x", "1/(x ln(2))", None, "the function log_2.5x is read as log_2.5(x); if you "
     "meant log_2(0.5x), the answer would be correct — write log_2(0.5x)"),
    ("log10(x)", "1/(x log x)", None, None),  # both readings wrong: nothing to say
    ("ln(x)", "1/x", None, None),  # ln is never base 10
])
def test_a_reading_that_changes_the_verdict_is_always_said(function, answer, wrt, note):
    assert run(AnswerJob(function, answer, wrt)).note == note


@pytest.mark.parametrize("answer", ["I don't know", "no idea", "?", "the derivative is 2x",
                                    "idk lol"])
def test_words_are_not_a_formula_and_say_so(invoke, answer):
    r = invoke("check", "x^2", "--answer", answer)
    assert r.code == 2 and r.err.startswith("error: the answer is words, not a formula: ")


@pytest.mark.parametrize("text", ["2 a x", "rate time", "x sin x", "pi r^2", "a b c"])
def test_a_formula_with_names_is_not_words(text):
    from gradcalc.homework.reading.wording import prose

    assert not prose(text, ("a", "x", "rate", "time", "r", "b", "c"), ("sin",))
