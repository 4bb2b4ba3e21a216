"""Verdicts a busy machine cannot change: sympy is bounded by its CPU time and the
searches by the work they count (gradcalc.verify.budget), so the same answers get the
same verdict, feedback, expected text and receipt however long the wall clock says the
work took: with sympy's calls made to wait, with the clock jumping, beside two CPU hogs."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import subprocess
import sys
from dataclasses import replace

import sympy as sp

from gradcalc.grading import classfile
from gradcalc.homework import answer as checking
from gradcalc.homework import dispatch, proof
from gradcalc.homework.feedback import misconceptions, second_steps
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind
from gradcalc.language.parse import parse
from gradcalc.limits import DEFAULT_LIMITS

#: what the kinds of problem judge: (function, kind, answers)
PROBLEMS = [
    ("x^3 - 2x", Kind(), ["3x^2 - 2", "3x^2", "x^4/4 - x^2"]),
    ("cot(4x + 1)^3", Kind(), ["-12cot(4x + 1)^2/sin(4x + 1)^2", "3cot(4x + 1)^2"]),
    ("sin(3x)", Kind(order=2), ["-9sin(3x)", "9sin(3x)"]),
    ("x^2 y + y^3", Kind(partial=("x", "y")), ["2x", "2y"]),
    ("x^2 + y^2 = 25", Kind(implicit="y"), ["-x/y", "x/y", "-x/sqrt(25 - x^2)"]),
    ("x^3 + y^3 = 3x y", Kind(implicit="y"), ["(y - x^2)/(y^2 - x)", "(y - x^2)/(y - x)"]),
    ("x y^2 = 1", Kind(implicit="y", at=(("x", 1.0), ("y", -1.0))), ["1/2", "-1/2"]),
    ("x^2 + y^2 = r^2", Kind(implicit="y"), ["-x/y", "-r/y"]),
    ("cos(x)", Kind(antiderivative=True), ["sin(x) + C", "-sin(x)"]),
]


def second_derivative_mistakes(function: str) -> list[str]:
    """The wrong second derivatives one misapplied rule in f' makes (the known flake:
    `x^2 cos(x)`'s lost its misconception on a busy machine)."""
    x = proof.symbol("x")
    tape = misconceptions.FormulaTape(parse(function), {"x": x}, "x", symbolic=True)
    return [proof.text(sp.diff(proof.exact(tape.sweep(mistake, k)), x))
            for k, mistake in tape.candidates()]


def rows() -> list[tuple[str, Kind, str]]:
    out = [(f, kind, a) for f, kind, answers in PROBLEMS for a in answers]
    return out + [("x^2 cos(x)", Kind(order=2), a)
                  for a in second_derivative_mistakes("x^2 cos(x)")]


#: small budgets keep the waits short; every step of these problems needs far less
LIMITS = replace(DEFAULT_LIMITS, check_seconds=0.2)


def judged_all() -> list[str]:
    """Every row's verdict as JSON (its receipt included), from a cold start."""
    dispatch.forget()
    classfile.forget()
    out = []
    for function, kind, answer in rows():
        v = checking.run(checking.AnswerJob(function, answer, None, Settings(), LIMITS,
                                            kind=kind))
        out.append(json.dumps(dataclasses.asdict(v), sort_keys=True, default=str))
    return out


def waiting(real, seconds: float):
    """`real`, called after a wait: the wall clock passes, as on a machine where other
    processes hold the cores, and no CPU time does."""
    import time

    def slowed(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)

    return slowed


def test_sympy_made_to_wait_past_every_budget_changes_nothing(monkeypatch):
    judged_all()  # sympy's first calls import its modules: not what is compared
    normal = judged_all()
    wait = LIMITS.check_seconds * 1.2
    monkeypatch.setattr(proof, "side_exprs", waiting(proof.side_exprs, wait))
    monkeypatch.setattr(proof, "_exactly_at", waiting(proof._exactly_at, wait))
    monkeypatch.setattr(second_steps, "_search", waiting(second_steps._search, wait))
    slowed = judged_all()
    assert slowed == normal
    flake = [json.loads(v) for v, (f, _, _) in zip(normal, rows(), strict=True)
             if f == "x^2 cos(x)"]
    assert flake and all(v["misconception"] for v in flake)


KEY = """problem,function,kind,order,implicit,at,points
p1,x^3 - 2x,,,,,1
p2,x^2 cos(x),,2,,,1
p3,x^2 + y^2 = 25,implicit,,,,1
p4,x y^2 = 1,implicit,,,x=1; y=-1,1
p5,x^2 + y^2 = r^2,implicit,,,,1
p6,cos(x),antiderivative,,,,1
"""


def class_files(tmp_path) -> tuple[str, str]:
    answers = {"p1": ["3x^2 - 2", "3x^2"], "p2": second_derivative_mistakes("x^2 cos(x)"),
               "p3": ["-x/y", "x/y"], "p4": ["1/2", "-1/2"], "p5": ["-x/y", "x/y"],
               "p6": ["sin(x) + C", "-sin(x)"]}
    lines = ["student,problem,answer"]
    for p, given in answers.items():
        lines += [f's{k},{p},"{a}"' for k, a in enumerate(given)]
    (tmp_path / "key.csv").write_text(KEY)
    (tmp_path / "subs.csv").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "key.csv"), str(tmp_path / "subs.csv")


def graded(invoke, key: str, subs: str) -> str:
    dispatch.forget()
    classfile.forget()
    r = invoke("grade", subs, "--key", key, "--json")
    assert r.code == 1 and r.err == "", r.err  # some answers are wrong
    return r.out


def test_a_class_judged_with_the_clock_jumping_gives_the_same_bytes(invoke, tmp_path,
                                                                     monkeypatch):
    key, subs = class_files(tmp_path)
    graded(invoke, key, subs)  # sympy's first calls import its modules
    normal = graded(invoke, key, subs)
    ticks = itertools.count()
    for clock in ("monotonic", "perf_counter", "time"):
        monkeypatch.setattr(f"time.{clock}", lambda: 1e6 + 3600.0 * next(ticks))
    assert graded(invoke, key, subs) == normal


@contextlib.contextmanager
def two_cpu_hogs():
    """Two processes that keep the cores busy while the body runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_class_judged_beside_two_cpu_hogs_gives_the_same_bytes(invoke, tmp_path):
    key, subs = class_files(tmp_path)
    graded(invoke, key, subs)
    normal = graded(invoke, key, subs)
    with two_cpu_hogs():
        assert graded(invoke, key, subs) == normal
