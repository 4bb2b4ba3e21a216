"""The fast extra's readers (polars and pyarrow, imported only here and only when
installed): a CSV table of plain numbers (polars' streaming reader) and Parquet files
(pyarrow's), read as float64 a chunk of rows at a time, with no text parsed in Python.
`run.stream` decides when they apply (a table
its byte scan found to be plain numbers; every Parquet table) and reads everything else
itself.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.ingest.point_table import Header, header_of
from gradcalc.ingest.scan import Piece, not_plain, odd_bytes, plain_block

#: bytes of CSV parsed at a time (whole lines): 4 MiB parses a 10^6-row table in about a
#: sixth less CPU than 8 MiB (polars' parse and the byte check's pass stay in cache) and
#: about as much as 2 MiB (below which polars' start per call shows); docs/performance.md
BLOCK_BYTES = 1 << 22


def _rechunk(batches: Iterator[Any], chunk_rows: int, offset: int,
             join: Callable[[list[Any]], np.ndarray]) -> Iterator[Piece]:
    """Batches (polars frames or arrays) of any number of rows as pieces of exactly
    `chunk_rows` (the last fewer): a piece's parts are views of its batches until `join`
    makes them one array."""
    held: list[Any] = []
    count = 0
    for batch in batches:
        held.append(batch)
        count += len(batch)
        while count >= chunk_rows:
            taken, held = _split(held, chunk_rows)
            count -= chunk_rows
            yield Piece(offset, chunk_rows, data=join(taken))
            offset += chunk_rows
    if count:
        yield Piece(offset, count, data=join(held))


def _split(held: list[Any], rows: int) -> tuple[list[Any], list[Any]]:
    """The first `rows` rows of the batches `held` and the rest, as views of them."""
    taken: list[Any] = []
    for k, batch in enumerate(held):
        if len(batch) >= rows:
            rest = [batch[rows:]] if len(batch) > rows else []
            return taken + [batch[:rows]], rest + held[k + 1:]
        taken.append(batch)
        rows -= len(batch)
    return taken, []


def _frame_numbers(frames: list[Any]) -> np.ndarray:
    """A piece's frames as one column-major float64 array: the piece's only copy, and each
    input column a contiguous view of it."""
    frame = frames[0] if len(frames) == 1 else polars().concat(frames, rechunk=False)
    return frame.to_numpy(order="fortran").astype(np.float64, copy=False)


def _array_numbers(arrays: list[np.ndarray]) -> np.ndarray:
    """A piece's arrays (Parquet's row-major batches) as one row-major array."""
    return np.ascontiguousarray(np.concatenate(arrays) if len(arrays) > 1 else arrays[0])


def _columns(batch: Any, columns: list[int]) -> np.ndarray:
    return np.column_stack([batch.column(k).to_numpy(zero_copy_only=False)
                            .astype(np.float64, copy=False) for k in columns])


def csv_pieces(files: list[str], header: Header, chunk_rows: int, verify: bool = False
               ) -> Iterator[Piece]:
    """A plain-number CSV table in chunks (polars' reader), each chunk's numbers in column
    order; a cell it cannot take as a number (one that only looks like one, such as 1e)
    raises `not_plain`: the command reads the table again as text, which answers that row
    with its error in its place. With `verify`, each block's bytes are checked as the byte
    scan checks a table (for a table not scanned first), and one that is not plain numbers
    raises `not_plain`."""

    def batches(path: str) -> Iterator[Any]:
        """Blocks of whole lines parsed one at a time: memory is one block's, whatever
        the file's length (polars' own streaming reader reads ahead without bound)."""
        with open(path, "rb") as fh:
            for _ in range(header.lines):
                fh.readline()
            while block := fh.read(BLOCK_BYTES):
                if block[-1:] != b"\n":
                    block += fh.readline()  # the block's last line, whole
                frame = parse_frame(block, len(header.columns), verify)
                if frame.height:
                    yield frame

    offset = 0
    for path in files:
        for piece in _rechunk(batches(path), chunk_rows, offset, _frame_numbers):
            yield piece
            offset += piece.rows


def polars() -> Any:
    """polars, imported the first time with the garbage collector paused: none of the
    objects its import makes is garbage, and the collector's passes over them cost about
    a fifth of the import's CPU (docs/performance.md, W3)."""
    import sys

    if "polars" not in sys.modules:
        import gc

        paused = gc.isenabled()
        gc.disable()
        try:
            import polars  # noqa: F401
        finally:
            if paused:
                gc.enable()
    return sys.modules["polars"]


