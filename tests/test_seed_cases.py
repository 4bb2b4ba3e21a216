"""Every seed lesson (docs/getting-started.md), through the installed `gradcalc` command."""

from __future__ import annotations

import shlex

import numpy as np
import pytest

from conftest import run_cli

# (lesson, the command as the lesson writes it, expected derivative, expected output)
LESSONS = [
    ("1", 'grad "y = 2*x[0]**3 + 2*x[1]**3" --at "x=[1,1]"', {"x": [6, 6]}, None),
    ("2", 'grad "y = 2*x**2" --at "x=[1,1,1]" --weights "[0.1, 1.0, 0.001]"',
     {"x": [0.4, 4, 0.004]}, None),
    ("4", 'grad "y = x*2; while norm(y) < 1000: y = y*2" --at "x=[2,3,4]" --weights "[1,1,1]"',
     {"x": [256, 256, 256]}, [512, 768, 1024]),
    ("5 W=[1,1]", 'grad "y = x**2" --at "x=[2,3]" --weights "[1,1]"', {"x": [4, 6]}, None),
    ("5 W=[1,0]", 'grad "y = x**2" --at "x=[2,3]" --weights "[1,0]"', {"x": [4, 0]}, None),
    ("5 W=[0,1]", 'grad "y = x**2" --at "x=[2,3]" --weights "[0,1]"', {"x": [0, 6]}, None),
    ("6", 'grad "b = a + 3; c = b*b*3; out = mean(c)" --at "a=[2,3]"', {"a": [15, 18]}, 91.5),
    ("7", 'grad "n = [[m[0]**2, m[1]**3]]" --at "m=[2,4]" --weights "[[2,4]]"',
     {"m": [8, 192]}, None),
    ("7b", 'grad "n = [[m[0]**2, m[1]**3]]; s = sum(n)" --at "m=[2,4]"', {"m": [4, 48]}, None),
    ("7c", 'grad "n = [[m[0]**2, m[1]**3]]; s = mean(n)" --at "m=[2,4]"', {"m": [2, 24]}, None),
    ("8b", 'grad "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]" --at "m=[2,4]" --weights "[1,1]"',
     {"m": [6, 11]}, None),
    ("9", 'grad "y = relu(x)" --at "x=[-1,0,2]" --weights "[1,1,1]"', {"x": [0, 0, 1]}, None),
    ("10", 'grad "y = (a+b)*(b+c)" --at "a=1, b=2, c=3"', {"a": 5, "b": 8, "c": 3}, 15),
]


@pytest.mark.parametrize("lesson,command,expected,output", LESSONS,
                         ids=[f"lesson {row[0]}" for row in LESSONS])
def test_lesson(lesson, command, expected, output):
    run = run_cli(*shlex.split(command), "--json")
    assert run.code == 0, run.err
    data = run.json()
    assert data["check"]["status"] == "pass"
    assert data["check"]["method"] == "symbolic"
    for name, want in expected.items():
        np.testing.assert_allclose(data["gradient"][name], want, rtol=1e-12)
    if output is not None:
        np.testing.assert_allclose(data["output"]["value"], output, rtol=1e-12)


def test_lesson_8_full_jacobian():
    run = run_cli("jacobian", "k = [m[0]**2 + 3*m[1], m[1]**2 + 2*m[0]]", "--at", "m=[2,4]",
                  "--json")
    assert run.code == 0, run.err
    data = run.json()
    assert data["jacobian"] == {"m": [[4.0, 3.0], [2.0, 8.0]]}
    assert data["check"]["status"] == "pass"


def test_lesson_3_vector_output_without_weights_is_an_error():
    run = run_cli("grad", "y = 2*x**2", "--at", "x=[1,1,1]")
    assert run.code == 2
    assert run.err.startswith("error:")
    assert "(3,)" in run.err and "--weights" in run.err and "jacobian" in run.err
    assert "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 1


def test_lesson_2_json_matches_the_spec_example():
    run = run_cli("grad", "y = 2*x**2", "--at", "x=[1,1,1]", "--weights", "[0.1, 1.0, 0.001]",
                  "--json")
    data = run.json()
    assert data["command"] == "grad"
    assert data["output"] == {"name": "y", "shape": [3], "value": [2.0, 2.0, 2.0]}
    assert data["weights"] == [0.1, 1.0, 0.001]
    assert data["check"]["status"] == "pass" and data["check"]["detail"] is None
