"""`sheets` end to end: the key and the students (a roster, or students named one by one),
every variant drawn and checked, then either the files written (a page per student, the
CSV, the teacher's copy: all or none, `gradcalc.render.files`) or the sheets printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.render.formats import Format, named
from gradcalc.render.sheets import CSV_NAME, TEACHER_NAME


@dataclass
class SheetsJob:
    key: str
    fmt: Format
    roster: str | None = None
    students: list[str] = field(default_factory=list)
    out: str | None = None  # a folder: the files; none: the sheets printed
    title: str = "Homework"
    answers: bool = False  # printed sheets also show each answer
    limits: Limits = DEFAULT_LIMITS

    def __post_init__(self) -> None:
        self.fmt = named(self.fmt)


def write_sheets(job: SheetsJob, out: Any) -> int:
    """The sheets written (or printed); the exit code (0)."""
    from gradcalc.grading import worksheets
    from gradcalc.grading.key import load_key
    from gradcalc.grading.roster import normal_id, read_roster, sheet_students

    if not job.roster and not job.students:
        raise GradcalcError("sheets needs the students: --roster ROSTER.csv, or --student "
                            "ID (repeatable)", kind="usage")
    folder = _folder(job.out) if job.out else None
    key = load_key(job.key)
    students = sheet_students(read_roster(job.roster)) if job.roster else []
    named_already = {s for s, _ in students}
    students += [(normal_id(s), ()) for s in dict.fromkeys(job.students)
                 if s.strip() and normal_id(s) not in named_already]
    sheets = worksheets.sheets(key, students, job.limits)
    _warn_shared(sheets, key)
    if folder is None:
        write = job.fmt.writer("sheet")
        for sheet in sheets:
            write(sheet, job.answers, out)
        return 0
    names = _write(folder, sheets, key, job.title)
    job.fmt.writer("sheets_written")(len(sheets), str(folder), names, out)
    return 0


def _warn_shared(sheets: list, key: Any) -> None:
    """On standard error: the problems whose variants too many classmates share."""
    import sys

    from gradcalc.render.roll import sharing_notes

    sys.stderr.write(sharing_notes(sheets, key))


def _folder(out: str) -> Path:
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise GradcalcError(f"--out {out}: is a file, not a folder", kind="usage")
    if not folder.resolve().parent.is_dir():
        raise GradcalcError(f"--out {out}: the folder {str(folder.resolve().parent)!r} does "
                            "not exist", kind="usage")
    return folder


def page_names(students: list[str]) -> list[str]:
    """Each student's page's file name (sheet-ID.html, the ID's other characters as _;
    the same name twice numbered -2, -3)."""
    out, taken = [], set()
    for student in students:
        stem = re.sub(r"[^\w.@+-]+", "_", student, flags=re.ASCII).strip("._") or "student"
        name, k = f"sheet-{stem}.html", 1
        while name.lower() in taken:
            k += 1
            name = f"sheet-{stem}-{k}.html"
        taken.add(name.lower())
        out.append(name)
    return out


def _write(folder: Path, sheets: list, key: Any, title: str) -> list[str]:
    from gradcalc.render import sheets as pages
    from gradcalc.render.files import write_all

    names = page_names([s.student for s in sheets])
    templates = {p.name: (p.function, p.template.params.text if p.template else "", p.kind)
                 for p in key.problems.values()}
    files = {str(folder / n): pages.sheet_html(s, title) for n, s in zip(names, sheets,
                                                                          strict=True)}
    files[str(folder / CSV_NAME)] = pages.sheets_csv(sheets)
    files[str(folder / TEACHER_NAME)] = pages.teacher_html(sheets, title, templates)
    made = not folder.exists()
    folder.mkdir(exist_ok=True)
    try:
        write_all(files)
    except BaseException:
        if made:  # all or none: not even the folder
            folder.rmdir()
        raise
    return names
