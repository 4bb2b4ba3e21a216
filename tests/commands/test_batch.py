"""gradcalc batch: JSON lines in, JSON lines out, in order; a bad line answers with an error."""

from __future__ import annotations

import json

import pytest

from gradcalc.commands import batch
from gradcalc.render.as_json import answer_json

from conftest import run_cli


def answers(*lines, check=False):
    tally = batch.Tally()
    raw = [line if isinstance(line, (str, bytes)) else json.dumps(line) for line in lines]
    return [answer_json(a) for a in batch.run(raw, tally, check=check)], tally


def test_good_lines_answer_in_order_with_their_line_numbers():
    out, tally = answers(
        {"command": "grad", "program": "y = 2*x**2", "at": "x=[1,1,1]",
         "weights": [0.1, 1.0, 0.001]},
        "",
        {"command": "jacobian", "program": "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]",
         "at": {"m": [2, 4]}},
        {"command": "hessian", "program": "y = x[0]**2 * x[1]", "at": ["x=[1,2]"]},
    )
    assert [o["line"] for o in out] == [1, 3, 4]
    assert out[0]["gradient"] == {"x": [0.4, 4.0, 0.004]}
    assert out[0]["weights"] == [0.1, 1.0, 0.001]
    assert out[1]["jacobian"] == {"m": [[4.0, 3.0], [2.0, 8.0]]}
    assert out[2]["hessian"] == {"x": [[4.0, 2.0], [2.0, 0.0]]}
    assert tally.exit_code == 0 and tally.jobs == 3


@pytest.mark.parametrize("wrt", ["a,c", ["a", "c"]])
def test_fields_wrt_of_id(wrt):
    (out,), _ = answers({"command": "grad", "program": "y = (a+b)*(b+c); z = y*2",
                         "at": "a=1, b=2, c=3", "wrt": wrt, "of": "y", "id": {"n": 7}})
    assert out["gradient"] == {"a": 5.0, "c": 3.0}
    assert out["output"]["name"] == "y" and out["id"] == {"n": 7}


def test_check_runs_by_default_and_can_be_turned_off_per_line():
    out, _ = answers({"command": "grad", "program": "y = sin(x)", "at": "x=1"},
                     {"command": "grad", "program": "y = sin(x)", "at": "x=1", "check": False},
                     check=True)
    assert out[0]["check"]["status"] == "pass" and out[0]["check"]["method"] == "symbolic"
    assert out[1]["check"]["status"] == "skipped"


BAD = [
    ("not json", "usage", "invalid JSON"),
    ('["a list"]', "usage", "a JSON object, not an array"),
    ({"program": "y = x", "at": "x=1"}, "usage", 'no "command"'),
    ({"command": "integrate", "program": "y = x"}, "usage", "unknown command 'integrate'"),
    ({"command": "check", "program": "x**2"}, "usage", 'a check job has "program"'),
    ({"command": "check", "program": "x**2", "answer": "2*x", "weights": [1]}, "usage",
     "unknown field 'weights'"),
    ({"command": "grad", "at": "x=1"}, "usage", 'no "program"'),
    ({"command": "grad", "program": "y = x", "at": "x=1", "colour": 1}, "usage",
     "unknown field 'colour'"),
    ({"command": "grad", "program": "y = x", "at": 5}, "usage", '"at" is a text'),
    ({"command": "grad", "program": "y = x", "at": "x=1", "check": "yes"}, "usage",
     '"check" is true or false'),
    ({"command": "grad", "program": "y = x", "at": "x=1", "max_iterations": 0}, "usage",
     '"max_iterations"'),
    ({"command": "grad", "program": "y = x +", "at": "x=1"}, "parse", "syntax error"),
    ({"command": "grad", "program": "y = 2*x", "at": "x=[1,2]"}, "shape", "needs weights"),
    ({"command": "grad", "program": "y = z", "at": "x=1"}, "eval", "name 'z'"),
    ({"command": "grad", "program": "y = x", "at": "x=[1,"}, "value", "--at"),
    (b"\xff\xfe{}", "usage", "not UTF-8"),
]


@pytest.mark.parametrize("line,kind,message", BAD, ids=[str(b[0])[:40] for b in BAD])
def test_a_bad_line_is_answered_with_an_error_and_the_batch_goes_on(line, kind, message):
    good = {"command": "grad", "program": "y = x**2", "at": "x=3"}
    out, tally = answers(good, line, good)
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["gradient"] == {"x": 6.0} and out[2]["gradient"] == {"x": 6.0}
    assert set(out[1]) == {"line", "error"}
    assert out[1]["error"]["kind"] == kind
    assert message in out[1]["error"]["message"]
    assert tally.exit_code == 2 and tally.errors == 1


def test_an_id_is_echoed_on_an_error_too():
    (out,), _ = answers({"command": "grad", "program": "y = (", "id": "q1"})
    assert out["id"] == "q1" and "error" in out


def test_exit_code_1_when_a_check_or_expect_fails_and_2_when_a_line_errs():
    fail = {"command": "grad", "program": "y = x**2", "at": "x=3", "expect": "x=7"}
    _, tally = answers(fail)
    assert tally.exit_code == 1
    _, tally = answers(fail, "{")
    assert tally.exit_code == 2


def test_cli_batch_from_a_file_and_from_stdin(tmp_path):
    lines = [json.dumps({"command": "grad", "program": "y = x**3", "at": f"x={i}"})
             for i in range(1, 4)]
    path = tmp_path / "jobs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = run_cli("batch", str(path))
    assert run.code == 0, run.err
    got = [json.loads(line) for line in run.out.splitlines()]
    assert [g["gradient"]["x"] for g in got] == [3.0, 12.0, 27.0]
    assert all(g["check"]["status"] == "pass" for g in got)
    run = run_cli("batch", "--no-check", stdin="\n".join(lines + ["oops"]) + "\n")
    got = [json.loads(line) for line in run.out.splitlines()]
    assert run.code == 2 and len(got) == 4 and got[3]["error"]["kind"] == "usage"
    assert got[0]["check"]["status"] == "skipped"


def test_cli_batch_missing_file_is_a_usage_error(tmp_path):
    run = run_cli("batch", str(tmp_path / "none.jsonl"))
    assert run.code == 2 and run.err.startswith("error: cannot read batch file")
    assert json.loads(run.out)["error"]["kind"] == "usage"
