"""A worked solution as data: parts (one differentiation, one integral, one side of an
equation ...), each a list of steps, every step verified before it is kept.

A step names its rule (an id of `rule_names.RULES`), the sub-expression it acts on, its
own equation (`text`, `latex`: "d/dx(sin(3x)) = cos(3x)·d/dx(3x)") and the whole
expression before and after it, all in the student's notation (and the whole expression
after it in LaTeX, for the --latex document). Nothing here computes or prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gradcalc.homework.solutions.rule_names import name_of


@dataclass(frozen=True)
class Step:
    """One verified step: `before = after` (the whole expression), by `rule` at `at`."""

    rule: str
    at: str  # the sub-expression the rule acts on, in the student's notation
    text: str  # the step's own equation, in the student's notation
    latex: str  # the same in LaTeX
    before: str
    after: str
    after_latex: str
    note: str = ""  # e.g. "outer sin, inner 3x", "u = x^2", "dv = e^x dx"
    also: str = ""  # the rule the chain rule's outer function is differentiated by
    shape: str = ""  # backprop: the shape of the intermediate the step acts on
    check: str = "numeric"  # how it was verified: "numeric" | "symbolic" (and numeric)
    points: int = 0  # the points it was checked at
    #: the rules a step merged from smaller ones stands for (their steps did not verify)
    merged: tuple[str, ...] = ()
    #: where a wrong answer left the path: the student's version of this step
    student: str = ""
    #: the texts of the sub-expressions it acts on, as the misconception search prints
    #: them (a sum's step acts on the binary sums it was typed as, too)
    covers: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return name_of(self.rule)

    def as_json(self, n: int, part: int) -> dict[str, Any]:
        out: dict[str, Any] = {"n": n, "part": part, "rule": self.rule, "name": self.name,
                               "at": self.at, "text": self.text, "latex": self.latex,
                               "before": self.before, "after": self.after,
                               "after_latex": self.after_latex, "note": self.note or None,
                               "check": self.check, "points": self.points}
        if self.also:
            out["also"] = self.also
        if self.shape:
            out["shape"] = self.shape
        if self.merged:
            out["merged"] = list(self.merged)
        if self.student:
            out["student"] = self.student
        return out


@dataclass(frozen=True)
class Part:
    """One stretch of the solution: what it starts from and where it ends."""

    title: str  # "d/dx(x^2·sin(3x))", "∂f/∂y", "∫ x^2·e^x dx", "differentiate both sides"
    title_latex: str
    start: str  # the expression its first step starts from
    start_latex: str
    result: str
    result_latex: str
    steps: tuple[Step, ...] = ()


@dataclass
class Solution:
    """A worked solution of one problem (`parts` in order; steps numbered from 1 across
    them), its answer, and how it was checked."""

    kind: str  # the registry's kind of problem: derivative | antiderivative | implicit | tensor
    problem: str  # the problem as read, "f(x) = x^2·sin(3x)"
    problem_latex: str
    parts: list[Part] = field(default_factory=list)
    answer: str = ""  # "f'(x) = 3x^2·cos(3x) + 2x·sin(3x)"
    answer_latex: str = ""
    points: int = 0  # the points every step was checked at
    #: steps that did not verify and were merged into larger ones (none, almost always)
    merged: int = 0
    note: str | None = None  # why there are no steps, or what they assume
    how: str = ""  # how the steps were checked, when not at points of the variables
    #: where a wrong answer left the path: {"step", "rule", "at", "student", "right", "said"}
    departs_at: dict[str, Any] | None = None
    #: what placing a departure needs beyond the steps (implicit: `both_sides.Path`);
    #: never printed
    path: Any = field(default=None, repr=False, compare=False)

    @property
    def steps(self) -> list[tuple[int, int, Step]]:
        """(number from 1, part index, step) for every step in order."""
        out, n = [], 0
        for k, part in enumerate(self.parts):
            for step in part.steps:
                n += 1
                out.append((n, k, step))
        return out

    @property
    def symbolic(self) -> int:
        return sum(s.check == "symbolic" for _, _, s in self.steps)

    def marked(self, n: int, student: str) -> Solution:
        """The solution with step n carrying the student's version of it."""
        count, parts = 0, []
        for part in self.parts:
            steps = []
            for step in part.steps:
                count += 1
                steps.append(replace(step, student=student) if count == n else step)
            parts.append(replace(part, steps=tuple(steps)))
        return replace(self, parts=parts)

    def as_json(self) -> dict[str, Any]:
        parts = []
        for k, part in enumerate(self.parts):
            numbers = [n for n, p, _ in self.steps if p == k]
            parts.append({"title": part.title, "title_latex": part.title_latex,
                          "start": part.start, "result": part.result,
                          "result_latex": part.result_latex,
                          "steps": [numbers[0], numbers[-1]] if numbers else []})
        return {"kind": self.kind, "problem": self.problem,
                "problem_latex": self.problem_latex, "parts": parts,
                "steps": [s.as_json(n, k) for n, k, s in self.steps],
                "answer": self.answer, "answer_latex": self.answer_latex,
                "verified": {"steps": len(self.steps), "symbolic": self.symbolic,
                             "points": self.points, "merged": self.merged,
                             **({"how": self.how} if self.how else {})},
                "note": self.note, "departs_at": self.departs_at}
