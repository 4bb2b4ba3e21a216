"""A --points table's rows writer: what a row format (`render.formats`) tells a run about
how its rows are produced and stored. `TextRows` writes text (CSV, --plain rows, JSON
lines) that goes to a stream or a file and joins by concatenation; `ArrowRows` writes
Arrow tables to a Parquet file or a folder of parts. `run/` asks the writer, never the
format's flags.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradcalc.errors import GradcalcError


@dataclass(frozen=True)
class TextRows:
    """Rows written as text: `chunk_of(result, first, quick)` writes a chunk;
    `checks_inline`: the rows carry their own check (JSON lines), so it runs as the chunk
    is answered and the table is read as text; `quickens`: a columnar writer gives the
    same text faster where the fast extra is installed."""

    name: str
    chunk_of: Callable[[Any, bool, bool], Any]
    checks_inline: bool = False
    quickens: bool = False
    ending = ".part"  # a partition's file, before the parts are joined

    def chunk(self, result: Any, first: bool, quick: bool) -> Any:
        """A chunk of answered rows, written (`quick`: through the columnar writer)."""
        return self.chunk_of(result, first, quick)

    def quick(self, installed: bool) -> bool:
        """Whether chunks go through the columnar writer (the fast extra `installed`)."""
        return self.quickens and installed

    def reads_columnar(self, installed: bool) -> bool:
        """Whether the table may be read by the columnar reader (the fast extra
        `installed`): not for rows that carry their check, which read it as text."""
        return installed and not self.checks_inline

    def require(self, installed: bool) -> None:
        """A usage error when these rows need the fast extra and it is not `installed`."""

    def by_ranges(self) -> bool:
        """Whether --jobs workers may write byte ranges of the output themselves."""
        return True

    def printable(self) -> bool:
        """Whether a chunk can go to standard output."""
        return True

    def open(self, temp: str) -> RowsFile:
        """The output file, written at `temp` until it is committed."""
        return RowsFile(temp)

    def join_parts(self, workdir: str, parts: list[str | None], output: str) -> None:
        """A cluster's partitions' files (in `workdir`) into place: joined in order."""
        joined = os.path.join(workdir, "joined")
        with open(joined, "wb") as out:
            for part in parts:
                assert part is not None
                with open(part, "rb") as fh:
                    shutil.copyfileobj(fh, out, 1 << 22)
        os.replace(joined, output)
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass(frozen=True)
class ArrowRows(TextRows):
    """Rows written as Arrow tables, to a Parquet file (the fast extra), never to a
    stream; a cluster's parts are the Parquet folder itself."""

    ending = ".parquet"

    def require(self, installed: bool) -> None:
        if not installed:
            raise GradcalcError("--output FILE.parquet needs the fast extra: "
                                "pip install 'gradcalc[fast]'", kind="usage")

    def by_ranges(self) -> bool:
        return False

    def printable(self) -> bool:
        return False

    def open(self, temp: str) -> RowsFile:
        return ParquetFile(temp)

    def join_parts(self, workdir: str, parts: list[str | None], output: str) -> None:
        if os.path.isdir(output):
            shutil.rmtree(output)
        os.replace(workdir, output)


class RowsFile:
    """A text output file being written under a temporary name beside its final one."""

    def __init__(self, temp: str) -> None:
        self.temp = temp
        self.fh: Any = open(temp, "wb")  # noqa: SIM115

    def write(self, out: Any) -> None:
        if isinstance(out, (str, bytes)):
            self.fh.write(out if isinstance(out, bytes) else out.encode("utf-8"))
        else:  # the columnar writer's patched text, in pieces
            self.fh.writelines(out.pieces())

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()

    def commit(self, final: str) -> None:
        self.close()
        os.replace(self.temp, final)

    def abandon(self) -> None:
        try:
            self.close()
        finally:
            if os.path.exists(self.temp):
                os.unlink(self.temp)


class ParquetFile(RowsFile):
    """A Parquet output file (Arrow tables) being written under a temporary name."""

    def __init__(self, temp: str) -> None:
        self.temp, self.fh = temp, None
        self.writer: Any = None

    def write(self, out: Any) -> None:
        if self.writer is None:
            import pyarrow.parquet as pq

            self.writer = pq.ParquetWriter(self.temp, out.schema)
        self.writer.write_table(out)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
