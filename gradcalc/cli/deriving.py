"""`gradcalc derive`: a problem's worked solution alone, no answer needed: its steps, each
verified, in the notation `check` reads and with `check`'s kind options (the registry's,
homework/kinds/registry.py): readable, --plain, --json, or a --latex document."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.declaring import Parameter, declare
from gradcalc.cli.options import (
    JsonOpt,
    SecondsOpt,
    SeedOpt,
    WrtOpt,
    format_of,
    format_parameter,
    kind_parameters,
    limits_of,
    read_program,
)
from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS

SolvedArg = Annotated[str | None, typer.Argument(
    help="The function (an equation F = G with --implicit, a loss with --shape): text, "
    "@FILE or - for standard input.", show_default=False)]
StepsPlainOpt = Annotated[bool, typer.Option(
    "--plain", help="One line per step: its number, its rule and its equation.")]
LatexDocOpt = Annotated[bool, typer.Option(
    "--latex", help="A LaTeX document of the solution (amsmath), to paste into a write-up.")]
StepSamplesOpt = Annotated[int, typer.Option(
    "--samples", min=1, max=1000, help="Points each step is checked at on the tape.")]

PARAMETERS: list[Parameter] = [
    ("function", SolvedArg, None),
    ("wrt", WrtOpt, None),
    ("json_out", JsonOpt, False),
    ("plain_out", StepsPlainOpt, False),
    ("latex_out", LatexDocOpt, False),
    format_parameter(("solution",)),
    ("seed", SeedOpt, 0),
    ("samples", StepSamplesOpt, 8),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
    *kind_parameters(),
]


def derive(o: dict[str, Any]) -> None:
    from gradcalc.homework.answer import split_wrt
    from gradcalc.homework.dispatch import solve
    from gradcalc.homework.judge import Settings
    from gradcalc.homework.kinds.registry import SETTINGS, Kind
    fmt = format_of(o, ("solution",))
    limits = limits_of(o)
    kind = Kind.read(**{s.name: o[s.name] for s in SETTINGS}, limits=limits)
    if o["function"] is None:
        raise GradcalcError("derive needs FUNCTION, e.g. gradcalc derive \"x^2 sin(3x)\"",
                            kind="usage")
    solution = solve(read_program(o["function"]), split_wrt(o["wrt"]), kind,
                     Settings(samples=o["samples"], seed=o["seed"]), limits)
    fmt.writer("solution")(solution, None, sys.stdout)


declare("derive", "A worked solution: the derivative (or antiderivative, dy/dx of an "
        "equation, N-th\n    derivative, partial, tensor gradient) of FUNCTION step by "
        "step, every step checked\n    on the tape.", PARAMETERS, derive)
