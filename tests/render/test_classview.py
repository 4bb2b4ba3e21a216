"""A class's rows of a parametrised problem with the teacher's hints: the hint before
gradcalc's own feedback in every view (plain, the table, Gradescope's output), and in
JSON beside the variant's values; the fast JSON line is exactly the row's object."""

from __future__ import annotations

import json

import pytest

from gradcalc.grading import classfile, draws, params
from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
from gradcalc.homework.judge import Settings
from gradcalc.ingest.headers import parse_table
from gradcalc.render import classview
from gradcalc.render.classlines import json_line

SPEC = "a = 2..9; b = 2..5 except 3; a != b"
KEY = (f'problem,function,params,hints\n1,a*sin(b*x),{SPEC},'
       '"a*cos(b*x) -> what is the derivative of {b}x?"\n2,x^3,,\n')


def results(rows: str) -> list[classfile.Result]:
    key = key_from(parse_table(KEY.encode(), "key.csv", REQUIRED, OPTIONAL, "key"))
    table = parse_table(("student,problem,answer\n" + rows).encode(), "subs.csv",
                        classfile.SUBMISSIONS, (), "subs")
    return list(classfile.run(classfile.tasks(table, key, Settings())))


@pytest.fixture(scope="module")
def rows():
    a, b = (int(v) for _, v in draws.draw(params.read(SPEC, "k"), "", "ana", "1"))
    return a, b, results(f"ana,1,{a}cos({b}x)\nana,2,3x^2\nana,1,x\n")


def test_the_hint_comes_before_the_feedback_in_every_view(rows):
    from gradcalc.render.lms import gradescope

    a, b, (hinted, plain, other) = rows
    message = f"what is the derivative of {b}x?"
    line = classview.row_plain(hinted, True)
    assert f"incorrect: {message}; at sin({b}x): the chain rule's inner factor" in line
    assert classview.note(hinted).startswith(f"{message}; at sin({b}x)")
    assert classview.verdict_line(other).startswith("incorrect; expected")
    assert classview.verdict_line(plain).startswith("correct")
    from gradcalc.grading.gradebook import gradebook

    tests = gradescope([hinted, plain], gradebook([hinted, plain], None))["tests"]
    assert tests[0]["output"].startswith(f"incorrect: {message}; ")


def test_json_names_the_variant_and_the_hint(rows):
    a, b, (hinted, plain, other) = rows
    obj = classview.row_json(hinted, True)
    assert obj["params"] == {"a": a, "b": b}
    assert obj["hint"] == {"on": f"{a}*cos({b}*x)", "message":
                           f"what is the derivative of {b}x?"}
    assert obj["receipt"]["function"] == f"{a}*sin({b}*x)"
    assert obj["receipt"]["variant"]["params"] == {"a": a, "b": b}
    assert obj["receipt"]["hints"] == [{"on": f"{a}*cos({b}*x)", "message":
                                        f"what is the derivative of {b}x?", "rule": False}]
    assert "hint" not in classview.row_json(other, True)
    assert "params" not in classview.row_json(plain, True)
    assert "variant" not in classview.row_json(plain, True)["receipt"]


def test_the_fast_json_line_is_the_rows_object(rows):
    for r in rows[2]:
        assert json_line(r, True) == json.dumps(classview.row_json(r, True)) + "\n"


def test_the_summary_counts_students_not_rows(rows):
    _, _, found = rows
    summary = classfile.Summary()
    for r in found:
        summary.add(r)
    students = len({r.task.student for r in found})
    line = classview.summary_line(summary, students)
    assert line.startswith("1 student, 3 rows: ")
    assert classview.summary_line(summary, 2).startswith("2 students, 3 rows: ")
