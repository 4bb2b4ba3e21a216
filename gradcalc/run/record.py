"""A run as one record, built once from the command line: where its input comes from
(`source`), where its output goes (`Sink`: the format, the streams, an output file), the
engine that runs it (`run.engines`: this machine or a Dask cluster) and its options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradcalc.render.formats import Format


@dataclass(frozen=True)
class Sink:
    """Where a run's output goes: its format, standard output and error (or a test's
    streams), and the file its rows are written to (--output; None: standard output)."""

    fmt: Format
    out: Any
    err: Any
    output: str | None = None


@dataclass(frozen=True)
class Options:
    """How a run shares its work out: --jobs processes, --chunk-rows rows at a time (None:
    the command's default), the Dask scheduler's address (None: a local cluster)."""

    jobs: int = 1
    chunk_rows: int | None = None
    scheduler: str | None = None


@dataclass(frozen=True)
class Run:
    """One run: its source (a file, a glob, a folder or '-'), its sink, its engine's name
    (`run.engines.ENGINES`) and its options."""

    source: str
    sink: Sink
    engine: str = "local"
    options: Options = Options()
