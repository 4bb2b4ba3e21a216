"""The fast extra's CSV writer (render/fast_rows.py): the default writer's bytes, with
no copy of a column polars can write as it is, and the text kept in polars' pieces."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.commands.points import PointsResult
from gradcalc.ingest.point_table import PointTable
from gradcalc.render import fast_rows
from gradcalc.render.numbers import number

pl = pytest.importorskip("polars")


def result_of(values: np.ndarray) -> PointsResult:
    table = PointTable(["x"], values.reshape(-1, 1), {"x": values}, [0])
    return PointsResult("grad", "y", table, ["x"], values * 2, {"x": values * 3})


def default_text(result: PointsResult) -> str:
    """The rows as the default (Python) writer writes them, without the header row."""
    from gradcalc.render.point_rows import csv_lines

    return "".join(csv_lines(result, first=False))


EDGES = [1.5, 1e-7, np.nan, 2.0, -np.inf, 0.25, 3e12, -0.0, 0.0, 1e-4, 9.999999e-5, 1e10,
         9999999999.0, -1e10, 1e16, 5e-324, 1e-300, 1.7976931348623157e308, 100000.0, -3.0,
         123456789012.5, np.inf, 2.0**-20, 1e15]


@pytest.mark.parametrize("rotate", range(4))
def test_edge_values_are_written_as_the_default_writer_writes_them(rotate):
    """Tiny, huge, whole, zero, negative zero, nan and inf cells, in columns that also hold
    nan (whose least and greatest magnitudes are then nan) or not."""
    values = np.roll(np.array(EDGES), rotate)
    result = result_of(values)
    assert bytes(fast_rows.csv_text(result)).decode() == default_text(result)


def test_columns_without_odd_cells_reach_polars_as_views(monkeypatch):
    """A column polars can write as it is (no cell outside [1e-4, 1e10), no nan) is handed
    over as a view of the chunk's arrays; one with odd cells as a copy, the chunk's own
    arrays untouched."""
    values = np.array([1.5, 1e-7, 0.25, 3.0])
    result = result_of(values)
    result.output = np.array([1.5, 2.5, 3.5, 4.5])
    result.derivative = {"x": np.array([0.5, 1.0, 2.0, 4.0])}
    handed = []
    real = pl.DataFrame
    monkeypatch.setattr(pl, "DataFrame", lambda data, *a, **k: handed.append(data)
                        or real(data, *a, **k))
    text = bytes(fast_rows.csv_text(result)).decode()
    assert len(handed) == 1
    x, y, dx = handed[0].values()
    assert np.shares_memory(y, result.output) and np.shares_memory(dx, result.derivative["x"])
    assert not np.shares_memory(x, result.table.data) and np.isnan(x[1])
    assert result.table.data[1, 0] == 1e-7 and text == default_text(result)


def test_polars_pieces_are_kept_as_written(monkeypatch):
    """The text is the pieces polars writes (several for a long chunk), never gathered
    into one buffer; marks and whole numbers are patched in each."""
    values = np.tile(np.array([0.5, 1e-7, 2.0, 0.125, np.nan]), 30_000)
    result = result_of(values)
    written = []
    real = fast_rows.Lines.write
    monkeypatch.setattr(fast_rows.Lines, "write",
                        lambda self, data: written.append(data) or real(self, data))
    out = fast_rows.csv_text(result)
    assert len(out.texts) == len(written) > 1
    assert bytes(out).decode() == default_text(result)


def test_an_unfinished_line_waits_for_the_next_piece():
    lines = fast_rows.Lines()
    for data in (b"1,2\n3,", b"4\n5,6\n", b"7,8"):
        lines.write(data)
    assert lines.close() == [b"1,2\n", b"3,4\n5,6\n", b"7,8"]


def test_a_mark_is_found_past_the_last_one():
    """Each odd cell's NaN is found once (NaN has two N's): cells side by side."""
    values = np.array([1e-9, 1e-8, 0.5, 1e20])
    text = bytes(fast_rows.csv_text(result_of(values))).decode()
    assert text.splitlines() == [f"{number(v)},{number(2 * v)},{number(3 * v)}"
                                 for v in values]
