"""What Gradescope hands an autograder: the student's submission and
`submission_metadata.json`.

The submission is a file the student uploads, one answer per problem, in either form:

- text (`answers.txt`, any name ending `.txt`): one line per problem, `PROBLEM: ANSWER`
  (`1: 2x sin(x) + x^2 cos(x)`); blank lines and lines starting with `#` are skipped;
- CSV (`answers.csv`, any name ending `.csv`): a header with `problem` and `answer` (the
  usual names: `question`, `response`, ...); a student column may be there and is
  ignored.

The student is the platform's user, never what the file says: the metadata's first
user's email (else their id), normalised as a roster's identifiers are. A group is
graded once, as its first member (the first user the metadata lists: that member's
variant), and every member gets the same results. The submission's time is the
metadata's `created_at`; the due date and the late due date are the assignment's
`due_date` and `late_due_date`.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.grading.course import read_time
from gradcalc.grading.roster import normal_id
from gradcalc.ingest.headers import MAX_FILE_BYTES, match

#: the most lines of one submission
MAX_LINES = 10_000


@dataclass(frozen=True)
class Metadata:
    """The submission's metadata, as gradcalc uses it."""

    student: str  # the first user's email, else id (normalised)
    members: tuple[str, ...]  # every user's, the first first
    names: tuple[str, ...]
    created_at: Any = None  # a datetime, or None
    due: Any = None
    late_due: Any = None
    previous: int = 0  # the number of earlier submissions


def read_metadata(path: Path) -> Metadata:
    """`submission_metadata.json`; GradcalcError when it names no user."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GradcalcError(f"cannot read {path.name}: {exc}", kind="usage") from None
    users = data.get("users") if isinstance(data, dict) else None
    if not isinstance(users, list) or not users or not all(isinstance(u, dict)
                                                          for u in users):
        raise GradcalcError(f"{path.name} names no user", kind="usage")
    members = tuple(normal_id(str(u.get("email") or u.get("id") or "")) for u in users)
    if not members[0]:
        raise GradcalcError(f"{path.name}: the first user has no email and no id",
                            kind="usage")
    assignment = data.get("assignment") if isinstance(data.get("assignment"), dict) else {}
    own = users[0].get("assignment")  # the first user's own dates (an extension)
    if isinstance(own, dict) and own.get("due_date"):
        assignment = own

    def when(value: Any, what: str) -> Any:
        return read_time(str(value), what) if value else None

    previous = data.get("previous_submissions")
    return Metadata(members[0], members, tuple(str(u.get("name") or "") for u in users),
                    when(data.get("created_at"), "created_at"),
                    when(assignment.get("due_date"), "due_date"),
                    when(assignment.get("late_due_date"), "late_due_date"),
                    len(previous) if isinstance(previous, list) else 0)


@dataclass(frozen=True)
class Submission:
    """The answers a submission gives, in order: (problem, answer, line)."""

    answers: tuple[tuple[str, str, int], ...]
    source: str
    claimed: str = ""  # the student the file names, if it does (ignored)


def find_submission(folder: Path) -> Path | None:
    """The submission's answers file: the first `.txt` or `.csv` file, by name."""
    if not folder.is_dir():
        return None
    found = sorted(p for p in folder.rglob("*") if p.is_file() and
                   p.suffix.lower() in (".txt", ".csv"))
    return found[0] if found else None


def read_submission(path: Path) -> Submission:
    """The answers in PATH (text or CSV, by its ending); GradcalcError for a file that
    cannot be read as either."""
    data = path.read_bytes()[:MAX_FILE_BYTES + 1]
    if len(data) > MAX_FILE_BYTES:
        raise GradcalcError(f"{path.name} is over {MAX_FILE_BYTES:,} bytes", kind="limit")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradcalcError(f"{path.name} is not UTF-8 text (byte {exc.start})",
                            kind="usage") from None
    if path.suffix.lower() == ".csv":
        return _csv_answers(text, path.name)
    return _text_answers(text, path.name)


def _text_answers(text: str, source: str) -> Submission:
    out = []
    for number, line in enumerate(text.splitlines()[:MAX_LINES], 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        problem, colon, answer = line.partition(":")
        if not colon or not problem.strip():
            raise GradcalcError(f"{source}, line {number}: write PROBLEM: ANSWER (e.g. "
                                "1: 2x cos(x))", kind="usage")
        out.append((problem.strip(), answer.strip(), number))
    return Submission(tuple(out), source)


def _csv_answers(text: str, source: str) -> Submission:
    rows = list(csv.reader(io.StringIO(text, newline="")))[:MAX_LINES]
    if not rows:
        raise GradcalcError(f"{source} is empty: its header is problem,answer",
                            kind="usage")
    roles = match([h.strip() for h in rows[0]], ("problem", "answer", "student"))
    if "problem" not in roles or "answer" not in roles:
        raise GradcalcError(f"{source}: no problem and answer columns in its header "
                            f"(found: {', '.join(rows[0])})", kind="usage")
    out, claimed = [], ""
    for number, row in enumerate(rows[1:], 2):
        if not any(c.strip() for c in row):
            continue
        cell = {r: (row[k] if k < len(row) else "") for r, k in roles.items()}
        claimed = claimed or normal_id(cell.get("student", ""))
        out.append((cell["problem"].strip(), cell["answer"].strip(), number))
    return Submission(tuple(out), source, claimed)
