"""A class file (`check --file`) read a row at a time, so memory does not grow with the
class, and cut into chunks of rows for --jobs workers: each chunk is judged by the one
row function of `commands.check` (`judge_row`), a pure function of the row, so the
answers are the same in any number of processes.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from itertools import islice
from typing import Any

from gradcalc.commands.check import COLUMNS, Row, judge_row
from gradcalc.errors import GradcalcError
from gradcalc.limits import Limits

#: class rows per task handed to a worker (--chunk-rows): judging a row takes about a
#: millisecond, so a few hundred keep the workers busy and the output flowing
CLASS_CHUNK_ROWS = 500


def open_class(file: str) -> tuple[int, Iterator[dict[str, Any]]]:
    """The header's width and the class file's rows (each with its "line" and number of
    "cells"), read as they are needed; GradcalcError for a bad file."""
    if file == "-":
        fh: Any = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
        source = "standard input"
    else:
        try:
            fh = open(file, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise GradcalcError(f"cannot read class file {file!r}: {exc.strerror}",
                                kind="usage") from None
        source = repr(file)
    reader = csv.reader(fh)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise GradcalcError(f"{source} is empty; its first row names the columns "
                            "id,function,answer[,wrt]", kind="usage") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise GradcalcError(f"{source}: {_why(exc)}", kind="usage") from None
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise GradcalcError(f"{source}: no column {', '.join(missing)} in the header "
                            f"({','.join(header)}); the columns are id,function,answer and "
                            "optionally wrt", kind="usage")

    def rows() -> Iterator[dict[str, Any]]:
        try:
            while True:
                try:
                    record = next(reader)
                except StopIteration:
                    return
                except (csv.Error, UnicodeDecodeError) as exc:
                    raise GradcalcError(f"{source}, line {reader.line_num}: {_why(exc)}",
                                        kind="usage") from None
                if not any(cell.strip() for cell in record):
                    continue
                row: dict[str, Any] = dict(zip(header, record, strict=False))
                row["line"], row["cells"] = reader.line_num, len(record)
                yield row
        finally:
            if fh is not sys.stdin:
                fh.close()

    return len(header), rows()


def _why(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return str(exc)


def chunks(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """The rows in lists of `size`."""
    while chunk := list(islice(rows, size)):
        yield chunk


def judge_chunk(width: int, settings: Any, limits: Limits, rows: list[dict[str, Any]]
                ) -> list[Row]:
    """A chunk of class rows judged in order: the function --jobs workers run."""
    return [judge_row(row, width, settings, limits) for row in rows]
