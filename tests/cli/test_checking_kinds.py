"""`gradcalc check` with the kinds of problem through the command line: --order,
--partial, --at, --implicit, --antiderivative/--constant, --shape/--integers; JSON's
score, entries, misconception and branch; exit codes; bad settings as usage errors."""

from __future__ import annotations

import json

import pytest


def test_order_and_exit_codes(invoke):
    assert invoke("check", "x^4", "--order", "2", "--answer", "12x^2").code == 0
    r = invoke("check", "x^4", "--order", "2", "--answer", "4x^3", "--plain")
    assert r.code == 1 and "second derivative" in r.out


def test_hessian_json_has_entries_and_score(invoke):
    r = invoke("check", "x^2 y + y^3", "--wrt", "x,y", "--order", "2", "--answer",
               "[[2y, 2x], [2x, 6]]", "--json")
    out = json.loads(r.out)
    assert r.code == 1 and out["kind"] == "hessian" and out["score"] == 0.75
    assert [e["of"] for e in out["entries"]] == ["f_xx", "f_xy", "f_yx", "f_yy"]
    assert out["entries"][3] == {"index": [1, 1], "of": "f_yy", "verdict": "incorrect"}


def test_the_readable_view_marks_wrong_entries(invoke):
    r = invoke("check", "x^2 y", "--at", "x=2, y=1", "--answer", "[4, 5]")
    assert r.code == 1 and "✓ d/dx  ✗ d/dy  (1 of 2 right)" in r.out


def test_partial_and_at(invoke):
    assert invoke("check", "x^3 y^2", "--partial", "x,y", "--answer", "6x^2 y").code == 0
    assert invoke("check", "x^3", "--at", "x=2", "--answer", "12").code == 0
    assert invoke("check", "x^3", "--at", "x=2", "--answer", "11").code == 1


def test_misconception_in_json(invoke):
    r = invoke("check", "x^2 sin(x)", "--answer", "2x cos(x)", "--json")
    out = json.loads(r.out)
    assert out["misconception"] == {"rule": "product-of-derivatives", "at": "x^2·sin(x)"}
    assert out["score"] == 0.0 and out["entries"] is None


def test_implicit_with_the_branch(invoke):
    r = invoke("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer",
               "-x/sqrt(25 - x^2)", "--json")
    out = json.loads(r.out)
    assert r.code == 0 and out["branch"] == "upper branch" and out["kind"] == "implicit"
    assert invoke("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer", "x/y").code == 1


def test_antiderivative_and_the_constant(invoke):
    assert invoke("check", "x^3", "--antiderivative", "--answer", "x^4/4 + C").code == 0
    r = invoke("check", "x^3", "--antiderivative", "--answer", "x^4/4", "--constant",
               "required", "--plain")
    assert r.code == 1 and "add + C" in r.out


def test_tensors(invoke):
    args = ["L = sum((W@x - y)^2)", "--wrt", "W", "--shape", "W=3x2, x=2, y=3"]
    assert invoke("check", *args, "--answer", "2*outer(W@x - y, x)").code == 0
    r = invoke("check", *args, "--answer", "2*outer(x, W@x - y)", "--json")
    out = json.loads(r.out)
    assert r.code == 1 and "transposed" in out["feedback"] and out["kind"] == "tensor"
    r = invoke("check", *args, "--integers", "--answer", "2*outer(W@x - y, x)", "--json")
    assert r.code == 0 and json.loads(r.out)["score"] == 1.0


@pytest.mark.parametrize("args,fragment", [
    (["--order", "2", "--partial", "x,y"], "--partial names every differentiation"),
    (["--implicit", "y", "--antiderivative"], "different kinds of problem"),
    (["--antiderivative", "--constant", "sometimes"], "--constant"),
    (["--shape", "W=3x"], "--shape"),
    (["--implicit", "y"], "equation"),
])
def test_bad_settings_are_usage_errors(invoke, args, fragment):
    r = invoke("check", "x^2 y", "--answer", "2x", *args)
    assert r.code == 2 and r.err.startswith("error: ") and fragment in r.err
    assert "Traceback" not in r.err


def test_the_kinds_go_with_one_answer_not_a_class_file(invoke, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("id,function,answer\nana,x^2,2x\n")
    r = invoke("grade", str(path), "--order", "2")
    assert r.code == 2 and "--order is an option of gradcalc check" in r.err
