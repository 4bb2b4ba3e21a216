"""An answer key's kind columns (gradcalc.homework.kinds.columns): each problem judged as what
it asks for, partial credit in the grades, the kind in the receipts for --replay, and a
bad cell named by its line and column."""

from __future__ import annotations

import csv
import json

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
from gradcalc.homework.kinds.columns import kind_of
from gradcalc.homework.kinds.registry import PLAIN, Kind
from gradcalc.ingest.headers import parse_table

KEY = """problem,function,wrt,order,partial,kind,implicit,constant,shape,at,points
d2,x^4,,2,,,,,,,2
mixed,x^2 y^3,,,x;y,,,,,,1
anti,cos(x),x,,,antiderivative,,required,,,1
circle,x^2 + y^2 = 25,,,,implicit,,,,,1
value,x^2 y,x;y,,,,,,,x=2; y=1,2
tensor,sum(W @ x),W,,,,,,W=3x2; x=2,,2
"""
SUBMISSIONS = """student,problem,answer
ana,d2,12x^2
ana,mixed,6 x y^2
ana,anti,sin(x) + C
ana,circle,-x/y
ana,value,"[4, 4]"
ana,tensor,"outer(ones(3), x)"
ben,d2,4x^3
ben,mixed,6 x^2 y
ben,anti,sin(x)
ben,circle,x/y
ben,value,"[4, 5]"
ben,tensor,"outer(x, ones(3))"
"""


def key_of(text: str):
    return key_from(parse_table(text.encode(), "key.csv", REQUIRED, OPTIONAL, "key"))


def test_each_column_is_read_into_the_problems_kind():
    key = key_of(KEY)
    assert key.find("d2").kind == Kind(order=2)
    assert key.find("mixed").kind == Kind(partial=("x", "y"))
    assert key.find("anti").kind == Kind(antiderivative=True, constant="required")
    assert key.find("circle").kind == Kind(implicit="y")
    assert key.find("value").kind == Kind(at=(("x", 2.0), ("y", 1.0)))
    assert key.find("tensor").kind == Kind(shape=(("W", (3, 2)), ("x", (2,))))


def test_an_implicit_column_alone_names_the_dependent_variable():
    assert kind_of({"implicit": "u"}, "k") == Kind(implicit="u")
    assert kind_of({"kind": "Implicit"}, "k") == Kind(implicit="y")
    assert kind_of({}, "k") is PLAIN and kind_of({"kind": "derivative"}, "k") == PLAIN


