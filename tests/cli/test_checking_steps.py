"""`check --steps`: the worked solution beside the verdict, the step where a wrong answer
left the path marked; JSON carries `steps` and `departs_at`; the verdict and the exit code
are unchanged."""

from __future__ import annotations

import json


def test_json_carries_steps_and_departs_at(invoke):
    run = invoke("check", "x^2 sin(3x)", "--answer", "2x sin(3x) + x^2 cos(3x)", "--steps",
                 "--json")
    assert run.code == 1
    out = json.loads(run.out)
    assert out["verdict"] == "incorrect" and out["command"] == "check"
    assert [s["rule"] for s in out["steps"]] == ["product", "power", "chain",
                                                 "constant-multiple"]
    assert out["departs_at"] == {"step": 3, "rule": "chain-inner-factor", "at": "sin(3x)",
                                 "student": "cos(3x)", "right": "3cos(3x)",
                                 "said": "you wrote cos(3x) here; the chain rule gives "
                                         "3cos(3x)"}
    assert out["steps"][2]["student"] == "cos(3x)"
    assert out["solution"]["answer"] == "f'(x) = 3x^2·cos(3x) + 2x·sin(3x)"


def test_the_verdict_is_the_same_with_or_without_steps(invoke):
    args = ("check", "x^2 sin(3x)", "--answer", "2x sin(3x) + x^2 cos(3x)", "--json")
    plain, steps = json.loads(invoke(*args).out), json.loads(invoke(*args, "--steps").out)
    assert {k: steps[k] for k in plain} == plain


def test_readable_marks_the_step(invoke):
    run = invoke("check", "x^2 sin(3x)", "--answer", "2x sin(3x) + x^2 cos(3x)", "--steps")
    assert "verdict     ✗ incorrect" in run.out and "worked solution" in run.out
    assert "✗ you wrote cos(3x) here; the chain rule gives 3cos(3x)" in run.out


def test_plain_is_the_verdict_line_then_the_steps(invoke):
    run = invoke("check", "x^3 - 2x", "--answer", "3x^2 + 2", "--steps", "--plain")
    lines = run.out.splitlines()
    assert lines[0].startswith("incorrect: at x^3 - 2x: the sign of the subtracted term")
    assert lines[3].startswith("1. sum rule: d/dx(x^3 - 2x) = d/dx(x^3) - d/dx(2x)  <- "
                               "you wrote 3x^2 + 2 here; the sum rule gives 3x^2 - 2")


def test_a_correct_answer_shows_the_solution_unmarked(invoke):
    run = invoke("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x/y",
                 "--steps", "--json")
    out = json.loads(run.out)
    assert run.code == 0 and out["verdict"] == "correct" and out["departs_at"] is None
    assert out["steps"][-1]["rule"] == "solve"
