"""Reading a --points table's rows (tables/cells.py)."""

from __future__ import annotations

import math

import numpy as np

from gradcalc.ingest.cells import SHOW_BAD_ROWS, read_rows


def test_quoted_numbers():
    rows = read_rows('"1",2\n3," 4.5"\n', ["x", "y"], [0, 1], 2)
    assert rows.data.tolist() == [[1, 2], [3, 4.5]] and not rows.bad


def test_extra_columns_are_carried_as_text():
    rows = read_rows('q1,1,"a, b"\n007,2,c\n', ["id", "x", "label"], [1], 2)
    assert rows.data.tolist() == [[1], [2]]
    assert rows.extra == [["q1", "a, b"], ["007", "c"]]


def test_bad_rows_are_reported_in_place():
    rows = read_rows("1,2\nx,2\n\n3\n5,6\n,1\n1_0,2\n", ["x", "y"], [0, 1], 2)
    assert rows.count == 6
    assert rows.data[0].tolist() == [1, 2] and rows.data[3].tolist() == [5, 6]
    assert all(math.isnan(v) for v in rows.data[1])
    assert set(rows.bad) == {1, 2, 4, 5}
    assert rows.reason(1) == "row 2 (line 3): 'x' is not a number (column x)"
    assert rows.reason(2) == "row 3 (line 5): 1 value, but the header names 2 columns"
    assert rows.reason(4) == "row 5 (line 7): the cell is empty (column x)"
    assert "4 of 6 rows could not be read" in rows.summary()


def test_summary_shows_the_first_few():
    text = "".join("x\n" for _ in range(SHOW_BAD_ROWS + 5))
    rows = read_rows(text, ["x"], [0], 2)
    assert rows.summary().endswith("; and 5 more")


def test_nan_and_inf_are_numbers():
    rows = read_rows("nan,inf\n", ["x", "y"], [0, 1], 2)
    assert np.isnan(rows.data[0, 0]) and rows.data[0, 1] == math.inf and not rows.bad
