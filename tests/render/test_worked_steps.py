"""A worked solution's writers: JSON (alone, or beside a verdict), plain lines, one line
for a class's feedback, and how it was checked, in words."""

from __future__ import annotations

from dataclasses import replace

from gradcalc.homework.answer import AnswerJob, run, worked
from gradcalc.render.worked_steps import (
    checked_text,
    inline_text,
    solution_json,
    step_lines,
)


def _wrong():
    job = AnswerJob("sin(3x)", "cos(3x)")
    verdict = run(job)
    return worked(job, verdict), verdict


def test_json_alone_and_beside_the_verdict():
    solution, verdict = _wrong()
    alone = solution_json(solution)
    assert alone["command"] == "derive" and [s["n"] for s in alone["steps"]] == [1, 2]
    beside = solution_json(solution, verdict)
    assert beside["command"] == "check" and beside["verdict"] == "incorrect"
    assert beside["departs_at"]["step"] == 1 and "steps" not in beside["solution"]


def test_lines_and_the_class_line_mark_the_departure():
    solution, _ = _wrong()
    lines = step_lines(solution)
    assert lines[2].endswith("<- you wrote cos(3x) here; the chain rule gives 3cos(3x)")
    assert inline_text(solution).startswith("worked solution: (1) chain rule: ")
    assert "[you wrote cos(3x) here" in inline_text(solution)


def test_checked_says_how_and_what_merged():
    solution, _ = _wrong()
    assert checked_text(solution) == ("every step at 8 points on the tape; 2 of 2 also by "
                                      "sympy")
    merged = replace(solution, merged=2)
    assert checked_text(merged).endswith("2 smaller steps did not verify and are shown "
                                         "merged")
    empty = replace(solution, parts=[], note="no worked steps for this function (x)")
    assert checked_text(empty) == "no worked steps for this function (x)"
    assert inline_text(empty) == "worked solution: answer f'(x) = 3cos(3x)"


def test_the_whole_expression_is_shown_when_the_step_only_ends_with_its_text(invoke):
    """-d/dx(1/(x + 1)^2): the quotient rule's `= -d/dx((x + 1)^2)/(x + 1)^4` ends with
    the text of the whole after it, d/dx((x + 1)^2)/(x + 1)^4, but is not it: the whole
    is printed (plain) and the step's equation beside the row (LaTeX)."""
    plain = invoke("derive", "1/(1 + x)", "--order", "2", "--plain").out
    assert ("= -d/dx((x + 1)^2)/(x + 1)^4; = d/dx((x + 1)^2)/(x + 1)^4\n") in plain
    latex = invoke("derive", "1/(1 + x)", "--order", "2", "--latex").out
    assert (r"\text{quotient rule}:\ \frac{d}{d x}\left(\frac{1}{\left(x + 1\right)^{2}}"
            r"\right) = -") in latex