@pytest.fixture
def judged(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text(SUBMISSIONS)
    grades = tmp_path / "grades.csv"
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--json", "--grades", str(grades))
    rows = [json.loads(x) for x in r.out.splitlines()]
    return r, rows[:-1], list(csv.reader(grades.open())), tmp_path


def test_an_integers_column_draws_tensor_inputs_as_whole_numbers():
    kind = kind_of({"shape": "W=3x2; x=2", "integers": "yes"}, "k")
    assert kind == Kind(shape=(("W", (3, 2)), ("x", (2,))), integers=True)
    assert kind_of({"shape": "W=3x2", "integers": "false"}, "k").integers is False
    for cells, fragment in (({"integers": "true"}, "go with tensor inputs"),
                            ({"shape": "W=3x2", "integers": "maybe"}, "give true or false")):
        with pytest.raises(GradcalcError) as err:
            kind_of(cells, "key.csv line 2")
        assert "key.csv line 2, column integers" in err.value.message
        assert fragment in err.value.message


def test_every_row_is_judged_as_its_problem_asks(judged):
    r, rows, _, _ = judged
    assert r.code == 1  # ben has wrong answers
    verdicts = {(x["id"], x["problem"]): x["verdict"] for x in rows}
    assert all(verdicts[("ana", p)] == "correct" for p in
               ("d2", "mixed", "anti", "circle", "value", "tensor"))
    assert all(verdicts[("ben", p)] == "incorrect" for p in
               ("d2", "anti", "circle", "value", "tensor"))
    ben = {x["problem"]: x for x in rows if x["id"] == "ben"}
    assert "second derivative" in ben["d2"]["feedback"]
    assert "+ C" in ben["anti"]["feedback"]
    assert "sign" in ben["circle"]["feedback"]
    assert ben["value"]["score"] == 1.0 and ben["value"]["max_score"] == 2.0  # half right


def test_the_grades_carry_the_partial_credit(judged):
    _, _, grades, _ = judged
    header, possible, *students = grades
    by = {row[0]: dict(zip(header, row, strict=True)) for row in students}
    assert dict(zip(header, possible, strict=True))["Total"] == "9"
    assert by["ana"]["Total"] == "9" and by["ana"]["d2"] == "2"
    assert by["ben"]["value"] == "1" and by["ben"]["d2"] == "0"


def test_receipts_carry_the_kind_and_replay_judges_it_again(invoke, judged):
    r, rows, _, tmp_path = judged
    kinds = {x["problem"]: x["receipt"].get("kind") for x in rows if x["id"] == "ana"}
    assert kinds["d2"] == {"order": 2} and kinds["circle"] == {"implicit": "y"}
    assert kinds["anti"] == {"antiderivative": True, "constant": "required"}
    assert kinds["tensor"] == {"shape": {"W": [3, 2], "x": [2]}}
    saved = tmp_path / "verdicts.jsonl"
    saved.write_text(r.out)
    again = invoke("replay", str(saved), "--plain")
    assert again.code == 0, again.out + again.err
    # without its kind, the second derivative's receipt is judged as a first derivative
    edited = [json.loads(x) for x in r.out.splitlines()]
    del edited[0]["receipt"]["kind"]
    saved.write_text("\n".join(json.dumps(x) for x in edited) + "\n")
    again = invoke("replay", str(saved), "--plain")
    assert again.code == 1 and "verdict: recorded \"correct\", now \"incorrect\"" in again.out


@pytest.mark.parametrize("column,cell,fragment", [
    ("order", "two", "column order: 'two': give a whole number from 1 to 10"),
    ("order", "11", "column order: '11'"),
    ("partial", "x;;y", "column partial: partial 'x,,y': give names separated by commas"),
    ("kind", "integral", "column kind: 'integral' is not a kind of problem"),
    ("implicit", "1y", "column implicit"),
    ("constant", "maybe", "column constant: the + C rule goes with kind antiderivative"),
    ("shape", "W=3by2", "column shape: shape 'W=3by2': dimensions are whole numbers"),
    ("at", "x=", "column at: at"),
])
def test_a_bad_cell_names_its_line_and_column(column, cell, fragment):
    text = f"problem,function,{column}\np1,x^2,\np2,x^3,\"{cell}\"\n"
    with pytest.raises(GradcalcError) as e:
        key_of(text)
    assert e.value.message.startswith("key.csv, line 3, column ") or \
        e.value.message.startswith("key.csv, line 3:"), e.value.message
    assert fragment in e.value.message and "--" not in e.value.message
    assert e.value.kind == "usage"


def test_a_bad_constant_with_the_antiderivative_kind_is_named():
    with pytest.raises(GradcalcError) as e:
        key_of("problem,function,kind,constant\np1,cos(x),antiderivative,maybe\n")
    assert e.value.message.startswith("key.csv, line 2, column constant: constant 'maybe'")
    assert "--" not in e.value.message


def test_columns_of_different_kinds_are_refused_in_a_teachers_terms():
    with pytest.raises(GradcalcError) as e:
        key_of("problem,function,order,partial\np1,x y,2,x;y\n")
    assert e.value.message == ("key.csv, line 2: partial names every differentiation; it "
                               "goes without order")
    with pytest.raises(GradcalcError) as e:
        key_of("problem,function,kind,order\np1,cos(x),antiderivative,2\n")
    assert "line 2, column order: an antiderivative problem takes no order" in e.value.message


def test_a_bad_key_cell_on_the_command_line_is_exit_2_and_writes_nothing(invoke, tmp_path):
    (tmp_path / "key.csv").write_text("problem,function,kind\np1,x^2,integral\n")
    (tmp_path / "subs.csv").write_text("student,problem,answer\nana,p1,2x\n")
    r = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
               "--grades", str(tmp_path / "g.csv"))
    assert r.code == 2 and "line 2, column kind" in r.err and "Traceback" not in r.err
    assert not (tmp_path / "g.csv").exists()


def test_one_check_of_a_kind_is_replayed_with_its_kind(invoke, tmp_path):
    r = invoke("check", "x^3", "--answer", "6x", "--order", "2", "--json")
    assert json.loads(r.out)["receipt"]["kind"] == {"order": 2}
    (tmp_path / "one.jsonl").write_text(r.out)
    again = invoke("replay", str(tmp_path / "one.jsonl"), "--plain")
    assert again.code == 0 and "1 the same, 0 differ" in again.out + again.err
