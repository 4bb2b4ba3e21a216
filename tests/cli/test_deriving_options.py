"""`derive` takes every option `check` takes, and means the same by it: a value at a point
of a curve, named constants, brackets; every pair of a kind's settings (read from the
kinds' registry) gives a solution or an error naming both, never an internal error."""

from __future__ import annotations

import itertools
import json

import pytest

from gradcalc.homework.kinds.registry import KINDS, SETTING

#: a problem of each kind, and a value of each setting for it
PROBLEMS = {
    "derivative": ["x^2 y + y^3"],
    "antiderivative": ["x cos(x)", "--antiderivative"],
    "implicit": ["x^2 + y^2 = 25", "--implicit", "y"],
    "tensor": ["L = sum((W@x)^2)", "--wrt", "W", "--shape", "W=2x2, x=2"],
}
VALUES = {
    "derivative": {"order": "2", "partial": "x,y", "at": "x=1, y=2", "domain": "x > 0"},
    "antiderivative": {"constant": "required", "domain": "x > 0"},
    "implicit": {"order": "2", "at": "x=3, y=4"},
    "tensor": {"integers": None, "at": "x=[1, 2]"},
}


def _pairs() -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for kind in KINDS:
        takes = list(kind.takes)
        out += [(kind.name, (s,)) for s in takes]
        out += [(kind.name, pair) for pair in itertools.combinations(takes, 2)]
    return out


def _args(kind: str, settings: tuple[str, ...]) -> list[str]:
    args = list(PROBLEMS[kind])
    for s in settings:
        value = VALUES[kind][s]
        args += [SETTING[s].option] if value is None else [SETTING[s].option, value]
    return args


@pytest.mark.parametrize("kind,settings", _pairs(), ids=lambda v: ",".join(v)
                         if isinstance(v, tuple) else v)
def test_every_setting_pair_of_every_kind(invoke, kind, settings):
    run = invoke("derive", *_args(kind, settings), "--json")
    assert "internal error" not in run.err
    if run.code == 2:  # refused: the error names both settings
        assert all(SETTING[s].option in run.err for s in settings), run.err
        return
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["answer"] and out["steps"], out["note"]
    if "at" in settings and kind != "tensor":
        assert out["steps"][-1]["rule"] == "evaluate"


@pytest.mark.parametrize("equation,at,order,answer", [
    ("x^2 + x y + y^2 = 7", "x=1, y=2", "1", "at (x, y) = (1, 2): dy/dx = -4/5 = -0.8"),
    ("x y^2 = 1", "x=1, y=-1", "1", "at (x, y) = (1, -1): dy/dx = 1/2 = 0.5"),
    ("9x^2 + y^2 = 9", "x=0, y=3", "2", "at (x, y) = (0, 3): d^2y/dx^2 = -3"),
])
def test_implicit_at_a_point_ends_with_the_value(invoke, equation, at, order, answer):
    run = invoke("derive", equation, "--implicit", "y", "--at", at, "--order", order,
                 "--plain")
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[-2] == f"answer: {answer}"
    assert lines[-3].split(". ", 1)[1].startswith("evaluate: ")


def test_implicit_at_shows_the_substitution(invoke):
    run = invoke("derive", "x^2 + x y + y^2 = 7", "--implicit", "y", "--at", "x=1, y=2",
                 "--plain")
    assert "dy/dx = (-2·1 - 2)/(1 + 2·2) = -4/5" in run.out


def test_implicit_at_a_point_off_the_curve_is_refused_as_check_refuses_it(invoke):
    run = invoke("derive", "x^2 + y^2 = 25", "--implicit", "y", "--at", "x=1, y=2")
    assert run.code == 2 and "the point is not on the curve" in run.err


def test_implicit_with_named_constants(invoke):
    run = invoke("derive", "a x^2 - b y^3 = c^2", "--implicit", "y", "--plain")
    assert run.code == 0
    assert run.out.splitlines()[-2] == "answer: dy/dx = 2a·x/(3b·y^2)"


def test_brackets_group_as_check_reads_them(invoke):
    run = invoke("derive", "[(2x+1)^{10} + 1]^{10}", "--plain")
    assert run.code == 0 and "no worked steps" not in run.out
    assert run.out.splitlines()[-2] == "answer: f'(x) = 200((2x + 1)^10 + 1)^9·(2x + 1)^9"


def test_a_value_at_a_point_names_the_point_first(invoke):
    run = invoke("derive", "x^3 y", "--partial", "x", "--at", "x=1, y=2", "--plain")
    assert run.out.splitlines()[-2] == "answer: at (x, y) = (1, 2): ∂f/∂x = 6"
    assert "evaluate: at (x, y) = (1, 2): ∂f/∂x = 3·2·1^2 = 6" in run.out


def test_a_value_at_a_point_has_its_decimal(invoke):
    run = invoke("derive", "x^2 sin(x)", "--at", "x=2", "--plain")
    assert "f'(2) = 2^2·cos(2) + 2·2·sin(2) = 4cos(2) + 4sin(2)" in run.out
    assert run.out.splitlines()[-2] == "answer: f'(2) = 4cos(2) + 4sin(2) ≈ 1.9726"
