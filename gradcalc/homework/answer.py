"""One homework answer judged, with its receipt: what `gradcalc check` and every row of
a class come to.

FUNCTION and ANSWER are judged as the problem's kind asks (`gradcalc.homework.dispatch`):
a Verdict, with the receipt that lets anyone judge it again (`homework.receipt`); with
`worked`, the problem's worked solution beside it, the step where a wrong answer left the
path marked (`homework.solutions`, imported only then). sympy's work is bounded by CPU
time, so the verdict is the same on a busy machine; when the wall-clock backstop ended
some of it anyway (a hang, or a machine far too slow), the receipt says so
(`"backstop"`): that verdict may differ elsewhere. A whole class is
`gradcalc.grading.classfile`. Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradcalc.homework.dispatch import check
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.receipt import receipt
from gradcalc.language.text import option_name
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import BACKSTOP_MIN_SECONDS, BACKSTOP_TIMES, backstops

#: a receipt's word when the wall-clock backstop ended some of sympy's work
BACKSTOP_NOTE = (f"sympy was stopped by the wall-clock backstop ({BACKSTOP_TIMES:g} times its "
                 f"budget of CPU time, at least {BACKSTOP_MIN_SECONDS:g} s) before it had "
                 "spent that CPU time: judged on a less busy machine, this verdict may differ")


@dataclass
class AnswerJob:
    """One answer to judge: both texts, the inputs, the settings and the problem's kind."""

    function: str
    answer: str
    wrt: list[str] | None = None
    settings: Settings = field(default_factory=Settings)
    limits: Limits = DEFAULT_LIMITS
    #: where wrt came from, as errors name it (the option, or a class file's column)
    wrt_from: str = "--wrt"
    kind: Kind = field(default_factory=Kind)  # what the problem asks for (the registry)


def run(job: AnswerJob) -> Verdict:
    """The verdict on one answer; GradcalcError (exit 2) when a text cannot be read."""
    fired = backstops()
    verdict = check(job.function, job.answer, job.wrt, job.kind, job.settings, job.limits,
                    job.wrt_from)
    if verdict.receipt is None:
        verdict.receipt = receipt(job.function, job.answer, job.wrt, job.settings, verdict,
                                  kind=job.kind)
    if backstops() > fired:
        verdict.receipt["backstop"] = BACKSTOP_NOTE
    return verdict


def worked(job: AnswerJob, verdict: Verdict | None = None, read_answer: bool = True) -> Any:
    """The problem's worked solution (`homework.solutions.worked.Solution`); with an
    incorrect verdict whose mistake was located, the step where it acts marked with the
    student's version of it. `read_answer`: the answer is read for what it says of the
    problem (`∂f/∂y =` picks y); a class's rows, whose key says it, share one solution."""
    from gradcalc.homework.dispatch import solve

    solution = solve(job.function, job.wrt, job.kind, job.settings, job.limits, job.wrt_from,
                     job.answer if verdict is not None and read_answer else None)
    if verdict is not None and verdict.verdict == "incorrect" and verdict.misconception:
        from gradcalc.homework.dispatch import reading
        from gradcalc.homework.kinds.registry import problem_kind
        from gradcalc.homework.solutions.departure import place

        problem = reading(job.function, job.answer, job.wrt, job.kind, job.limits,
                          job.wrt_from).problem
        default = problem_kind(verdict.kind).marker is None
        solution = place(solution, job, verdict, problem, derivative=default)
    elif verdict is not None and verdict.verdict == "incorrect":
        from gradcalc.homework.dispatch import departure

        solution = departure(job.kind, solution, job.answer, job.limits)
    return solution


def split_wrt(text: str | None) -> list[str] | None:
    """The names of a --wrt option or a wrt cell (separated by commas or semicolons)."""
    if not text or not text.strip():
        return None
    names = [option_name(w, "--wrt") for w in text.replace(";", ",").split(",")]
    return [n for n in names if n] or None
