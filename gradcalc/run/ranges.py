"""--points --jobs N over a table of plain numbers: each worker reads its own byte range of
the file, answers it and writes its text into the output file at its place (`Place`:
where the range before it ends, which that range's worker publishes first), or, for
standard output, to its own part file, joined here in order. This process only finds
where the ranges begin (one pass over the bytes, which counts the rows too). Nothing of
a chunk (its numbers or its text) goes through a pipe.

A plain table (the byte scan found only numbers, one per column, one row a line) can be
cut at any line break: every line is a row, so a range's first row number is its line
count. Other tables (text columns, quotes, blank lines) go through `run.workers`
as chunks.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gradcalc.commands import chunks
from gradcalc.errors import GradcalcError
from gradcalc.ingest import scan
from gradcalc.ingest.point_table import Header

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
    index: int = 0  # its place among the table's ranges


def ranges(files: list[str], header: Header, rows: int) -> Iterator[Range]:
    """The table cut every `rows` lines (the last range of a file may hold fewer): the
    line breaks counted a block at a time, and only a block holding a cut searched for
    it (`_nth_break`)."""
    offset = index = 0
    for path in files:
        with open(path, "rb") as fh:
            for _ in range(header.lines):
                fh.readline()
            start = here = fh.tell()
            line, count, last = header.lines + 1, 0, 10  # count: breaks since `start`
            while block := fh.read(BLOCK):
                newline = np.frombuffer(block, np.uint8) == 10
                breaks, at = int(np.count_nonzero(newline)), 0
                while count + breaks >= rows:  # the break that ends the range is here
                    cut = _nth_break(newline, at, rows - count)
                    breaks -= rows - count
                    end = here + cut + 1
                    yield Range(path, start, end, offset, rows, line, len(files) > 1, index)
                    start, offset, line, index = end, offset + rows, line + rows, index + 1
                    count, at = 0, cut + 1
                count += breaks
                here, last = here + len(block), block[-1]
            if here > start:  # the rest, the last row perhaps without a line break
                tail = count + (last != 10)
                yield Range(path, start, here, offset, tail, line, len(files) > 1, index)
                offset, index = offset + tail, index + 1


def _nth_break(newline: np.ndarray, at: int, n: int) -> int:
    """Where the n-th line break from `at` on is (n >= 1, and the block has it): the
    half holding it kept, by counts, down to a few KiB, then found there."""
    end = newline.size
    while end - at > 4096:
        middle = (at + end) // 2
        before = int(np.count_nonzero(newline[at:middle]))
        if before >= n:
            end = middle
        else:
            at, n = middle, n - before
    return at + int(np.flatnonzero(newline[at:end])[n - 1])


def piece_of(r: Range, header: Header, fast: bool, verify: bool = False) -> scan.Piece:
    """The range's rows as a Piece: numbers parsed by polars, else as text. With
    `verify` (a table not scanned first), its bytes are checked to be plain numbers."""
    with open(r.path, "rb") as fh:
        fh.seek(r.start)
        data = fh.read(r.end - r.start)
    if fast:
        from gradcalc.ingest.columnar import parse_lines

        return scan.Piece(r.offset, r.rows,
                              data=parse_lines(data, len(header.columns), verify))
    if verify and not scan.plain_block(data, len(header.columns)):
        raise scan.not_plain()  # read again as text
    return scan.Piece(r.offset, r.rows, data.decode("utf-8"), r.line,
                          source=r.path if r.several else "")


def answer_range(answer: Any, plan: chunks.Plan, fmt: Any, fast: bool, folder: str,
                 r: Range, verify: bool = False, place: Place | None = None) -> Any:
    """One range answered by `answer` (run.stream's, passed in: stream imports this
    module), in a worker, and written: into the output file at its place (`place`), or
    to its own part file in `folder`. Its Answered, with the bytes placed or the part's
    path instead of the text."""
    try:
        done = answer(plan, fmt, piece_of(r, plan.header, fast, verify))
        pieces = _pieces(done.out)
        if place is None:
            part = os.path.join(folder, f"part-{r.offset:012d}.csv")
            with open(part, "wb") as fh:
                fh.writelines(pieces)
            return replace(done, out=None, part=part)
        size = sum(len(piece) for piece in pieces)
        at = place.chain.start_of(r.index)
        place.chain.publish(r.index + 1, at + size)  # the next range may be placed now
    except BaseException:
        if place is not None:
            place.chain.publish(r.index + 1, None)  # no place: the next range fails too
        raise
    fd = os.open(place.output, os.O_WRONLY)
    try:
        for piece in pieces:
            while piece:
                written = os.pwrite(fd, piece, at)
                piece, at = memoryview(piece)[written:], at + written
    finally:
        os.close(fd)
    return replace(done, out=None, placed=size)


def _pieces(out: Any) -> list[Any]:
    """A chunk's text as bytes pieces (the columnar writer's patched text is several)."""
    if isinstance(out, str):
        return [out.encode("utf-8")]
    if isinstance(out, bytes):
        return [out]
    return list(out.pieces())


@dataclass(frozen=True)
class Place:
    """Where --jobs workers write their ranges straight into the output file (under its
    temporary name): each range's text at the byte where the one before it ends, which
    the worker that wrote that one publishes in `chain`, before writing it. Nothing
    joins parts afterwards."""

    output: str
    chain: Chain


class Chain:
    """Where each range's text begins in the output, published in a small file shared
    by the processes (`SLOTS` int64 slots in a ring: ranges in flight are far fewer). A
    slot holds the range's number (mod 2^16) over its start + 1, so a worker can tell a
    stale slot from its own; a start of all ones says the range before failed."""

    SLOTS = 1024
    _LOW = (1 << 47) - 1  # the start's bits; the range's number above them

    def __init__(self, path: str) -> None:
        self.path = path
        self._slots: Any = None

    @classmethod
    def create(cls, folder: str) -> Chain:
        """A new chain whose first range starts at byte 0 (in this process, before the
        ranges are handed out)."""
        path = os.path.join(folder, "chain")
        with open(path, "wb") as fh:
            fh.truncate(cls.SLOTS * 8)
        chain = cls(path)
        chain.publish(0, 0)
        return chain

    def __getstate__(self) -> dict:
        return {"path": self.path}  # each process maps the file itself

    def __setstate__(self, state: dict) -> None:
        self.path, self._slots = state["path"], None

    def slots(self) -> np.ndarray:
        if self._slots is None:
            import mmap

            with open(self.path, "r+b") as fh:
                mapped = mmap.mmap(fh.fileno(), self.SLOTS * 8)
            self._slots = np.frombuffer(mapped, np.int64)
            self._parent = os.getppid()
        return self._slots

    def publish(self, index: int, start: int | None) -> None:
        """Range `index` starts at byte `start` (None: it cannot be placed)."""
        low = self._LOW if start is None else start + 1
        self.slots()[index % self.SLOTS] = (index & 0xFFFF) << 47 | low

    def start_of(self, index: int) -> int:
        """The byte where range `index` starts, once the range before it is answered
        (a short wait at most: ranges are handed out in order, so that one started
        first)."""
        import time

        slots, pause = self.slots(), 5e-5
        while True:
            value = int(slots[index % self.SLOTS])
            if value >> 47 == index & 0xFFFF and value & self._LOW:
                if value & self._LOW == self._LOW:
                    raise GradcalcError("--points: an earlier range of rows failed",
                                        kind="internal")
                return (value & self._LOW) - 1
            if os.getppid() != self._parent:
                raise GradcalcError("--points: the run ended", kind="internal")
            time.sleep(pause)
            pause = min(pause * 2, 5e-3)


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
