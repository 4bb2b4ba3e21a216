"""The tangent line at a point (homework/kinds/tangent.py): any equation of the line is
judged exactly as a line (slope and point), the usual mistakes named, and the kind goes
through every command (check, derive, grade, batch, replay, sheets)."""

from __future__ import annotations

import json

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.dispatch import check, solve
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind

AT_1 = Kind.read(tangent="x=1")


def judged(function: str, answer: str, at: str = "x=1") -> object:
    return check(function, answer, None, Kind.read(tangent=at), Settings())


@pytest.mark.parametrize("answer", ["y = 2x - 1", "y - 1 = 2(x - 1)", "2x - y = 1", "2x - 1",
                                    "y = 2(x - 1) + 1", "4x - 2y - 2 = 0", "-1 + 2x = y"])
def test_any_equation_of_the_tangent_line_is_correct(answer: str) -> None:
    v = judged("x^2", answer)
    assert (v.verdict, v.method, v.kind, v.expected) == ("correct", "symbolic", "tangent",
                                                         "y = 2x - 1")


def test_the_line_is_decided_exactly_not_to_rounding() -> None:
    assert judged("sqrt(x)", "y = (x - 2)/(2sqrt(2)) + sqrt(2)", "x=2").verdict == "correct"
    assert judged("sqrt(x)", "y = 0.354x + 0.707", "x=2").verdict == "incorrect"
    assert judged("e^x", "y = e*(x - 1) + e").verdict == "correct"
    assert judged("sin(x)", "y = x", "x=0").verdict == "correct"


@pytest.mark.parametrize("function, at, answer, said", [
    ("x^2", "x=1", "y - 1 = 1(x - 1)", "f(1) = 1 is the point's height, not the slope"),
    ("x^2", "x=1", "y - 1 = 2x(x - 1)", "f'(x) = 2x is the derivative's formula"),
    ("x^3", "x=2", "y - 2 = 12(x - 8)", "the point's coordinates are swapped"),
    ("x^2", "x=1", "y = 2x", "the slope 2 is right, but the line does not go through (1, 1)"),
    ("x^2", "x=1", "y - 1 = -1/2(x - 1)", "the normal line"),
    ("x^2", "x=1", "2", "that is the slope f'(1)"),
    ("x^2", "x=1", "y = x^2", "not a line"),
    ("x^2", "x=1", "x = 1", "a vertical line"),
])
def test_the_usual_mistakes_are_named(function: str, at: str, answer: str, said: str) -> None:
    v = judged(function, answer, at)
    assert v.verdict == "incorrect" and said in (v.feedback or "")


def test_a_wrong_line_without_a_usual_mistake_has_no_feedback() -> None:
    v = judged("x^2", "y = 5x + 7")
    assert v.verdict == "incorrect" and v.feedback is None


@pytest.mark.parametrize("function, at, said", [
    ("x^2 + y", "x=1", "the function's one input is x"),
    ("sqrt(x)", "x=0", "no tangent line there"),
    ("x^2", "x=1, z=2", "give one input at one number"),
    ("y^2", "y=1", "name the input other than y"),
])
def test_a_point_without_a_tangent_is_refused(function: str, at: str, said: str) -> None:
    with pytest.raises(GradcalcError, match=said):
        judged(function, "y = 0", at)


def test_an_answer_with_another_name_is_an_input_error() -> None:
    with pytest.raises(GradcalcError, match="it may use x and y only"):
        judged("x^2", "y = 2t - 1")


def test_the_worked_solution_goes_from_f_a_to_the_slope_intercept_form() -> None:
    s = solve("x^3 - x", None, Kind.read(tangent="x=-1"), Settings())
    rules = [step.rule for _, _, step in s.steps]
    assert rules[0] == "evaluate" and rules[-3:] == ["evaluate", "point-slope",
                                                      "slope-intercept"]
    assert s.steps[0][2].after == "0" and s.steps[-2][2].after == "y = 2(x + 1)"
    assert s.answer == "y = 2x + 2" and s.kind == "tangent"


def test_a_hint_matches_the_same_line_written_another_way() -> None:
    from gradcalc.homework.kinds.tangent import hint_same

    assert hint_same(AT_1, "y - 1 = 1(x - 1)", "y = x", Settings())
    assert not hint_same(AT_1, "y = 2x - 1", "y = x", Settings())


def test_check_derive_and_the_receipt(invoke) -> None:
    r = invoke("check", "x^2", "--tangent", "x=1", "--answer", "y = 2x - 1", "--plain")
    assert r.code == 0 and r.out.startswith("correct (symbolic)")
    r = invoke("check", "x^2", "--tangent", "x=1", "--answer", "y = x", "--json")
    v = json.loads(r.out)
    assert r.code == 1 and v["receipt"]["kind"] == {"tangent": {"x": 1.0}}
    r = invoke("derive", "x^2", "--tangent", "x=3", "--plain")
    assert r.code == 0 and "point-slope" in r.out and r.out.splitlines()[-2] == "answer: y = 6x - 9"
    r = invoke("check", "x^2", "--tangent", "x=1", "--order", "2", "--answer", "y = 2x - 1")
    assert r.code == 2 and "--order" in r.err


def test_grade_batch_replay_and_sheets(invoke, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "key.csv").write_text("problem,function,params,tangent,hints\n"
                                      "p1,a x^2,a = 2..5,x=1,y = a x -> go through (1; f(1))\n"
                                      "p2,x^3 - x,,x=-1,\n")
    (tmp_path / "week.csv").write_text("student,problem,answer\nana,p1,y = 2x\n"
                                       "ana,p2,y = 2x + 2\n")
    r = invoke("grade", "--key", "key.csv", "week.csv", "--json")
    rows = [json.loads(line) for line in r.out.splitlines()]
    assert [row.get("verdict") for row in rows if "problem" in row] == ["incorrect",
                                                                        "correct"]
    a = rows[0]["params"]["a"]
    assert rows[0]["expected"] == f"y = {2 * a}x - {a}"
    (tmp_path / "v.jsonl").write_text(r.out)
    assert "2 the same, 0 differ" in invoke("replay", "v.jsonl", "--plain").err
    r = invoke("sheets", "--key", "key.csv", "--student", "ana", "--plain")
    assert "Find the tangent line to the graph of f at x = -1." in r.out
    line = json.dumps({"command": "check", "program": "x^2", "answer": "y = 2x - 1",
                       "tangent": "x=1"})
    (tmp_path / "jobs.jsonl").write_text(line + "\n")
    assert json.loads(invoke("batch", "jobs.jsonl").out)["verdict"] == "correct"
