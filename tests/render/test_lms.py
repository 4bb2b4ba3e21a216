"""Grades out: the gradebook CSV in Canvas's import layout (Moodle reads it too) and
Gradescope's autograder results.json, each checked against its documented format; and
output files written whole or not at all."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from gradescope_results import check_results_json

from gradcalc import __version__
from gradcalc.render.lms import CANVAS_COLUMNS

KEY = "problem,function,points\np1,x^2 sin(x),2\np2,sin(3x),1\np3,x^2 y,1.5\n"
SUBMISSIONS = """student,problem,answer,section
ana,p1,2x sin(x) + x^2 cos(x),A
ana,p2,cos(3x),A
ana,p2,3cos(3x),A
ben,p1,2x cos(x),B
ben,p3,"[2x y, x^2]",B
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text(SUBMISSIONS)
    return tmp_path


def test_grades_csv_has_canvas_columns_a_column_per_problem_and_a_total(invoke, files):
    out = files / "grades.csv"
    r = invoke("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"),
               "--grades", str(out), "--json")
    assert r.code == 1
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == [*CANVAS_COLUMNS, "p1", "p2", "p3", "Total"]
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[1] == ["Points Possible", "", "", "", "", "2", "1", "1.5", "4.5"]
    # a resubmission replaces the earlier answer; a problem not answered scores 0
    assert rows[2] == ["ana", "", "ana", "", "A", "2", "1", "0", "3"]
    assert rows[3] == ["ben", "", "ben", "", "B", "0", "0", "1.5", "1.5"]
    assert len(rows) == 4
    for row in rows[1:]:  # every score is a number, and the total is their sum
        scores = [float(x) for x in row[5:]]
        assert scores[-1] == pytest.approx(sum(scores[:-1]))


def test_gradescope_results_json_follows_the_autograder_format(invoke, files):
    subs = files / "one.csv"
    subs.write_text("student,problem,answer\nana,p1,2x sin(x) + x^2 cos(x)\n"
                    "ana,p2,cos(3x)\n")
    out = files / "results.json"
    r = invoke("grade", "--key", str(files / "key.csv"), str(subs),
               "--gradescope", str(out), "--plain")
    assert r.code == 1
    data = json.loads(out.read_text())
    check_results_json(data)
    assert [t["name"] for t in data["tests"]] == ["p1", "p2", "p3"]  # one test per problem
    assert [t["number"] for t in data["tests"]] == ["1", "2", "3"]
    assert data["tests"][1]["tags"] == ["derivative", "chain-inner-factor"]
    assert data["extra_data"] == {"gradcalc": __version__, "student": "ana",
                                  "answers": "never"}
    assert data["score"] == sum(t["score"] for t in data["tests"]) == 2.0
    assert data["max_score"] == 4.5
    p2 = data["tests"][1]
    assert p2["status"] == "failed" and "the chain rule's inner factor 3 is missing" in p2["output"]
    assert "expected" not in p2["output"]  # by default a student is not shown the answer
    assert data["tests"][2]["output"] == "no answer submitted"


def test_gradescope_is_for_one_student(invoke, files):
    out = files / "results.json"
    r = invoke("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"),
               "--gradescope", str(out))
    assert r.code == 2 and "one student's results.json" in r.err and "2 students" in r.err
    assert not out.exists() and r.out == ""


def test_an_output_in_a_missing_folder_is_refused_before_any_row(invoke, files):
    r = invoke("grade", "--key", str(files / "key.csv"), str(files / "subs.csv"),
               "--grades", str(files / "no" / "grades.csv"), "--json")
    assert r.code == 2 and "does not exist" in r.err
    assert '"verdict"' not in r.out  # nothing was judged


def test_files_are_written_all_or_none(tmp_path, monkeypatch):
    from gradcalc.errors import GradcalcError
    from gradcalc.render import files

    old = tmp_path / "a.csv"
    old.write_text("before\n")
    real = os.replace
    calls = []

    def failing(src, dst):
        calls.append(dst)
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(GradcalcError):
        files.write_all({str(old): "after\n", str(tmp_path / "b.html"): "<p>\n"})
    monkeypatch.setattr(files.os, "replace", real)
    assert old.read_text() == "before\n" and not (tmp_path / "b.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]  # no temporary left
    files.write_all({str(old): "after\n"})
    assert old.read_text() == "after\n"
    assert calls
