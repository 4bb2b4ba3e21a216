"""`gradcalc autograder` (the zip a teacher uploads to Gradescope) and `gradcalc
autograde` (what the zip's `run_autograder` runs for each submission)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gradcalc.cli.course_options import ShowAnswersOpt
from gradcalc.cli.declaring import REQUIRED, Parameter, declare

AutograderKeyOpt = Annotated[str, typer.Option(
    "--key", metavar="KEY.csv", help="The answer key (put into the zip).",
    show_default=False)]
AutograderOutOpt = Annotated[str, typer.Option(
    "--out", metavar="FILE.zip", help="The zip to write (to upload as the assignment's "
    "autograder).", show_default=False)]
PenaltyOpt = Annotated[float | None, typer.Option(
    "--late-penalty", metavar="FRACTION", help="The share of the points a submission "
    "after the due date (and before the late due date) loses.", show_default=False)]
RootOpt = Annotated[str | None, typer.Option(
    "--root", metavar="DIR", help="The autograder's root (default: "
    "$GRADCALC_AUTOGRADER_ROOT, else /autograder).", show_default=False)]

AUTOGRADER: list[Parameter] = [
    ("key", AutograderKeyOpt, REQUIRED),
    ("out", AutograderOutOpt, REQUIRED),
    ("show_answers", ShowAnswersOpt, None),
    ("late_penalty", PenaltyOpt, None),
]
AUTOGRADE: list[Parameter] = [("root", RootOpt, None)]


def shown(given: str | None, key_file: str) -> str:
    """When answers are shown: the option, else the key's column, else never."""
    from gradcalc.errors import GradcalcError
    from gradcalc.grading.key import ANSWERS, load_key

    value = given or load_key(key_file).answers or "never"
    if value not in ANSWERS:
        raise GradcalcError(f"--show-answers {value}: give {', '.join(ANSWERS)}",
                            kind="usage")
    return value


def autograder(o: dict[str, Any]) -> None:
    from gradcalc.grading.course import deadline_of
    from gradcalc.run.autograder import Settings, build

    if o["late_penalty"] is not None:
        deadline_of("2000-01-01", None, o["late_penalty"])  # checked: a fraction
    names = build(o["key"], o["out"], Settings(shown(o["show_answers"], o["key"]),
                                               o["late_penalty"]))
    sys.stdout.write(f"{o['out']}: {', '.join(names)}\n")


def autograde(o: dict[str, Any]) -> None:
    from gradcalc.run import autograder

    results = autograder.autograde(autograder.root_of(o["root"]))
    sys.stdout.write(f"score {results['score']:g}: {results['output'].splitlines()[-1]}\n")


declare("autograder", "Gradescope's autograder for a key: the zip to upload (setup.sh, "
        "run_autograder,\n    the key, its settings and gradcalc's wheel).", AUTOGRADER,
        autograder)
declare("autograde", "One Gradescope submission judged (run by the autograder's "
        "run_autograder):\n    results/results.json under the autograder's root.",
        AUTOGRADE, autograde)
