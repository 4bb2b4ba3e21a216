"""`gradcalc sheets`: the problems handed out, each student's own variant of the key's
parametrised problems (a printable page per student, a CSV, the teacher's copy), or
printed for the students named."""

from __future__ import annotations

import sys
from typing import Any

import typer

from gradcalc.cli.declaring import REQUIRED, Parameter, declare
from gradcalc.cli.options import (
    AnswersOpt,
    RosterOpt,
    SecondsOpt,
    SheetKeyOpt,
    SheetsJsonOpt,
    SheetsOutOpt,
    SheetsPlainOpt,
    StudentOpt,
    TitleOpt,
    format_of,
    format_parameter,
    limits_of,
)
from gradcalc.limits import DEFAULT_LIMITS

SHEETS: list[Parameter] = [
    ("key", SheetKeyOpt, REQUIRED),
    ("roster", RosterOpt, None),
    ("student", StudentOpt, []),
    ("out", SheetsOutOpt, None),
    ("title", TitleOpt, "Homework"),
    ("answers", AnswersOpt, False),
    ("json_out", SheetsJsonOpt, False),
    ("plain_out", SheetsPlainOpt, False),
    format_parameter(("sheet",)),
    ("check_seconds", SecondsOpt, DEFAULT_LIMITS.check_seconds),
]


def sheets(o: dict[str, Any]) -> None:
    from gradcalc.run.sheetrun import SheetsJob, write_sheets

    job = SheetsJob(o["key"], format_of(o, ("sheet",)), o["roster"],
                    list(o["student"]), o["out"], o["title"], o["answers"], limits_of(o))
    raise typer.Exit(write_sheets(job, sys.stdout))


declare("sheets", "The key's problems handed out, each student's own variant: with --out "
        "DIR, a\n    printable HTML page per student, sheets.csv and the teacher's copy; "
        "else each\n    student's sheet printed.", SHEETS, sheets)
