"""--points --jobs N over a table of plain numbers: each worker reads its own byte range of
the file, answers it and writes its own part file; this process only finds where the
ranges begin (one pass over the bytes, with the scan's) and joins the parts in order.
Nothing of a chunk (its numbers or its text) goes through a pipe.

A plain table (the byte scan found only numbers, one per column, one row a line) can be
cut at any line break: every line is a row, so a range's first row number is its line
count. Other tables (text columns, quotes, blank lines) go through `commands.parallel`
as chunks.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gradcalc.commands import stream as chunking
from gradcalc.commands.table import Header

#: bytes read at a time while finding the ranges
BLOCK = 1 << 22


@dataclass(frozen=True)
class Range:
    """A run of whole rows of one file: bytes [start, end), its first row in the table."""

    path: str
    start: int
    end: int
    offset: int  # rows of the table before it
    rows: int
    line: int  # the file line of its first row
    several: bool = False  # the table has several files


def ranges(files: list[str], header: Header, rows: int) -> Iterator[Range]:
    """The table cut every `rows` lines (the last range of a file may hold fewer)."""
    offset = 0
    for path in files:
        with open(path, "rb") as fh:
            for _ in range(header.lines):
                fh.readline()
            start = here = fh.tell()
            line, count = header.lines + 1, 0
            while block := fh.read(BLOCK):
                breaks = np.flatnonzero(np.frombuffer(block, np.uint8) == 10)
                k = rows - count - 1  # the break that ends the current range
                while k < breaks.size:
                    end = here + int(breaks[k]) + 1
                    yield Range(path, start, end, offset, rows, line, len(files) > 1)
                    start, offset, line = end, offset + rows, line + rows
                    k += rows
                count = (count + breaks.size) % rows
                here += len(block)
            if here > start:  # the rest, the last row perhaps without a line break
                yield Range(path, start, here, offset, count + (block_ends_open(fh)),
                            line, len(files) > 1)
                offset += count + block_ends_open(fh)


def block_ends_open(fh: Any) -> int:
    """1 when the file's last byte is not a line break (a last row without one)."""
    size = fh.seek(0, os.SEEK_END)
    if size == 0:
        return 0
    fh.seek(size - 1)
    return int(fh.read(1) != b"\n")


def piece_of(r: Range, header: Header, fast: bool, verify: bool = False) -> chunking.Piece:
    """The range's rows as a Piece: numbers parsed by polars, else as text. With
    `verify` (a table not scanned first), its bytes are checked to be plain numbers."""
    with open(r.path, "rb") as fh:
        fh.seek(r.start)
        data = fh.read(r.end - r.start)
    if fast:
        from gradcalc.commands.tabular import parse_lines

        return chunking.Piece(r.offset, r.rows,
                              data=parse_lines(data, len(header.columns), verify))
    if verify and not chunking.plain_block(data, len(header.columns)):
        raise chunking.not_plain()  # read again as text
    return chunking.Piece(r.offset, r.rows, data.decode("utf-8"), r.line,
                          source=r.path if r.several else "")


def answer_range(answer: Any, plan: chunking.Plan, fmt: Any, fast: bool, folder: str,
                 r: Range, verify: bool = False) -> Any:
    """One range answered by `answer` (render.stream's, passed in: stream imports this
    module) and written to its own part file, in a worker: its Answered, with the part's
    path instead of the text."""
    done = answer(plan, fmt, piece_of(r, plan.header, fast, verify))
    part = os.path.join(folder, f"part-{r.offset:012d}.csv")
    with open(part, "wb") as fh:
        if isinstance(done.out, str):
            fh.write(done.out.encode("utf-8"))
        elif isinstance(done.out, bytes):
            fh.write(done.out)
        else:  # the columnar writer's patched text
            fh.writelines(done.out.pieces())
    return replace(done, out=None, part=part)


def copy_part(part: str, out: Any) -> None:
    """A worker's part file appended to the output (a binary file) and removed: by the
    kernel where it can (copy_file_range to a file, sendfile to a pipe: the bytes never
    pass through this process), else read and written."""
    with open(part, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        try:
            target = out.fileno()
        except (AttributeError, OSError, ValueError):
            shutil.copyfileobj(fh, out, 1 << 22)
        else:
            out.flush()
            _kernel_copy(fh.fileno(), target, size, fh, out)
    os.unlink(part)


def _kernel_copy(source: int, target: int, size: int, fh: Any, out: Any) -> None:
    done = 0
    for copy in (getattr(os, "copy_file_range", None), os.sendfile):
        if copy is None:
            continue
        try:
            while done < size:
                sent = copy(source, target, size - done) if copy is not os.sendfile \
                    else os.sendfile(target, source, done, size - done)
                if sent <= 0:
                    break
                done += sent
            if done >= size:
                return
        except OSError:
            continue
    fh.seek(done)
    shutil.copyfileobj(fh, out, 1 << 22)
