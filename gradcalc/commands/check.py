"""`gradcalc check`: one homework answer.

FUNCTION and ANSWER read into a problem (verify/homework/problem.py), judged (judge.py):
a Verdict, with its receipt. A whole class is `gradcalc.commands.classfile`. Nothing here
prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework.ambiguity import judged
from gradcalc.verify.homework.dispatch import check as check_kind
from gradcalc.verify.homework.judge import Settings, Verdict
from gradcalc.verify.homework.kinds import Kind


@dataclass
class CheckJob:
    function: str
    answer: str
    wrt: list[str] | None = None
    settings: Settings = field(default_factory=Settings)
    limits: Limits = DEFAULT_LIMITS
    #: where wrt came from, as errors name it (the option, or a class file's column)
    wrt_from: str = "--wrt"
    kind: Kind = field(default_factory=Kind)  # what the problem asks for (kinds.py)


def run(job: CheckJob) -> Verdict:
    """The verdict on one answer; GradcalcError (exit 2) when a text cannot be read."""
    from gradcalc.commands.receipt import receipt

    if not job.kind.plain:
        verdict = check_kind(job.function, job.answer, job.wrt, job.kind, job.settings,
                             job.limits)
        if verdict.receipt is None:
            verdict.receipt = receipt(job.function, job.answer, job.wrt, job.settings,
                                      verdict, kind=job.kind)
        return verdict

    verdict = judged(job.function, job.answer, job.wrt, job.settings, job.limits,
                     job.wrt_from)
    verdict.receipt = receipt(job.function, job.answer, job.wrt, job.settings, verdict)
    return verdict


def split_wrt(text: str | None) -> list[str] | None:
    if not text:
        return None
    from gradcalc.commands.jobs import option_name

    names = [option_name(w, "--wrt") for w in text.split(",")]
    return [n for n in names if n] or None
