"""A class's rows as `grade` writes them while they are judged, one writer per view: lines
(JSON or plain: each row's line written at once, the summary at the end) or a table (the
readable view: rows drawn a chunk at a time under a progress bar, the summary line
below). A format's entry (`render.formats`) makes its writer; the run hands it rows and
never asks which view it is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: rows the readable view draws at a time (one table each, the header once)
DRAWN_ROWS = 500


@dataclass
class ClassSink:
    """Where a class's rows go: the streams, and what the table view needs of the file."""

    out: Any
    err: Any
    keyed: bool  # judged against a key: a problem column rather than a function
    extra_names: list[str]  # the class file's own extra columns
    chunk_rows: int | None = None  # rows drawn at a time (default DRAWN_ROWS)


class ClassLines:
    """The lines views: each row's line written as it is judged; the summary at the end."""

    #: the rows' whole results are not needed (their lines are enough)
    keeps_rows = False
    #: the rows need not be counted first (there is no progress bar)
    counts_rows = False

    def __init__(self, sink: ClassSink, end: Callable[[Any, int, Any, Any], None]) -> None:
        self.sink, self._end = sink, end

    def start(self, total: int) -> None:
        """The run's rows are about to be judged (`total`: 0 when not counted)."""

    def text(self, text: str, rows: int) -> None:
        """Lines already joined (a chunk no one needed the results of)."""
        self.sink.out.write(text)

    def row(self, text: str, result: Any) -> None:
        """One judged row and its line."""
        self.sink.out.write(text)

    def flush(self) -> None:
        self.sink.out.flush()

    def end(self, summary: Any, students: int, picture: Any) -> None:
        """The summary after the last row; `picture(console)` draws the class picture
        (--summary) or is None."""
        self._end(summary, students, self.sink.out, self.sink.err)
        if picture is not None:
            from gradcalc.render.summary import draw_to

            draw_to(self.sink.err, picture)

    def close(self) -> None:
        """The run ended (or failed): nothing of the view is left on the screen."""


class ClassTable:
    """The readable view: rows drawn as tables, a chunk at a time, under a progress bar on
    a terminal; the summary line (and --summary's picture) below the last."""

    keeps_rows = True

    def __init__(self, sink: ClassSink) -> None:
        self.sink = sink
        self.waiting: list[Any] = []
        self.header = True  # the next table draws the header (only the first does)
        self.progress: Any = None

    @property
    def counts_rows(self) -> bool:
        """Whether the rows are counted first: for the progress bar, on a terminal."""
        import sys

        return sys.stderr.isatty()

    def start(self, total: int) -> None:
        from gradcalc.render.terminal import Bar
        from gradcalc.render.verdicts import PROGRESS_MIN_ROWS

        self.progress = Bar(total, "checking", PROGRESS_MIN_ROWS)

    def text(self, text: str, rows: int) -> None:
        self._advance(rows)

    def row(self, text: str, result: Any) -> None:
        self._advance(1)
        self.waiting.append(result)
        if len(self.waiting) >= (self.sink.chunk_rows or DRAWN_ROWS):
            self._draw()

    def flush(self) -> None:
        self.sink.out.flush()

    def end(self, summary: Any, students: int, picture: Any) -> None:
        from gradcalc.render.classview import summary_line
        from gradcalc.render.terminal import draw

        self.close()
        self._draw(last=True)

        def show(console: Any) -> None:
            console.print(summary_line(summary, students), soft_wrap=True)
            if picture is not None:
                picture(console)

        draw(show, self.sink.out)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()

    def _advance(self, rows: int) -> None:
        if self.progress is not None:
            self.progress.advance(rows)

    def _draw(self, last: bool = False) -> None:
        """The rows waiting, as one table (at the end, the header alone if no row came)."""
        from gradcalc.render.classview import show_rows
        from gradcalc.render.terminal import draw

        if not self.waiting and not (last and self.header):
            return
        rows, head, sink = list(self.waiting), self.header, self.sink
        self.waiting.clear()
        self.header = False
        bar = self.progress.bar if self.progress is not None else None
        if bar is not None and not last:
            bar.stop()
        draw(lambda console: show_rows(rows, sink.extra_names, sink.keyed, console,
                                       header=head), sink.out)
        if bar is not None and not last:
            bar.start()