def parse_lines(lines: bytes, width: int, verify: bool = False) -> np.ndarray:
    """Whole lines of plain numbers, `width` to a line, as a column-major float64 array
    (polars' parser; see `parse_frame`)."""
    return _frame_numbers([parse_frame(lines, width, verify)])


def parse_frame(lines: bytes, width: int, verify: bool = False) -> Any:
    """Whole lines of plain numbers, `width` to a line, as a polars frame of float64
    columns; a cell it cannot take as a number, or (with `verify`) bytes that are not
    plain numbers as the byte scan tells them, raise `not_plain`.

    `verify` checks the bytes in one pass (only number bytes, separators and line
    breaks; the same pass finds carriage returns); what else the byte scan refuses (an
    empty cell, a blank line, a row of too few or too many cells) polars' parser tells by
    itself, as a null or an error, so the block is not scanned again. Carriage returns
    (rare) are checked as the scan checks them."""
    pl = polars()
    if verify:
        odd = odd_bytes(lines)
        if odd and (odd.count(b"\r") < len(odd) or not plain_block(lines, width)):
            raise not_plain()
    schema = {f"c{k}": pl.Float64 for k in range(width)}
    try:
        frame = pl.read_csv(io.BytesIO(lines), has_header=False, schema=schema,
                            raise_if_empty=False)
    except pl.exceptions.PolarsError:
        raise not_plain() from None
    if verify and any(column.null_count() for column in frame.iter_columns()):
        raise not_plain()  # an empty cell, a short row or a blank line
    return frame


def parquet_header(files: list[str], reads: set[str]) -> tuple[Header, int]:
    """The table's header (the first file's columns; every file must have the same) and
    its rows, from the files' metadata."""
    import pyarrow.parquet as pq

    columns: list[str] | None = None
    total = 0
    for path in files:
        try:
            meta = pq.ParquetFile(path)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is the user's input
            raise GradcalcError(f"--points: cannot read Parquet file {path!r}: {exc}",
                                kind="usage") from None
        names = meta.schema_arrow.names
        if columns is not None and names != columns:
            raise GradcalcError(f"--points: {path} has the columns {','.join(names)}, but "
                                f"{files[0]} has {','.join(columns)}", kind="usage")
        columns = columns or names
        total += meta.metadata.num_rows
    assert columns is not None
    return header_of(columns, reads=reads), total


def parquet_pieces(files: list[str], header: Header, chunk_rows: int) -> Iterator[Piece]:
    """Parquet files in chunks of rows; the input columns as float64 (a null is nan)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if len(header.inputs) != len(header.columns):
        others = [c for k, c in enumerate(header.columns) if k not in header.inputs]
        raise GradcalcError(f"--points: the Parquet columns {', '.join(others)} are not "
                            "inputs the program reads; select the input columns",
                            kind="usage")

    def batches() -> Iterator[np.ndarray]:
        for path in files:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_rows):
                try:
                    yield _columns(batch, header.inputs)
                except (pa.ArrowInvalid, TypeError, ValueError):
                    kinds = ", ".join(f"{f.name} ({f.type})" for f in batch.schema)
                    raise GradcalcError(f"--points: {path}: the input columns must be "
                                        f"numbers: {kinds}", kind="usage") from None

    yield from _rechunk(batches(), chunk_rows, 0, _array_numbers)
