"""The work a class costs, counted: what depends only on a function (its reading, its
simplified derivative, its first round of points, the misconception search's sweeps) is
done once per function, not once per row; and forgetting it gives the same verdicts."""

from __future__ import annotations

import pytest

from gradcalc.grading import classfile
from gradcalc.homework import judge as judging
from gradcalc.homework import problem
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.judge import Settings
from gradcalc.homework.reading import student
from gradcalc.ingest.headers import parse_table

#: three functions, each answered four times (right, wrong, right spelled otherwise, wrong)
CLASS = """id,function,answer
a1,x^2 sin(x),2x sin(x) + x^2 cos(x)
a2,x^2 sin(x),2x cos(x)
a3,x^2 sin(x),x^2 cos(x) + 2x sin(x)
a4,x^2 sin(x),2x sin(x)
b1,sin(3x),3cos(3x)
b2,sin(3x),cos(3x)
b3,sin(3x),3 cos(3x)
b4,sin(3x),-3cos(3x)
c1,ln(x^2 + 1),2x/(x^2 + 1)
c2,ln(x^2 + 1),1/(x^2 + 1)
c3,ln(x^2 + 1),2x/(1 + x^2)
c4,ln(x^2 + 1),2x/(x^2+1)^2
"""
FUNCTIONS = 3


def _tasks() -> list[classfile.Task]:
    table = parse_table(CLASS.encode(), "class", classfile.ONE_FILE, ("wrt",), "class")
    return classfile.tasks(table, None, Settings())


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counting(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _judge_every_row(tasks: list[classfile.Task]) -> list[tuple]:
    out = []
    for task in tasks:
        classfile.forget()  # no memo of identical answers: every row is judged
        v = classfile.judge_task(task).verdict
        assert v is not None
        out.append((v.verdict, v.method, v.expected, v.expected_latex, v.feedback, v.note,
                    v.read, v.counterexample, v.misconception, v.points, v.values,
                    v.receipt))
    return out


def test_a_class_simplifies_and_reads_each_function_once(monkeypatch):
    judging.forget_formulas()
    simplified = _counted(monkeypatch, student, "simplest")
    read = _counted(monkeypatch, problem, "read_side")
    tapes = _counted(monkeypatch, misconceptions, "FormulaTape")
    tasks = _tasks()
    verdicts = _judge_every_row(tasks)
    assert [v[0] for v in verdicts] == ["correct", "incorrect"] * 6
    assert simplified[0] == FUNCTIONS  # one derivative each, simplified once
    assert read[0] == FUNCTIONS + len(tasks)  # each function once, every answer
    assert tapes[0] <= FUNCTIONS  # the wrong answers to a function share its points


def test_forgetting_what_is_kept_per_function_changes_no_verdict(monkeypatch):
    judging.forget_formulas()
    warm = _judge_every_row(_tasks())
    simplified = _counted(monkeypatch, student, "simplest")
    cold = []
    for task in _tasks():
        judging.forget_formulas()  # each row a new function: everything built again
        cold += _judge_every_row([task])
    assert cold == warm
    assert simplified[0] == len(warm)
