"""`gradcalc derive`: the worked solution alone, in the notation and with the kind options
`check` takes; readable, --plain, --json and --latex; bad input is one error line."""

from __future__ import annotations

import json

import pytest


def test_readable(invoke):
    run = invoke("derive", "x^2 sin(3x)")
    assert run.code == 0
    lines = run.out.splitlines()
    assert lines[:2] == ["f(x) = x^2·sin(3x)", "f'(x) = d/dx(x^2·sin(3x))"]
    assert "1 product rule (u = x^2, v = sin(3x))" in run.out
    assert "answer   f'(x) = 3x^2·cos(3x) + 2x·sin(3x)" in run.out


def test_plain_is_one_line_per_step(invoke):
    run = invoke("derive", "x^2 sin(3x)", "--plain")
    steps = [line for line in run.out.splitlines() if line[:1].isdigit()]
    assert [s.split(" ", 1)[1].split(" (")[0].split(":")[0] for s in steps] == [
        "product rule", "power rule", "chain rule", "constant multiple rule"]
    assert run.out.splitlines()[-2] == "answer: f'(x) = 3x^2·cos(3x) + 2x·sin(3x)"


def test_json(invoke):
    run = invoke("derive", "x^2 sin(3x)", "--json")
    out = json.loads(run.out)
    assert out["command"] == "derive" and out["kind"] == "derivative"
    assert [s["rule"] for s in out["steps"]] == ["product", "power", "chain",
                                                 "constant-multiple"]
    assert out["steps"][2]["also"] == "trig" and out["steps"][2]["at"] == "sin(3x)"
    assert out["verified"] == {"steps": 4, "symbolic": 4, "points": 8, "merged": 0}
    assert out["departs_at"] is None


def test_the_kind_options_are_checks(invoke):
    assert "partial fractions" in invoke("derive", "1/((x-1)(x+2))", "--antiderivative",
                                         "--plain").out
    assert invoke("derive", "x^2 + y^2 = 25", "--implicit", "y",
                  "--plain").out.splitlines()[-2] == "answer: dy/dx = -x/y"
    run = invoke("derive", "L = sum((W@x - y)^2)", "--wrt", "W", "--shape",
                 "W=3x2, x=2, y=3", "--json")
    assert json.loads(run.out)["steps"][-1]["shape"] == "3×2"
    assert invoke("derive", "x^3", "--order", "2", "--plain").out.splitlines()[-2] == \
        "answer: f''(x) = 6x"


def test_latex_is_a_document(invoke):
    run = invoke("derive", "x^2 sin(3x)", "--latex")
    assert run.out.startswith("\\documentclass{article}\n\\usepackage{amsmath}\n")
    assert run.out.rstrip().endswith("\\end{document}")
    assert "\\begin{align*}" in run.out and "\\text{chain rule}" in run.out


@pytest.mark.parametrize("args,said", [
    (("derive",), "derive needs FUNCTION"),
    (("derive", "x^2", "--json", "--latex"), "--json and --latex cannot be used together"),
    (("derive", "x^2 +"), "error: the function"),
    (("derive", "x^2", "--constant", "required"), "the + C rule goes with --antiderivative"),
])
def test_bad_input_is_one_error_line(invoke, args, said):
    run = invoke(*args)
    assert run.code == 2 and said in run.err and "Traceback" not in run.err


def test_the_installed_command(cli):
    run = cli("derive", "sin(3x)", "--plain")
    assert run.code == 0 and "chain rule" in run.out
