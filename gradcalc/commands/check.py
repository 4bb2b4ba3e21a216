"""`gradcalc check`: one homework answer, or a whole class from a CSV file.

One answer: FUNCTION and ANSWER read into a problem (verify/homework/problem.py), judged
(judge.py): a Verdict. A class: a CSV with the columns id, function, answer and
optionally wrt; one Row per line, in order, as it is judged; a row whose text cannot be
read is answered with its error in its place and the rest go on. Nothing here prints.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gradcalc.errors import GradcalcError, failure
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework.ambiguity import judged
from gradcalc.verify.homework.judge import Settings, Verdict
from gradcalc.verify.homework.kinds import Kind
from gradcalc.verify.homework.kinds import check as check_kind

#: the columns of a class file (wrt is optional)
COLUMNS = ("id", "function", "answer")
#: the largest class file read
MAX_FILE_BYTES = 20_000_000
#: the longest cell (a function or an answer)
MAX_CELL_CHARS = 10_000


@dataclass
class CheckJob:
    function: str
    answer: str
    wrt: list[str] | None = None
    settings: Settings = field(default_factory=Settings)
    limits: Limits = DEFAULT_LIMITS
    #: where wrt came from, as errors name it (the option, or a class file's column)
    wrt_from: str = "--wrt"
    kind: Kind = field(default_factory=Kind)  # what the problem asks for (kinds.py)


def run(job: CheckJob) -> Verdict:
    """The verdict on one answer; GradcalcError (exit 2) when a text cannot be read."""
    if not job.kind.plain:
        return check_kind(job.function, job.answer, job.wrt, job.kind, job.settings,
                          job.limits)
    return judged(job.function, job.answer, job.wrt, job.settings, job.limits, job.wrt_from)


def split_wrt(text: str | None) -> list[str] | None:
    if not text:
        return None
    from gradcalc.commands.jobs import option_name

    names = [option_name(w, "--wrt") for w in text.split(",")]
    return [n for n in names if n] or None


@dataclass
class Row:
    """One line of a class file: its id and verdict, or the error that made it unreadable."""

    line: int
    ident: str
    verdict: Verdict | None = None
    error: tuple[str, str] | None = None

    @property
    def status(self) -> str:
        return self.verdict.verdict if self.verdict is not None else "unreadable"


@dataclass
class Summary:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("correct", "incorrect", "undetermined", "unreadable"), 0))

    def add(self, row: Row) -> None:
        self.counts[row.status] += 1

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    @property
    def all_correct(self) -> bool:
        return self.rows > 0 and self.counts["correct"] == self.rows


def load_class(file: str) -> tuple[list[dict[str, Any]], int]:
    """A class file's rows from FILE (or standard input for '-'), via `read_class`."""
    import sys

    if file == "-":
        return read_class(sys.stdin.buffer.read(MAX_FILE_BYTES + 1), "standard input")
    try:
        with open(file, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise GradcalcError(f"cannot read class file {file!r}: {exc.strerror}",
                            kind="usage") from None
    return read_class(data, repr(file))


def read_class(data: bytes, source: str) -> tuple[list[dict[str, Any]], int]:
    """The rows of a class file (each with its "line") and the header's width;
    GradcalcError for a bad file."""
    if len(data) > MAX_FILE_BYTES:
        raise GradcalcError(f"{source} is over {MAX_FILE_BYTES:,} bytes", kind="limit")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradcalcError(f"{source} is not UTF-8 text (byte {exc.start})",
                            kind="usage") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise GradcalcError(f"{source} is empty; its first row names the columns "
                            "id,function,answer[,wrt]", kind="usage") from None
    except csv.Error as exc:
        raise GradcalcError(f"{source}: {exc}", kind="usage") from None
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise GradcalcError(f"{source}: no column {', '.join(missing)} in the header "
                            f"({','.join(header)}); the columns are id,function,answer and "
                            "optionally wrt", kind="usage")
    rows = []
    try:
        for record in reader:
            if not any(cell.strip() for cell in record):
                continue
            row = dict(zip(header, record, strict=False))
            row["line"] = reader.line_num
            row["cells"] = len(record)
            rows.append(row)
    except csv.Error as exc:
        raise GradcalcError(f"{source}, line {reader.line_num}: {exc}", kind="usage") from None
    return rows, len(header)


def judge_row(row: dict[str, Any], width: int, settings: Settings, limits: Limits) -> Row:
    """One class row judged; every failure is the row's error, never the batch's end."""
    out = Row(row["line"], str(row.get("id", "")).strip())
    try:
        if row["cells"] > width or any(c not in row for c in COLUMNS):
            raise GradcalcError(f"the row has {row['cells']} cells; the header has {width}",
                                kind="usage")
        cells = {c: str(row.get(c) or "") for c in (*COLUMNS, "wrt")}
        for c in ("function", "answer"):
            if not cells[c].strip():
                raise GradcalcError(f"the {c} is empty", kind="parse")
            if len(cells[c]) > MAX_CELL_CHARS:
                raise GradcalcError(f"the {c} is over {MAX_CELL_CHARS:,} characters",
                                    kind="limit")
        wrt = split_wrt(cells["wrt"].replace(";", ","))
        out.verdict = run(CheckJob(cells["function"], cells["answer"], wrt, settings,
                                   limits, wrt_from="the row's wrt"))
    except Exception as exc:  # noqa: BLE001 - one bad row must not end the class
        out.error = failure(exc)
    return out


def run_class(rows: list[dict[str, Any]], width: int, settings: Settings,
              limits: Limits = DEFAULT_LIMITS) -> Iterator[Row]:
    """The rows judged in order, one at a time (so a pipe gets each as it is ready)."""
    for row in rows:
        yield judge_row(row, width, settings, limits)
