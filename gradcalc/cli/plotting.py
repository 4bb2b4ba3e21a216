"""`gradcalc plot`: a function and its derivative over an interval, in the terminal."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.declaring import REQUIRED, Parameter, declare
from gradcalc.cli.options import (
    AtOpt,
    IterOpt,
    JsonOpt,
    OfOpt,
    OpsOpt,
    ProgramArg,
    format_of,
    format_parameter,
    limits_of,
    read_program,
)
from gradcalc.limits import DEFAULT_LIMITS

PARAMETERS: list[Parameter] = [
    ("program", ProgramArg, REQUIRED),
    ("over", Annotated[str, typer.Option(
        "--over", help="The input and its interval, e.g. x=-3:3.", show_default=False)],
     REQUIRED),
    ("at", AtOpt, []),
    ("of", OfOpt, None),
    ("samples", Annotated[int, typer.Option("--samples", help="Grid points.")], 201),
    ("width", Annotated[int, typer.Option("--width", min=20, max=1000,
                                          help="Columns of the drawing.")], 72),
    ("height", Annotated[int, typer.Option("--height", min=8, max=500,
                                           help="Rows of the drawing.")], 20),
    ("ylim", Annotated[str | None, typer.Option(
        "--ylim", metavar="LOW:HIGH", help="The y-axis range (default: the curves' range "
        "away from any pole); values beyond it are cut off.", show_default=False)], None),
    ("save", Annotated[str | None, typer.Option(
        "--save", metavar="FILE.svg|png",
        help="Also write the plot to a file (needs the plot extra: matplotlib).")], None),
    ("json_out", JsonOpt, False),
    format_parameter(("plot",)),
    ("max_iterations", IterOpt, DEFAULT_LIMITS.max_iterations),
    ("max_operations", OpsOpt, DEFAULT_LIMITS.max_operations),
]


def plot(o: dict[str, Any]) -> None:
    from gradcalc.commands.plot import run as plotted
    from gradcalc.render import drawing

    fmt = format_of(o, ("plot",))
    data = plotted(read_program(o["program"]), o["over"], o["at"], o["samples"], o["of"],
                   limits_of(o), o["ylim"])
    if o["save"] is not None:
        drawing.save(data, o["save"])
    fmt.writer("plot")(data, (o["width"], o["height"]), sys.stdout)


declare("plot", "The function and its derivative over an interval of one scalar input, drawn "
        "in the\n    terminal (the function a line, its derivative dots, poles their "
        "asymptotes): the notes\n    below name each pole, step, kink and undefined stretch.",
        PARAMETERS, plot)
