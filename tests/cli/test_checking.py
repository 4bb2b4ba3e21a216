"""`gradcalc check` through the command line: verdicts and exit codes, JSON (SPEC §3), a
class file, batch check jobs, and bad or hostile text refused with nothing run."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli


def test_correct_is_exit_0(invoke):
    r = invoke("check", "x^2 sin(x)", "--answer", "2x sin(x) + x^2 cos(x)")
    assert r.code == 0 and "correct" in r.out


def test_incorrect_is_exit_1_with_counterexample_and_feedback(invoke):
    r = invoke("check", "sin(3x)", "--answer", "cos(3x)")
    assert r.code == 1
    for fragment in ("incorrect", "at", "x = ", "chain rule", "3cos(3x)", "read as",
                     "f'(x) = cos(3x)"):
        assert fragment in r.out


def test_json_has_the_verdict_the_method_and_the_points(invoke):
    r = invoke("check", "sin(3x)", "--answer", "cos(3x)", "--json")
    out = json.loads(r.out)
    assert r.code == 1
    assert {"command", "verdict", "method", "expected", "counterexample", "feedback",
            "points"} <= set(out)
    assert out["command"] == "check" and out["verdict"] == "incorrect"
    assert out["method"] == "numeric" and out["expected"] == "3cos(3x)"
    assert set(out["counterexample"]) == {"at", "expected", "answer"}
    r = invoke("check", "x^2 y", "--answer", "[2x y, x^2]", "--json")
    out = json.loads(r.out)
    assert (r.code, out["verdict"], out["kind"], out["wrt"]) == (0, "correct", "gradient",
                                                                  ["x", "y"])
    assert out["counterexample"] is None and out["feedback"] is None


def test_undetermined_is_exit_1_with_a_reason(invoke):
    r = invoke("check", "sqrt(-1 - x^2)", "--answer", "0", "--plain")
    assert r.code == 1 and r.out.startswith("undetermined: no point found")


def test_options_wrt_tolerances_seed_samples(invoke):
    assert invoke("check", "x^2 y", "--answer", "2x y", "--wrt", "x").code == 0
    assert invoke("check", "x^2 y", "--answer", "[x^2, 2x y]", "--wrt", "y,x").code == 0
    assert invoke("check", "pi x", "--answer", "3.1416").code == 1
    assert invoke("check", "pi x", "--answer", "3.1416", "--rtol", "1e-3").code == 0
    one = json.loads(invoke("check", "x^2", "--answer", "2x", "--json", "--seed", "3",
                            "--samples", "3", "--prove").out)
    assert one["verdict"] == "correct"


@pytest.mark.parametrize("args,fragment", [
    (["x^2", "--answer", "2x +"], "the answer: cannot read the formula"),
    (["x^2", "--answer", "__import__('os').system('echo pwned')"], "the answer"),
    (["x^2", "--answer", "x.real"], "attribute access"),
    (["x^2", "--answer", "(lambda: 1)()"], "lambda"),
    (["x^2", "--answer", "'2x'"], "string literal"),
    (["x^2", "--answer", "2x\u202e"], "bidirectional"),
    (["x^2", "--answer", "xy"], "the answer uses 'xy'"),
    (["open('f')", "--answer", "0"], "not a function gradcalc knows"),
    (["x^2"], "check needs FUNCTION and --answer"),
    (["x^2", "--answer", "2x", "--key", "k.csv"], "--key is an option of gradcalc grade"),
    (["x^2", "--answer", "2" + "0" * 40], "more than 30 digits"),
])
def test_bad_and_hostile_text_is_exit_2_with_nothing_run(invoke, args, fragment):
    r = invoke("check", *args)
    assert r.code == 2
    assert r.err.startswith("error: ") and fragment in r.err
    assert r.out == "" and "pwned" not in r.out + r.err


CLASS = """id,function,answer,wrt
ana,x^2 sin(x),2x sin(x) + x^2 cos(x),
ben,sin(3x),cos(3x),
cy,x^2 y,"[2x y, x^2]",
dee,x^2 y,2x y,x
eve,e^(2x),2e^(2x
fay,ln(x),1/x
"""


def test_a_class_file_one_json_line_per_row(invoke, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(CLASS)
    r = invoke("grade", str(path), "--json")
    *lines, summary = [json.loads(line) for line in r.out.splitlines()]
    assert r.code == 1
    assert summary["summary"]["rows"] == 6 and summary["summary"]["unreadable"] == 1
    assert [line["id"] for line in lines] == ["ana", "ben", "cy", "dee", "eve", "fay"]
    assert [line.get("verdict") for line in lines] == ["correct", "incorrect", "correct",
                                                        "correct", None, "correct"]
    assert lines[4]["error"]["kind"] == "parse" and "never closed" in lines[4]["error"]["message"]
    assert lines[1]["feedback"] == "at sin(3x): the chain rule's inner factor 3 is missing"


def test_a_class_file_as_a_table_with_a_summary(invoke, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(CLASS)
    r = invoke("grade", str(path))
    assert r.code == 1
    assert "6 rows: 4 correct, 1 incorrect, 0 undetermined, 1 unreadable" in r.out
    for column in ("student", "function", "answer", "verdict", "score", "feedback"):
        assert column in r.out.splitlines()[0]
    for ident in ("ana", "ben", "eve"):
        assert ident in r.out


def test_a_class_all_correct_is_exit_0(invoke, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("id,function,answer\n1,x^2,2x\n2,sin(x),cos(x)\n")
    r = invoke("grade", str(path), "--plain")
    assert r.code == 0 and r.out.splitlines() == [
        "1\tx^2\t2x\t1/1\tcorrect (symbolic); read as f(x) = x^2 and f'(x) = 2x",
        "2\tsin(x)\tcos(x)\t1/1\tcorrect (symbolic); read as f(x) = sin(x) and f'(x) = cos(x)"]


@pytest.mark.parametrize("text,fragment", [
    ("", "is empty"),
    ("name,function\n1,x\n", "no column for the answer"),
    ("id,function,answer\n1,x,1,extra\n", None),
])
def test_a_bad_class_file(invoke, tmp_path, text, fragment):
    path = tmp_path / "answers.csv"
    path.write_text(text)
    r = invoke("grade", str(path), "--json")
    if fragment is None:  # a bad row: reported in its place
        assert r.code == 1 and "error" in json.loads(r.out.splitlines()[0])
    else:
        assert r.code == 2 and fragment in r.err


def test_batch_runs_check_jobs(invoke, tmp_path):
    path = tmp_path / "jobs.jsonl"
    path.write_text("\n".join(json.dumps(j) for j in [
        {"command": "check", "program": "x^2", "answer": "2x", "id": "a"},
        {"command": "check", "program": "x^2", "answer": "x", "id": "b"},
        {"command": "check", "program": "x^2 y", "answer": "2x y", "wrt": "x"},
        {"command": "grad", "program": "y = x^2", "at": "x=3"},
    ]) + "\n")
    r = invoke("batch", str(path))
    out = [json.loads(line) for line in r.out.splitlines()]
    assert r.code == 1
    assert [o.get("verdict") for o in out[:3]] == ["correct", "incorrect", "correct"]
    assert out[0]["id"] == "a" and out[3]["gradient"] == {"x": 6.0}


def test_the_installed_script_checks():
    r = run_cli("check", "e^(2x)", "--answer", "2e^(2x)")
    assert r.code == 0, r.err


def test_piped_readable_verdicts_have_no_trailing_spaces(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(CLASS)
    for args in (("check", "sin(3x)", "--answer", "cos(3x)"), ("grade", str(path))):
        r = run_cli(*args)
        assert r.out and all(line == line.rstrip() for line in r.out.splitlines()), args
