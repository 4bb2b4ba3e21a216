"""Where a wrong dy/dx left the path of implicit differentiation: the solve step for a
factor lost in dividing, the differentiation of the one term that was slipped on; the
verdict and its exit code are the same with or without the steps."""

from __future__ import annotations

import json

from gradcalc.homework.solutions import departure


def test_a_lost_factor_marks_the_solve_step(invoke):
    run = invoke("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x/(2y)",
                 "--steps", "--json")
    assert run.code == 1
    out = json.loads(run.out)
    assert out["departs_at"]["rule"] == "solve"
    assert out["departs_at"]["said"] == "you wrote y' = -x/(2y) here; solving gives y' = -x/y"
    assert out["steps"][out["departs_at"]["step"] - 1]["student"] == "y' = -x/(2y)"


def test_a_slip_in_one_term_marks_its_step(invoke):
    run = invoke("check", "x^2 + x y + y^2 = 7", "--implicit", "y", "--answer",
                 "(-2x)/(x + 2y)", "--steps", "--plain")
    assert run.code == 1
    marked = [line for line in run.out.splitlines() if "<-" in line]
    assert len(marked) == 1 and marked[0].startswith("3. product rule")
    assert marked[0].endswith("<- you wrote x·y' here; the product rule gives x·y' + y")


def test_an_answer_no_one_slip_explains_marks_nothing(invoke):
    run = invoke("check", "x^3 + y^3 = 6x y", "--implicit", "y", "--answer",
                 "(2y - x^2)/(y^2 - 2x) + 1", "--steps", "--plain")
    assert run.code == 1 and "<-" not in run.out


def test_the_departure_is_counted_work_decided_at_the_same_count_in_every_run(
        invoke, monkeypatch, departure_counts):
    """Found within exactly its count in every run, and not one call less (then no step
    is marked: the verdict stands alone)."""
    made = departure_counts
    def departs() -> object:
        run = invoke("check", "x^2 + y^2 = 25", "--implicit", "y", "--answer", "-x/(2y)",
                     "--steps", "--json")
        assert run.code == 1
        return json.loads(run.out).get("departs_at")

    assert departs()["rule"] == "solve"
    monkeypatch.setattr(departure, "MAX_DEPARTURE_CALLS", made[-1])
    assert departs()["rule"] == "solve"
    monkeypatch.setattr(departure, "MAX_DEPARTURE_CALLS", made[-1] - 1)
    assert departs() is None
    assert made[0] == made[1] == made[2]  # stopped: the limit + 1
