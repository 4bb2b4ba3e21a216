"""`gradcalc check`: a student's one answer judged, as the problem's kind asks (the kind
options come from the registry, homework/kinds/registry.py); with --steps, the worked
solution beside the verdict."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.declaring import Parameter, declare
from gradcalc.cli.options import (
    AnswerOpt,
    CheckAtolOpt,
    CheckRtolOpt,
    FunctionArg,
    JsonOpt,
    ProveOpt,
    SamplesOpt,
    SecondsOpt,
    SeedOpt,
    VerdictPlainOpt,
    WrtOpt,
    format_of,
    format_parameter,
    kind_parameters,
    limits_of,
    read_program,
)
from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS

StepsOpt = Annotated[bool, typer.Option(
    "--steps", help="Also the worked solution, every step checked on the tape; for a wrong "
    "answer whose mistake is found, the step where it went wrong marked.")]

#: what judging an answer takes, shared by check and grade: (name, alias, default)
JUDGING: list[Parameter] = [
    ("rtol", CheckRtolOpt, 1e-6),
    ("atol", CheckAtolOpt, 1e-9),
    ("seed", SeedOpt, 0),
    ("samples", SamplesOpt, 8),
    ("prove", ProveOpt, False),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
]
PARAMETERS: list[Parameter] = [
    ("function", FunctionArg, None),
    ("answer", AnswerOpt, None),
    ("wrt", WrtOpt, None),
    ("json_out", JsonOpt, False),
    ("plain_out", VerdictPlainOpt, False),
    format_parameter(("verdict",)),
    ("steps", StepsOpt, False),
    *JUDGING,
    *kind_parameters(),
]


def settings_of(o: dict[str, Any]) -> Any:
    """The judging settings of a command's --rtol, --atol, --samples, --seed, --prove."""
    from gradcalc.homework.judge import Settings

    return Settings(rtol=o["rtol"], atol=o["atol"], samples=o["samples"], seed=o["seed"],
                    prove=o["prove"])


def check(o: dict[str, Any]) -> None:
    from gradcalc.homework.answer import AnswerJob, run, split_wrt
    from gradcalc.homework.kinds.registry import SETTINGS, Kind
    fmt = format_of(o, ("verdict",))
    limits = limits_of(o)
    kind = Kind.read(**{s.name: o[s.name] for s in SETTINGS}, limits=limits)
    function, answer = o["function"], o["answer"]
    if function is None or answer is None:
        raise GradcalcError("check needs FUNCTION and --answer ANSWER (a class's answers: "
                            "gradcalc grade ANSWERS.csv)", kind="usage")
    if function == "-" and answer == "-":
        raise GradcalcError("only one of FUNCTION and --answer can be read from standard "
                            "input (-)", kind="usage")
    text = read_program(answer) if answer.startswith("@") or answer == "-" else answer
    job = AnswerJob(read_program(function), text, split_wrt(o["wrt"]), settings_of(o),
                    limits, kind=kind)
    verdict = run(job)
    if o["steps"]:
        from gradcalc.homework.answer import worked

        fmt.writer("solution")(worked(job, verdict), verdict, sys.stdout)
    else:
        fmt.writer("verdict")(verdict, sys.stdout)
    if not verdict.ok:
        raise typer.Exit(1)


declare("check", "Homework: is ANSWER the derivative, gradient or Jacobian of FUNCTION (or its "
        "N-th\n    derivative, a mixed partial, dy/dx of an equation, an antiderivative)? "
        "A class's\n    answers: gradcalc grade.", PARAMETERS, check)
