"""A course's options, shared by `grade` and `autograder`: the roster, which submission
counts, the deadlines and the late penalty, and a problem without a submission left
blank."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gradcalc.cli.declaring import Parameter

GradeRosterOpt = Annotated[str | None, typer.Option(
    "--roster", metavar="ROSTER.csv", help="The course's roster (Gradescope's, Canvas's or "
    "Moodle's export, or a CSV with a student column): each submission's student found "
    "on it (an email in any case), a student not on it reported and not graded, a "
    "student with no submission in the grades.", show_default=False)]
PolicyOpt = Annotated[str, typer.Option(
    "--policy", metavar="latest|best|first", help="Which of a student's submissions to a "
    "problem counts: the newest by the timestamp column (else the last in the file), the "
    "one worth most, or the oldest.")]
DueOpt = Annotated[str | None, typer.Option(
    "--due", metavar="TIME", help="The due date (ISO 8601, e.g. 2027-09-14T23:59-07:00; "
    "UTC without an offset): a later submission is late.", show_default=False)]
LateUntilOpt = Annotated[str | None, typer.Option(
    "--late-until", metavar="TIME", help="The late due date: a submission after it earns "
    "nothing.", show_default=False)]
LatePenaltyOpt = Annotated[float | None, typer.Option(
    "--late-penalty", metavar="FRACTION", help="The share of the points a late submission "
    "loses (0.1: a tenth).", show_default=False)]
BlankOpt = Annotated[bool, typer.Option(
    "--blank-missing", help="In --grades, a problem with no submission is an empty cell, "
    "not 0.")]

ShowAnswersOpt = Annotated[str | None, typer.Option(
    "--show-answers", metavar="never|after-due|always", help="When a student sees the "
    "expected answers (default: the key's answers column, else never); the mistake is "
    "named either way.", show_default=False)]
GradeJsonOpt = Annotated[bool, typer.Option(
    "--json", help="One JSON object per answer, a line each as it is judged, then a "
    "{\"summary\": ...} line.")]

COURSE: list[Parameter] = [
    ("roster", GradeRosterOpt, None),
    ("policy", PolicyOpt, "latest"),
    ("due", DueOpt, None),
    ("late_until", LateUntilOpt, None),
    ("late_penalty", LatePenaltyOpt, None),
    ("blank_missing", BlankOpt, False),
]


def course_of(o: dict[str, Any]) -> Any:
    """The course's rules from the options (None when none is given)."""
    from gradcalc.grading.course import Course, deadline_of

    given = o["roster"] or o["policy"] != "latest" or o["due"] or o["late_until"] or \
        o["late_penalty"] is not None or o["blank_missing"]
    if not given:
        return None
    from gradcalc.grading.roster import read_roster

    return Course(read_roster(o["roster"]) if o["roster"] else None, o["policy"],
                  deadline_of(o["due"], o["late_until"], o["late_penalty"]),
                  o["blank_missing"])
