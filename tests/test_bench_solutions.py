"""bench/solutions.py's problem set, a representative subset run deterministically (one
problem of each kind and source, no timing): each is solved with steps and its answer
judged right by check, independently of the steps' own checks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "solutions.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_solutions", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_solutions", module)
    spec.loader.exec_module(module)
    return module


bench = _bench()
PROBLEMS = bench.problems()


def _representative() -> list[tuple[str, str, dict, str]]:
    """The first problem of each (kind, source folder) and of each antiderivative rule
    the set was grown for."""
    seen, out = set(), []
    for kind, function, texts, source in PROBLEMS:
        key = (kind, source.split(" ")[0].rsplit("/", 1)[0])
        if key not in seen:
            seen.add(key)
            out.append((kind, function, texts, source))
    grown = {"sqrt(4 - x^2)", "sqrt(x^2 - 4)/x", "x^3 e^x", "x^2 sin(x)"}
    return out + [p for p in PROBLEMS if p[1] in grown]


def test_every_problem_says_where_it_comes_from():
    assert len(PROBLEMS) >= 100
    assert all(source for *_, source in PROBLEMS)
    opl = [s for *_, s in PROBLEMS if s.startswith("OpenProblemLibrary/")]
    assert opl and all(".pg" in s for s in opl)


@pytest.mark.parametrize("kind,function,texts,source", _representative(),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_a_problem_of_the_set_is_solved_with_steps_and_judged_right(kind, function,
                                                                    texts, source):
    outcome, said, _, judged = bench.run_one(function, texts)
    assert outcome == "solved", said
    assert judged in ("right", "unread"), said
