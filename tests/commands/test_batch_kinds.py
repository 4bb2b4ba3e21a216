"""gradcalc batch: check jobs of every kind, with a key's kind columns as fields."""

from __future__ import annotations

import json

import pytest

from gradcalc.commands import batch
from gradcalc.render.as_json import answer_json


def one(job):
    tally = batch.Tally()
    (out,) = [answer_json(a) for a in batch.run([json.dumps(job)], tally)]
    return out, tally


def check(program, answer, **fields):
    return one({"command": "check", "program": program, "answer": answer, **fields})[0]


@pytest.mark.parametrize("program,answer,fields,kind", [
    ("x^4", "12x^2", {"order": 2}, "higher derivative"),
    ("x^4", "12x^2", {"order": "2"}, "higher derivative"),
    ("x^2 y^3", "6x y^2", {"partial": "x,y"}, "partial"),
    ("x^2 y^3", "6x y^2", {"partial": ["x", "y"]}, "partial"),
    ("x^3", "12", {"at": "x=2"}, "derivative"),
    ("x^2 y", "[4, 1]", {"at": {"x": 1, "y": 2}, "wrt": "x,y"}, "gradient"),
    ("x^2 y", "[[4, 2], [2, 0]]", {"order": 2, "wrt": ["x", "y"], "at": ["x=1", "y=2"]},
     "hessian"),
    ("x^2 + y^2 = 25", "-x/y", {"kind": "implicit"}, "implicit"),
    ("u^2 + v^2 = 25", "-u/v", {"implicit": "v"}, "implicit"),
    ("x^3", "x^4/4 + C", {"kind": "antiderivative"}, "antiderivative"),
    ("L = sum((W@x - y)^2)", "2*outer(W@x - y, x)",
     {"wrt": "W", "shape": "W=3x2, x=2, y=3"}, "tensor"),
    ("L = sum((W@x - y)^2)", "2*outer(W@x - y, x)",
     {"wrt": "W", "shape": {"W": [3, 2], "x": 2, "y": "3"}, "integers": True}, "tensor"),
])
def test_each_kind_is_judged_as_its_fields_ask(program, answer, fields, kind):
    out = check(program, answer, **fields)
    assert out["verdict"] == "correct", out
    assert out["kind"] == kind


def test_wrong_answers_of_each_kind():
    assert check("x^4", "4x^3", order=2)["verdict"] == "incorrect"
    assert check("x^3", "13", at="x=2")["verdict"] == "incorrect"
    c = check("x^3", "x^4/4", kind="antiderivative", constant="required")
    assert c["verdict"] == "incorrect" and "constant of integration is missing" in c["feedback"]
    t = check("L = sum((W@x - y)^2)", "2*outer(x, W@x - y)", wrt="W",
              shape="W=3x2, x=2, y=3")
    assert t["misconception"] == {"rule": "transposed-product", "at": "W@x"}


def test_integers_draws_whole_numbers_and_the_receipt_keeps_the_kind():
    out = check("L = sum((W@x - y)^2)", "2*outer(W@x - y, x)", wrt="W",
                shape="W=3x2, x=2, y=3", integers=True)
    point = out["points"][0]
    assert all(v == int(v) for row in point["W"] for v in row)
    kind = json.loads(json.dumps(out["receipt"]["kind"]))
    assert kind == {"shape": {"W": [3, 2], "x": [2], "y": [3]}, "integers": True}


@pytest.mark.parametrize("fields,message", [
    ({"order": "two"}, "the check job, field order: 'two'"),
    ({"order": [2]}, '"order" is a whole number, not an array'),
    ({"order": True}, '"order" is a whole number, not true/false'),
    ({"kind": "integral"}, "field kind: 'integral' is not a kind of problem"),
    ({"constant": "required"}, "field constant: the + C rule goes with kind antiderivative"),
    ({"integers": True}, "field integers: whole-number draws go with tensor inputs"),
    ({"integers": "maybe"}, "field integers: 'maybe': give true or false"),
    ({"shape": {"W": [3, True]}}, '"shape" gives each input its dimensions'),
    ({"at": 2}, '"at" is a text ("x=2, y=1") or an object'),
    ({"kind": "implicit", "partial": "x,y"}, "an implicit problem takes no partial"),
])
def test_a_bad_kind_field_is_a_usage_error_of_its_line(fields, message):
    out, tally = one({"command": "check", "program": "x^3", "answer": "3x^2", **fields})
    assert out["error"]["kind"] == "usage" and message in out["error"]["message"], out
    assert tally.exit_code == 2


@pytest.mark.parametrize("program,answer,fields,kind", [
    ("x^2 sin(3x)", "2x sin(3x) + x^2 cos(3x)", {}, "derivative"),
    ("x^3", "9x^2", {"order": 2}, "higher derivative"),
    ("x^2 + y^2 = 25", "-x/y", {"kind": "implicit"}, "implicit"),
    ("x^3", "x^4/4 + C", {"kind": "antiderivative"}, "antiderivative"),
])
def test_steps_true_adds_the_worked_solution_as_check_steps_gives_it(program, answer,
                                                                      fields, kind):
    from gradcalc.homework.answer import AnswerJob, run, worked
    from gradcalc.homework.kinds.columns import kind_of

    out = check(program, answer, steps=True, **fields)
    assert out["kind"] == kind and out["steps"], out
    job = AnswerJob(program, answer, kind=kind_of(
        {k: str(v) for k, v in fields.items()}, "test", part="field"))
    solution = worked(job, run(job)).as_json()
    assert (out["steps"], out["departs_at"]) == (solution["steps"], solution["departs_at"])
    assert "steps" not in check(program, answer, **fields)  # only when asked


def test_steps_mark_where_a_wrong_answer_left_the_path_and_must_be_true_or_false():
    out = check("x^3", "9x^2", order=2, steps=True)
    assert out["departs_at"]["said"] == "you wrote 3x^3 here; the power rule gives 3x^2"
    bad, tally = one({"command": "check", "program": "x^3", "answer": "3x^2", "steps": 1})
    assert bad["error"] == {"kind": "usage", "message": '"steps" is true or false'}
    assert tally.exit_code == 2
