"""CSV files a teacher already has: header names matched case-insensitively with common
synonyms, every other column kept (in order) to be carried through to the output.

A header that lacks a needed column is refused with the columns found and the columns
needed, each with the names it may go by.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gradcalc.errors import GradcalcError

#: the largest CSV file read
MAX_FILE_BYTES = 20_000_000
#: the longest cell (a function or an answer)
MAX_CELL_CHARS = 10_000

#: each column's names, in order of preference (the first match takes the column); a
#: column not listed (a problem kind's own setting) goes by its name alone
SYNONYMS: dict[str, tuple[str, ...]] = {
    "student": ("id", "student", "student id", "sis user id", "email", "username", "login",
                "name", "student name"),
    "problem": ("problem", "question", "q", "problem id", "item"),
    "answer": ("answer", "response", "student answer"),
    "function": ("function", "f", "expression"),
    "wrt": ("wrt",),
    "order": ("order",),
    "partial": ("partial",),
    "kind": ("kind",),
    "shape": ("shape",),
    "rtol": ("rtol",),
    "atol": ("atol",),
    "points": ("points", "max points", "max score", "max_score"),
    "at": ("at",),
    "implicit": ("implicit", "dependent"),
    "constant": ("constant", "plus c", "+c", "+ c"),
    "integers": ("integers", "whole numbers"),
    "params": ("params", "parameters"),
    "term": ("term", "term seed"),
    "hints": ("hints", "hint"),
    "steps": ("steps", "show steps", "worked solution"),
    "domain": ("domain", "limits"),
    "answers": ("answers", "show answers"),
}


def normal(name: str) -> str:
    """A header name compared: lower case, `_`/`-`/runs of spaces as one space."""
    return re.sub(r"[\s_\-]+", " ", name.strip().lower()).strip()


def described(role: str) -> str:
    names = SYNONYMS.get(role, (role,))
    return role if len(names) == 1 else f"{role} ({'/'.join(n for n in names[:4])})"


@dataclass
class SheetRow:
    """One data row: its line, the matched columns' text and the others (header order)."""

    line: int
    cells: dict[str, str]
    extras: tuple[tuple[str, str], ...]
    overflow: bool = False  # more cells than the header has

    def get(self, role: str) -> str:
        return self.cells.get(role, "")


@dataclass
class Sheet:
    source: str
    header: list[str]
    roles: dict[str, int]  # column role -> its index in the header
    extra_names: list[str] = field(default_factory=list)
    rows: list[SheetRow] = field(default_factory=list)


def source_of(table: Sheet) -> str:
    return table.source


def match(header: list[str], roles: tuple[str, ...]) -> dict[str, int]:
    """Each role's column: the first of its synonyms present, never a column twice."""
    normalised = [normal(h) for h in header]
    taken: dict[str, int] = {}
    for role in roles:
        for synonym in SYNONYMS.get(role, (role,)):
            if synonym in normalised and normalised.index(synonym) not in taken.values():
                taken[role] = normalised.index(synonym)
                break
    return taken


def read_bytes(file: str, what: str) -> tuple[bytes, str]:
    """FILE's bytes (standard input for '-') and how to name it in a message."""
    if file == "-":
        return sys.stdin.buffer.read(MAX_FILE_BYTES + 1), "standard input"
    try:
        with open(file, "rb") as fh:
            return fh.read(MAX_FILE_BYTES + 1), repr(file)
    except OSError as exc:
        raise GradcalcError(f"cannot read {what} {file!r}: {exc.strerror}",
                            kind="usage") from None


def read_table(file: str, what: str, required: tuple[str, ...], optional: tuple[str, ...],
               label: str) -> Sheet:
    data, source = read_bytes(file, what)
    return parse_table(data, source, required, optional, label)


def parse_table(data: bytes, source: str, required: tuple[str, ...],
                optional: tuple[str, ...], label: str) -> Sheet:
    """The rows of a CSV file whose header must name `required` (and may name `optional`);
    GradcalcError (exit 2) for a file that cannot be read or lacks a column."""
    if len(data) > MAX_FILE_BYTES:
        raise GradcalcError(f"{source} is over {MAX_FILE_BYTES:,} bytes", kind="limit")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradcalcError(f"{source} is not UTF-8 text (byte {exc.start})",
                            kind="usage") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    table = header_of(reader, source, required, optional, label)
    table.rows = list(rows_of(reader, table))
    return table


def header_of(reader: Any, source: str, required: tuple[str, ...],
              optional: tuple[str, ...], label: str) -> Sheet:
    """The table's header from a csv reader's first record (its rows not read yet)."""
    needed = ", ".join(described(r) for r in required)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise GradcalcError(f"{source} is empty; its first row names the columns of "
                            f"{label}: {needed}", kind="usage") from None
    except csv.Error as exc:
        raise GradcalcError(f"{source}: {exc}", kind="usage") from None
    roles = match(header, required + optional)
    missing = [r for r in required if r not in roles]
    if missing:
        found = ", ".join(h for h in header if h) or "none"
        raise GradcalcError(
            f"{source}: no column for the {' and the '.join(missing)} in the header of "
            f"{label}; found: {found}; needed: {needed} (names matched in any case)",
            kind="usage")
    known = set(roles.values())
    return Sheet(source, header, roles, [h for i, h in enumerate(header)
                                         if i not in known and h])


def rows_of(reader: Any, table: Sheet, before: int = 0) -> Iterator[SheetRow]:
    """The data rows after the header, one at a time (blank rows skipped); `before`: the
    file's lines before the reader's first (a part of a file read alone)."""
    roles, header = table.roles, table.header
    known = set(roles.values())
    extra = [(i, h) for i, h in enumerate(header) if i not in known and h]
    try:
        for record in reader:
            if not any(cell.strip() for cell in record):
                continue
            cells = {r: record[i] if i < len(record) else "" for r, i in roles.items()}
            extras = tuple((h, record[i] if i < len(record) else "") for i, h in extra)
            yield SheetRow(before + reader.line_num, cells, extras,
                           len(record) > len(header))
    except csv.Error as exc:
        raise GradcalcError(f"{table.source}, line {before + reader.line_num}: {exc}",
                            kind="usage") from None
