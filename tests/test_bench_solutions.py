"""bench/solutions.py's problem set, a representative subset run deterministically (one
problem of each kind and source, no timing): each is solved with steps and its answer
judged right by check, independently of the steps' own checks."""

from __future__ import annotations

import pytest
from bench_scripts import load

bench = load("solutions")
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


def test_the_opl_derivatives_are_one_file_of_the_set_each_row_from_an_opl_file():
    rows = bench.problems(name="opl_derivatives")
    assert len(rows) >= 250 and len(rows) < len(PROBLEMS)
    files = {source.split(" (")[0] for *_, source in rows}
    assert len(files) >= 150 and all(f.endswith(".pg") for f in files)


def test_a_partials_order_cell_names_the_variables_it_differentiates_by():
    from gradcalc.homework.kinds.registry import Kind

    assert Kind.read(**bench._texts("partial", "x;y")).partial == ("x", "y")
    assert bench._texts("partial", "") == {}


@pytest.mark.parametrize("function,answer,texts", [
    ("x y^2 = 1", "at (x, y) = (1, -1): dy/dx = 1/2 = 0.5",
     {"implicit": "y", "order": 1, "at": "x=1, y=-1"}),
    ("1/(1 + 4x^2)", "f'(-1) = 8/25 = 0.32", {"at": "x=-1"}),
])
def test_an_answer_at_a_point_is_judged_by_its_exact_value(function, answer, texts):
    assert bench.independently(function, answer, texts) == "right"
