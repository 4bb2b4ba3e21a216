"""The interpreter and its recorded decisions (gradcalc/language/program.py).

The interpreter is define-by-run: it walks the statements with real values and hands every
step to a backend; every value-dependent decision (a condition, a comparison, a loop
range, an index) is recorded once, outermost only, so a replay on another backend takes
the same path without evaluating what the decisions hid.
"""

from __future__ import annotations

from typing import Any

import pytest

from gradcalc.errors import EvalError, LimitError
from gradcalc.language.parse import parse
from gradcalc.language.program import Decisions, Interpreter, Pos


class Recorder:
    """A backend over Python floats that logs every call it gets."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def number(self, value: float) -> Any:
        return float(value)

    def call(self, func: str, args: list[Any], pos: Pos) -> Any:
        self.log.append(func)
        return {"abs": abs, "sum": sum}.get(func, lambda *a: a[0])(*args)

    def binary(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        self.log.append(op)
        return {"+": left + right, "-": left - right, "*": left * right,
                "/": left / right if right else float("inf"), "**": left ** right}[op]

    def negate(self, value: Any, pos: Pos) -> Any:
        self.log.append("neg")
        return -value

    def stack(self, items: list[Any], pos: Pos) -> Any:
        self.log.append("list")
        return list(items)

    def index(self, target: Any, key: tuple, pos: Pos) -> Any:
        self.log.append("index")
        return target[key[0]]

    def compare(self, op: str, left: Any, right: Any, pos: Pos) -> Any:
        self.log.append(op)
        return {"<": left < right, ">": left > right, "==": left == right}[op]

    def truth(self, value: Any, pos: Pos) -> bool:
        return bool(value)

    def integer(self, value: Any, pos: Pos) -> int:
        return int(value)


def run(text: str, env: dict[str, Any], decisions: Decisions | None = None,
        max_iterations: int = 1000) -> tuple[dict[str, Any], Recorder, Decisions]:
    backend = Recorder()
    decisions = decisions if decisions is not None else Decisions()
    out = Interpreter(backend, dict(env), decisions, max_iterations).run(parse(text))
    return out, backend, decisions


def test_statements_assign_in_order_and_control_flow_follows_the_values():
    env, _, _ = run("y = x*2\nif y > 3:\n    z = y - 1\nelse:\n    z = -y", {"x": 2.0})
    assert env["y"] == 4.0 and env["z"] == 3.0
    env, _, _ = run("y = x*2\nif y > 3:\n    z = y - 1\nelse:\n    z = -y", {"x": 1.0})
    assert env["z"] == -2.0


def test_loops_bind_their_variable_through_the_backend():
    env, backend, decisions = run("s = 0\nfor i in range(1, 4):\n    s = s + i*x", {"x": 2.0})
    assert env["s"] == 12.0 and env["i"] == 3.0
    assert decisions.record[0] == (1, 4, 1)  # the range is one decision
    assert backend.log.count("*") == 3


def test_only_outermost_decisions_are_recorded_in_the_order_met():
    text = ("y = x\nwhile y < 10 and y > 0:\n    y = y*2\n"
            "z = [y, x][0]")
    env, _, decisions = run(text, {"x": 3.0})
    assert env["y"] == 12.0 and env["z"] == 12.0
    # two true conditions, one false one, then the index key; never the inner comparisons
    assert decisions.record == [True, True, False, (0,)]


def test_a_replay_takes_the_recorded_path_without_evaluating_the_decisions():
    text = "if x > 0:\n    y = x*3\nelse:\n    y = -x\nz = v[1]"
    _, _, decisions = run(text, {"x": 2.0, "v": [5.0, 6.0]})
    env, backend, _ = run(text, {"x": -7.0, "v": [5.0, 6.0]}, decisions.replay())
    assert env["y"] == -21.0  # the recorded branch, although x is now negative
    assert env["z"] == 6.0
    assert ">" not in backend.log and "index" in backend.log


def test_a_replay_that_runs_out_of_decisions_says_so():
    _, _, decisions = run("y = x", {"x": 1.0})
    with pytest.raises(EvalError, match="different path than the recorded one"):
        run("if x > 0:\n    y = x", {"x": 1.0}, decisions.replay())


def test_iterations_are_counted_over_all_loops():
    text = "y = x\nfor i in range(3):\n    for j in range(4):\n        y = y + 1"
    env, _, _ = run(text, {"x": 0.0}, max_iterations=15)
    assert env["y"] == 12.0
    with pytest.raises(LimitError, match="exceeded 14 iterations in all"):
        run(text, {"x": 0.0}, max_iterations=14)
    interpreter = Interpreter(Recorder(), {"x": 0.0}, None, 14)
    with pytest.raises(LimitError):
        interpreter.run(parse(text))
    assert interpreter.iterations_left == -1  # stopped at the first step past the bound


def test_a_name_without_a_value_lists_the_names_that_have_one():
    with pytest.raises(EvalError, match=r"name 'q' at line 1, column 5 has no value; .*"
                                        r"\(names with values: x\)"):
        run("y = q + x", {"x": 1.0, "_hidden": 0.0})


def test_boolean_operators_belong_in_conditions():
    with pytest.raises(EvalError, match="'and' is only allowed in if/while conditions"):
        run("y = x > 0 and x < 2", {"x": 1.0})
    env, _, _ = run("y = 0\nif not x > 5 or x > 100:\n    y = 1", {"x": 1.0})
    assert env["y"] == 1.0


def test_a_bare_expression_is_the_result():
    program = parse("x*2")
    env = Interpreter(Recorder(), {"x": 4.0}).run(program)
    assert program.default_output() in env
    assert env[program.default_output()] == 8.0


def test_chained_comparisons_combine_every_pair():
    env, backend, _ = run("y = 0\nif 0 < x < 2:\n    y = 1", {"x": 1.0})
    assert env["y"] == 1.0 and backend.log.count("<") == 2


def test_a_loop_makes_each_number_once_and_reads_operands_without_a_call(monkeypatch):
    """The scalar programs' hot path (docs/performance.md, W4), counted: a literal becomes
    a backend number once per run, not once per iteration, and a name or a number under
    an operator is read in place (one evaluate per operator and call, none per leaf)."""
    made: list[float] = []
    evaluated: list[str] = []
    number, evaluate = Recorder.number, Interpreter.evaluate

    def counted_number(self, value):
        made.append(value)
        return number(self, value)

    def counted_evaluate(self, e):
        evaluated.append(type(e).__name__)
        return evaluate(self, e)

    monkeypatch.setattr(Recorder, "number", counted_number)
    monkeypatch.setattr(Interpreter, "evaluate", counted_evaluate)
    env, _, _ = run("y = x\nfor i in range(10):\n    y = y*1.0001 + abs(y)*0.001",
                    {"x": 0.5})
    assert env["y"] == pytest.approx(0.5 * 1.0011**10)
    assert made.count(1.0001) == 1 and made.count(0.001) == 1
    assert evaluated[-5:] == ["Binary", "Binary", "Binary", "Call", "Name"]  # one step
    assert evaluated.count("Binary") == 10 * 3 and evaluated.count("Call") == 10
    assert evaluated.count("Name") == 1 + 10  # y = x, and abs's argument
