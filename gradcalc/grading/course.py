"""A course's rules for one assignment: who the students are (the roster), which of a
student's submissions counts (the policy), the deadlines and the late penalty.

A submission's time is read from its timestamp column, by the names the platforms export
it under: `Timestamp` (Google Forms), `Submitted` / `Submitted at` (Canvas), `Completed` /
`Time completed` (Moodle's quiz responses), `Submission Time` / `created_at`
(Gradescope). Times are ISO 8601 (`2027-09-14T23:59`, with an offset or `Z` or none),
`2027-09-14 23:59:00 -0700` (Gradescope), `14 September 2027, 11:59 PM` (Moodle) or
`9/14/2027 23:59:00` (Forms, month first). A time without an offset is UTC.

Which submission counts, per student and problem: `latest` (the newest by time, else the
last in the file; the default), `first` (the oldest) or `best` (the most points after
any late penalty; on a tie the earlier). After `due`, a submission is late: it earns
(1 − `penalty`) of its points until `late_until`; after `late_until` it earns nothing.
With `due` alone and no penalty, a late submission earns nothing; with a penalty and no
`late_until`, a late submission is never closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.ingest.headers import normal

POLICIES = ("latest", "best", "first")
#: the timestamp column's names, by platform
TIME_COLUMNS = ("timestamp", "submitted", "submitted at", "submission time", "created at",
                "completed", "time completed", "time submitted", "date")
#: the formats read besides ISO 8601
FORMATS = ("%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H:%M %z", "%d %B %Y, %I:%M %p",
           "%d %B %Y %I:%M %p", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M")


def read_time(text: str, what: str) -> datetime:
    """A time as the platforms write it (UTC when it says no zone); GradcalcError."""
    text = " ".join(text.split())
    try:
        found = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        found = None
        for form in FORMATS:
            try:
                found = datetime.strptime(text, form)
                break
            except ValueError:
                continue
    if found is None:
        raise GradcalcError(f"{what} {text!r} is not a time (write 2027-09-14T23:59, "
                            "with an offset such as -07:00 or Z if not UTC)", kind="usage")
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def time_column(names: list[str]) -> str | None:
    """The extra column that holds the submissions' times, if any."""
    normalised = {normal(n): n for n in names}
    return next((normalised[c] for c in TIME_COLUMNS if c in normalised), None)


@dataclass(frozen=True)
class Deadline:
    """The due date, the late due date and the late penalty (a fraction of the points)."""

    due: datetime | None = None
    late_until: datetime | None = None
    penalty: float | None = None

    def factor(self, when: datetime | None) -> tuple[float, str]:
        """The share of its points a submission at WHEN keeps, and why ('' on time)."""
        if when is None or self.due is None or when <= self.due:
            return 1.0, ""
        if self.late_until is not None and when > self.late_until:
            return 0.0, "submitted after the late due date"
        if self.penalty is None:
            if self.late_until is None:
                return 0.0, "submitted after the due date"
            return 1.0, "late"
        return 1.0 - self.penalty, f"late: {self.penalty * 100:g}% of the points taken off"

    def as_json(self, when: datetime | None) -> dict[str, Any]:
        """What a receipt records of the deadline, for one submission."""
        return {"submitted": when.isoformat() if when else None,
                "due": self.due.isoformat() if self.due else None,
                "late_until": self.late_until.isoformat() if self.late_until else None,
                "penalty": self.penalty}


def deadline_of(due: str | None, late_until: str | None, penalty: float | None
                ) -> Deadline:
    """The command line's --due, --late-until and --late-penalty, checked."""
    if penalty is not None and not 0 <= penalty <= 1:
        raise GradcalcError(f"--late-penalty {penalty:g}: give a fraction from 0 to 1 (0.1 "
                            "takes a tenth of the points off)", kind="usage")
    if (late_until or penalty is not None) and not due:
        raise GradcalcError("--late-until and --late-penalty go with --due", kind="usage")
    first = read_time(due, "--due") if due else None
    last = read_time(late_until, "--late-until") if late_until else None
    if first and last and last < first:
        raise GradcalcError("--late-until is before --due", kind="usage")
    return Deadline(first, last, penalty)


def deadline_from(recorded: Any) -> tuple[Deadline, datetime | None]:
    """A receipt's deadline and submission time, read back; GradcalcError."""
    if not isinstance(recorded, dict):
        raise GradcalcError("the receipt's deadline is not an object", kind="usage")

    def at(name: str) -> datetime | None:
        value = recorded.get(name)
        return read_time(str(value), f"the receipt's {name}") if value else None

    penalty = recorded.get("penalty")
    if penalty is not None and not isinstance(penalty, (int, float)):
        raise GradcalcError("the receipt's penalty is not a number", kind="usage")
    return Deadline(at("due"), at("late_until"), penalty), at("submitted")


@dataclass(frozen=True)
class Course:
    """The rules a class's submissions are graded by (all optional)."""

    roster: Any = None  # gradcalc.grading.roster.Roster
    policy: str = "latest"
    deadline: Deadline = Deadline()
    blank: bool = False  # a problem with no submission left empty in grades.csv, not 0

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise GradcalcError(f"--policy {self.policy}: give one of "
                                f"{', '.join(POLICIES)}", kind="usage")


def better(policy: str, new: tuple, old: tuple) -> bool:
    """Whether a submission (time, order, points) replaces the one kept so far."""
    new_at, old_at = (new[0] or datetime.min.replace(tzinfo=UTC), new[1]), \
        (old[0] or datetime.min.replace(tzinfo=UTC), old[1])
    if policy == "first":
        return new_at < old_at
    if policy == "best":
        return new[2] > old[2] or (new[2] == old[2] and new_at < old_at)
    return new_at > old_at
