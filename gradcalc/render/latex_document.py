"""A worked solution as a LaTeX document a student can paste into a write-up: the problem,
then each part as an `align*` of equalities, one per step with its rule named beside it
(and, above the step, what its method states: u and du, the triangle, the table, as
math), and the answer (amsmath only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcalc.render.latex_notes import escaped, note_latex
from gradcalc.render.worked_steps import own

if TYPE_CHECKING:
    from gradcalc.homework.solutions.worked import Solution

__all__ = ["document", "escaped", "rows"]


def rows(solution: Solution, k: int) -> list[str]:
    """Part k's rows of equalities: its start, then `= after` for each step, the rule's
    name (and the step's own equation when it is not the whole) beside it, what its
    method states (`latex_notes`) in a line of text above it; a part whose states are
    equations (implicit differentiation) has one equation a row, each implied by the one
    before (⇒), never a chain of `=` through them."""
    part = solution.parts[k]
    equation = " = " in part.start  # a part of equations: each implies the next
    out = [rf"& {part.start_latex}" if equation else
           rf"{part.title_latex} &= {part.start_latex}"]
    for _, p, step in solution.steps:
        if p != k:
            continue
        why = rf"\text{{{escaped(step.name)}}}"
        if not own(step):
            why += rf":\ {step.latex}"
        stated = note_latex(step.rule, step.note)
        if stated == f"${step.latex}$":  # a table integral's formula as the step states it
            stated = ""
        out.append((rf"\intertext{{{stated}}}" + "\n" if stated else "") + (
            rf"\Rightarrow\ & {step.after_latex} && {why}" if equation else
            rf"&= {step.after_latex} && {why}"))
    return out


def document(solution: Solution) -> str:
    """The whole document."""
    lines = [r"\documentclass{article}", r"\usepackage{amsmath}", r"\begin{document}",
             r"\section*{Worked solution}"]
    if solution.problem_latex:
        lines.append(rf"\[ {solution.problem_latex} \]")
    for k, part in enumerate(solution.parts):
        lines.append(rf"\subsection*{{${part.title_latex}$}}")
        lines.append(r"\begin{align*}")
        lines.append(" \\\\\n".join(rows(solution, k)))
        lines.append(r"\end{align*}")
    if solution.answer_latex:
        lines.append(rf"Answer: \[ {solution.answer_latex} \]")
    steps = len(solution.steps)
    lines.append(escaped(f"Every step was checked at {solution.points} points by gradcalc "
                         f"({solution.symbolic} of {steps} also symbolically).")
                 if steps else escaped(solution.note or "No steps could be verified."))
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
