"""A course's roster, read from the export of the platform that keeps it, and each
student known by one identifier, whatever a submission types.

The platforms' roster exports, by their own column names (matched in any case):

- Gradescope (Roster → Download): `First Name`, `Last Name` (or `Name`), `SID`, `Email`,
  `Sections`;
- Canvas (the gradebook export): `Student` (the name, "Last, First"), `ID` (Canvas's
  number), `SIS User ID`, `SIS Login ID`, `Section`;
- Moodle (participants or grades export): `First name`, `Surname`, `ID number`,
  `Email address`, `Username`;
- any other file: a student column by gradcalc's usual names (`id`, `student`, `email`,
  ...), every other column kept as it is.

An identifier is compared normalised (`normal_id`): surrounding spaces dropped, and an
email (a text with `@`) in lower case, so `Dee@Uni.edu ` is `dee@uni.edu`. A student is
known by every identifier of their row (the email, the SID, the SIS user and login IDs,
Canvas's ID) and named by the first of them in that order: the identifier their variant
is drawn with and their grades are written under.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from gradcalc.errors import GradcalcError
from gradcalc.ingest.headers import SYNONYMS, normal, read_bytes

#: a student's identifying columns, by each platform's names, in order of preference
IDENTIFIERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("email", ("email", "email address", "e mail")),
    ("sis login id", ("sis login id", "username", "login")),
    ("sid", ("sid", "sis user id", "id number", "student id", "student number")),
    ("canvas id", ("id",)),
)
#: the columns a name is made of: one whole, or first and last
NAME, FIRST, LAST = ("name", "full name", "student", "student name"), ("first name",), (
    "last name", "surname")
SECTION = ("section", "sections")
#: the most students of one roster
MAX_STUDENTS = 100_000


def normal_id(text: str) -> str:
    """An identifier as compared: without surrounding spaces, an email in lower case."""
    text = text.strip()
    return text.lower() if "@" in text else text


@dataclass(frozen=True)
class Student:
    """One row of the roster."""

    ident: str  # the identifier the student is graded under (normalised)
    name: str = ""
    section: str = ""
    ids: dict[str, str] = field(default_factory=dict)  # each identifying column's value
    columns: tuple[tuple[str, str], ...] = ()  # the row's other columns, as written


@dataclass
class Roster:
    students: list[Student]
    source: str
    known: dict[str, Student] = field(default_factory=dict)  # every identifier -> student

    def __post_init__(self) -> None:
        for s in self.students:
            for value in s.ids.values():
                self.known.setdefault(normal_id(value), s)
            self.known.setdefault(s.ident, s)

    def find(self, ident: str) -> Student | None:
        """The student a submission's identifier names (normalised), or None."""
        return self.known.get(normal_id(ident))


def _column(header: list[str], names: tuple[str, ...], taken: set[int]) -> int | None:
    normalised = [normal(h) for h in header]
    for name in names:
        if name in normalised and normalised.index(name) not in taken:
            return normalised.index(name)
    return None


def _layout(header: list[str], source: str) -> tuple[dict[str, int], dict[str, int]]:
    """The roster's identifying columns and its name/section columns, by index."""
    taken: set[int] = set()
    ids: dict[str, int] = {}
    for role, names in IDENTIFIERS:
        k = _column(header, names, taken)
        if k is not None:
            ids[role] = k
            taken.add(k)
    if not ids:  # a plain list: the student column by gradcalc's usual names
        k = _column(header, SYNONYMS["student"], taken)
        if k is None:
            raise GradcalcError(
                f"{source}: no column names the students; found: {', '.join(header)}; "
                "needed: an email (Email, Email address), an SID (SID, SIS User ID, ID "
                "number), a login (SIS Login ID, Username) or a student column (names "
                "matched in any case)", kind="usage")
        ids["student"] = k
        taken.add(k)
    named: dict[str, int] = {}
    for role, names in (("name", NAME), ("first", FIRST), ("last", LAST),
                        ("section", SECTION)):
        k = _column(header, names, taken)
        if k is not None:
            named[role] = k
            taken.add(k)
    return ids, named


def read_roster(file: str) -> Roster:
    """The roster in FILE; GradcalcError (exit 2) naming the line of a student listed
    twice or a file that names no student column."""
    data, source = read_bytes(file, "roster")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradcalcError(f"{source} is not UTF-8 text (byte {exc.start})",
                            kind="usage") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, [])
    ids, named = _layout(header, source)
    used = set(ids.values()) | set(named.values())
    students: list[Student] = []
    seen: dict[str, int] = {}
    for line, cells in enumerate(reader, 2):
        cell = {role: (cells[k].strip() if k < len(cells) else "") for role, k in
                {**ids, **named}.items()}
        found = {role: cell[role] for role in ids if cell[role]}
        if not found:
            continue  # Canvas's "Points Possible" row, a blank line
        ident = normal_id(next(iter(found.values())))
        if ident in seen:
            raise GradcalcError(f"{source}, line {line}: student {ident!r} is in the roster "
                                f"twice (first on line {seen[ident]})", kind="usage")
        seen[ident] = line
        name = cell.get("name") or " ".join(c for c in (cell.get("first", ""),
                                                          cell.get("last", "")) if c)
        students.append(Student(ident, name, cell.get("section", ""), found, tuple(
            (h, cells[k] if k < len(cells) else "") for k, h in enumerate(header)
            if k not in used)))
        if len(students) > MAX_STUDENTS:
            raise GradcalcError(f"{source} has over {MAX_STUDENTS:,} students",
                                kind="limit")
    if not students:
        raise GradcalcError(f"{source} has no students", kind="usage")
    return Roster(students, source)


def sheet_students(roster: Roster) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The roster's students as the sheets take them: each identifier, with the name,
    the section and the other columns to print on the page."""
    return [(s.ident, (*((("Name", s.name),) if s.name else ()),
                       *((("Section", s.section),) if s.section else ()), *s.columns))
            for s in roster.students]
