"""The fast extra's CSV writer (render/fast_rows.py): the default writer's bytes, with
no pass over the chunk beyond polars' own but the few odd cells'."""

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


def test_odd_cells_are_written_from_the_chunks_own_matrix(monkeypatch):
    """polars is handed the chunk's matrix itself (its odd cells set to nan), not a copy
    with nulls, and nothing else is formatted by polars."""
    values = np.array([1.5, 1e-7, np.nan, 2.0, -np.inf, 0.25, 3e12, -0.0])
    made, handed = [], []
    real_matrix, real_from = fast_rows.matrix, pl.from_numpy
    monkeypatch.setattr(fast_rows, "matrix", lambda r: made.append(real_matrix(r)) or made[-1])
    monkeypatch.setattr(pl, "from_numpy", lambda a, *k, **kw: handed.append(a)
                        or real_from(a, *k, **kw))
    text = bytes(fast_rows.csv_text(result_of(values))).decode()
    assert len(handed) == 1 and handed[0] is made[0]
    assert text.splitlines() == [f"{number(v)},{number(2 * v)},{number(3 * v)}"
                                 for v in values]


def test_a_mark_is_found_past_the_last_one():
    """Each odd cell's NaN is found once (NaN has two N's): cells side by side."""
    values = np.array([1e-9, 1e-8, 0.5, 1e20])
    text = bytes(fast_rows.csv_text(result_of(values))).decode()
    assert text.splitlines() == [f"{number(v)},{number(2 * v)},{number(3 * v)}"
                                 for v in values]
