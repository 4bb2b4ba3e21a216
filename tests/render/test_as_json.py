"""Rendering: numbers as text in one place, JSON, plain rows, the terminal table, and the
--points writers; every view shows the same numbers."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from gradcalc.commands import one_point
from gradcalc.commands import points as points_command
from gradcalc.commands.batch import Answer
from gradcalc.commands.jobs import Job
from gradcalc.render import numbers, plain, terminal
from gradcalc.render import point_rows as points
from gradcalc.render.as_json import answer_json, check_json, error_json, to_json
from gradcalc.render.digits import Numbers
from gradcalc.verify.result import CheckResult, skipped_check

SPECIAL = [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")]


@pytest.mark.parametrize("value, word", SPECIAL)
def test_nan_and_inf_are_the_same_words_everywhere(value, word):
    assert numbers.nonfinite(value) == word
    assert numbers.number(value) == word
    assert numbers.exact(value) == word
    assert numbers.jsonable(value) == word
    assert numbers.jsonable(np.array([value, 1.0])) == [word, 1.0]
    assert numbers.rows(np.array([[value, 2.0]])) == [f"{word} 2"]
    assert numbers.literal(np.array([value])) == f"[{word}]"
    assert check_json(CheckResult("pass", "symbolic", value, None))["max_abs_error"] == word


@pytest.mark.parametrize("value, text", [(2.0, "2"), (-0.0, "-0"), (0.0, "0"), (0.1, "0.1"),
                                         (1e16, "1e+16"), (1 / 3, repr(1 / 3)),
                                         (-2.5, "-2.5")])
def test_numbers_read_back_exactly(value, text):
    assert numbers.number(value) == text
    assert float(numbers.number(value)) == value
    assert math.copysign(1, float(numbers.number(value))) == math.copysign(1, value)
    assert float(numbers.exact(value)) == value


def test_arrays_as_rows_and_literals():
    a = np.arange(6.0).reshape(2, 3)
    assert numbers.rows(a) == ["0 1 2", "3 4 5"]
    assert numbers.rows(np.float64(7)) == ["7"]
    assert numbers.rows(np.zeros((0, 3))) == []
    assert numbers.literal(a) == "[[0, 1, 2], [3, 4, 5]]"
    assert numbers.jsonable((np.float64(1.5), [2.0])) == [1.5, [2.0]]


@pytest.fixture(scope="module")
def result():
    return one_point.run(Job(command="jacobian", program="y = [x[0]*x[1], log(x[0])]",
                               at=["x=[0, 3]"], check=False))


def test_json_is_one_object_with_every_part(result):
    data = json.loads(json.dumps(to_json(result)))
    assert data["command"] == "jacobian" and data["weights"] is None
    assert data["output"] == {"name": "y", "shape": [2], "value": [0.0, "-inf"]}
    # row 0 meets log's 0/0 at x[0] = 0 in the sweep: nan, as in PyTorch
    assert data["jacobian"] == {"x": [["nan", 0.0], ["inf", 0.0]]}
    assert data["check"] == {"status": "skipped", "method": "none", "max_abs_error": None,
                             "detail": "check disabled with --no-check"}
    assert len(data["warnings"]) == 2
    assert error_json("usage", "no") == {"error": {"kind": "usage", "message": "no"}}


def test_batch_answers_carry_their_line_and_id(result):
    assert answer_json(Answer(3, {"id": "a"}, error=("parse", "bad"))) == {
        "line": 3, "id": "a", "error": {"kind": "parse", "message": "bad"}}
    ok = answer_json(Answer(4, {}, result=result))
    assert ok["line"] == 4 and ok["jacobian"] == to_json(result)["jacobian"]


def test_plain_is_numbers_only_and_notes_go_apart(result):
    assert plain.plain(result).splitlines() == ["nan 0", "inf 0"]
    assert plain.notes(result) == [f"note: {n}" for n in result.notes] + [
        f"warning: {w}" for w in result.warnings]
    failed = one_point.Result("grad", "y", np.float64(1), {}, None, {"x": np.float64(2)},
                                CheckResult("fail", "symbolic", 1.0, None))
    assert plain.notes(failed) == ["check: fail: the derivatives differ"]


def test_the_terminal_table_shows_the_same_numbers(result):
    from rich.console import Console

    out = io.StringIO()
    terminal.show(result, Console(file=out, width=100, color_system=None))
    text = out.getvalue()
    assert "y = [0, -inf]" in text and "x = [0, 3]" in text
    assert "∂y/∂x" in text and "inf" in text
    assert "– skipped: check disabled with --no-check" in text
    assert text.count("warning") == 2


def test_labels_name_what_each_block_is(result):
    grad = one_point.Result("grad", "f", np.float64(1), {}, np.ones(2), {}, skipped_check())
    hess = one_point.Result("hessian", "f", np.float64(1), {}, None, {}, skipped_check())
    assert terminal.derivative_label(result, "x") == "∂y/∂x"
    assert terminal.derivative_label(grad, "x") == "wᵀ·∂f/∂x"
    assert terminal.derivative_label(hess, "a,b") == "∂²f/∂a∂b"
    assert terminal.derivative_label(hess, "a") == "∂²f/∂a∂a"


def test_a_large_array_is_summarised_on_a_terminal():
    big = np.arange(1000.0)
    text = terminal._inline(big, Numbers())
    assert "1,000 entries; --json or --plain prints them all" in text
    assert text.count("\n") < 5


def test_points_writers_agree_with_each_other():
    table = points_command.read_table(io.StringIO("x,y\n1,2\n0,-1\n"))
    res = points_command.run(Job(command="grad", program="z = x*y + log(x)", check=False),
                             table)
    csv_rows = "".join(points.csv_lines(res)).splitlines()
    assert csv_rows == ["x,y,z,dz/dx,dz/dy", "1,2,2,3,1", "0,-1,-inf,inf,0"]
    plain_rows = "".join(points.csv_lines(res, header_row=False, sep=" ")).splitlines()
    assert plain_rows == ["3 1", "inf 0"]
    objs = [json.loads(line) for line in "".join(points.json_lines(res)).splitlines()]
    assert [o["gradient"] for o in objs] == [{"x": 3.0, "y": 1.0}, {"x": "inf", "y": 0.0}]
    assert points.check_note(res) == "check: skipped (--no-check)"
