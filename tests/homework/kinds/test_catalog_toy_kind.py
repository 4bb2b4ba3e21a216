"""A toy kind of problem, registered in a registry of its own (a fresh process, so the
real one is untouched), goes through check, grade, batch, replay, derive and sheets with
nothing but its module and its entry: the proof that a new kind is one module and one
entry (docs/architecture.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: the toy kind: "the function's value at a point" (`--value x=2`), its module and its
#: entry, registered before anything takes `Kind`
TOY = '''
import sys
import types

import sympy as sp

from gradcalc.homework.kinds import registry
from gradcalc.homework.kinds.registry import ProblemKind, Report, Setting

VALUE = Setting("value", "The function's value at this point, e.g. 'x=2'.",
                registry.SETTING["at"].read, (), "x=2", shown=dict,
                saved=registry.SETTING["at"].saved, names=dict)
ENTRY = ProblemKind("value", "value", (), "the function's value at a point",
                    settings=(VALUE,), verdict_kinds=("value",),
                    report=Report(expected="value", refuted="exact: not the value"))
registry.register(ENTRY)

from gradcalc.homework import proof  # noqa: E402 - after the registry has the toy kind
from gradcalc.homework.judge import Verdict  # noqa: E402
from gradcalc.homework.kinds import catalog  # noqa: E402
from gradcalc.homework.problem import read_side  # noqa: E402
from gradcalc.homework.solutions.worked import Part, Solution, Step  # noqa: E402


def number(text, names, limits):
    side = read_side(text, "function", 0, limits, names)
    return proof.side_exprs(side, names, dict.fromkeys(names, 0.5), limits)[0]


def value(function, kind, limits):
    (x, a), = kind.value
    return x, sp.nsimplify(number(function, (x,), limits).subs(proof.symbol(x), a))


def judge(function, answer, wrt, kind, settings, limits, wrt_from="--wrt"):
    x, truth = value(function, kind, limits)
    ok = sp.simplify(number(answer, (), limits) - truth) == 0
    return Verdict("correct" if ok else "incorrect", "symbolic", str(truth), "value", (x,),
                   score=float(ok), read={"function": f"f({x}) = {function}",
                                          "answer": answer})


def solve(function, wrt, kind, settings, limits, wrt_from="--wrt", answer=None):
    x, truth = value(function, kind, limits)
    step = Step("evaluate", function, f"{function} at {x}: {truth}", str(truth), function,
                str(truth), str(truth), check="symbolic")
    part = Part(f"f({x})", f"f({x})", function, function, str(truth), str(truth), (step,))
    return Solution("value", f"f({x}) = {function}", "", [part], str(truth), str(truth))


def prompt(kind, asked, wrt):
    (x, a), = kind.value
    return f"Find the value of f at {x} = {a:g}."


toy = types.ModuleType("toy_value")
toy.judge, toy.solve, toy.prompt = judge, solve, prompt
catalog.register(ENTRY, toy)

from gradcalc.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
'''


@pytest.fixture
def toy(tmp_path: Path):
    """Runs gradcalc with the toy kind registered, in tmp_path; returns (code, out, err)."""
    script = tmp_path / "toy_gradcalc.py"
    script.write_text(TOY)

    def run(*args: str) -> tuple[int, str, str]:
        done = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300,
                              env={"COLUMNS": "80", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
        return done.returncode, done.stdout, done.stderr

    return run


def test_a_toy_kind_goes_through_every_command(toy, tmp_path: Path) -> None:
    code, out, _ = toy("check", "x^2 + 1", "--value", "x=2", "--answer", "5", "--plain")
    assert (code, out.split(";")[0]) == (0, "correct (symbolic)")
    code, out, _ = toy("check", "x^2 + 1", "--value", "x=2", "--answer", "4")
    assert code == 1 and "exact: not the value" in out
    code, out, _ = toy("derive", "x^3", "--value", "x=2", "--plain")
    assert code == 0 and "x^3 at x: 8" in out
    (tmp_path / "key.csv").write_text("problem,function,value\np1,x^3,x=2\n")
    (tmp_path / "week.csv").write_text("student,problem,answer\nana,p1,8\nben,p1,6\n")
    code, out, _ = toy("grade", "--key", "key.csv", "week.csv", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [r["verdict"] for r in rows if "problem" in r] == ["correct",
                                                                              "incorrect"]
    assert rows[0]["receipt"]["kind"] == {"value": {"x": 2.0}}
    (tmp_path / "verdicts.jsonl").write_text(out)
    code, _, err = toy("replay", "verdicts.jsonl", "--plain")
    assert code == 0 and "2 the same, 0 differ" in err
    (tmp_path / "jobs.jsonl").write_text(json.dumps(
        {"command": "check", "program": "x^2", "answer": "9", "value": "x=3"}) + "\n")
    code, out, _ = toy("batch", "jobs.jsonl")
    assert json.loads(out)["verdict"] == "correct"
    code, out, _ = toy("sheets", "--key", "key.csv", "--student", "ana", "--plain")
    assert code == 0 and "Find the value of f at x = 2." in out


def test_a_kind_registered_after_kind_is_taken_is_refused() -> None:
    from gradcalc.homework.kinds import columns, registry

    assert columns.Kind is registry.Kind  # taken: a second registry would split them
    with pytest.raises(RuntimeError, match="already a kind"):
        registry.register(registry.KIND["tangent"])
    with pytest.raises(RuntimeError, match="has taken Kind already"):
        registry.register(registry.ProblemKind("late", "late", (), "too late"))
