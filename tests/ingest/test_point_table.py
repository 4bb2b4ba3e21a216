"""A table's header read once (ingest/point_table.py): each input's columns taken from a
chunk's numbers as views where they already lie as the engine takes them."""

from __future__ import annotations

import numpy as np

from gradcalc.ingest.cells import Rows
from gradcalc.ingest.point_table import header_of


def table_of(columns: list[str], data: np.ndarray):
    return header_of(columns).table(Rows(data, [[]] * data.shape[0]))


def test_a_column_of_column_major_numbers_is_a_view():
    data = np.asfortranarray(np.arange(12.0).reshape(4, 3))
    values = table_of(["a", "b", "c"], data).values
    for k, name in enumerate("abc"):
        assert np.shares_memory(values[name], data) and values[name].flags.c_contiguous
        assert values[name].tolist() == data[:, k].tolist()


def test_columns_not_laid_out_as_the_engine_takes_them_are_copied():
    """A column of row-major numbers (strided), or a vector's columns of column-major
    numbers, become C-contiguous copies."""
    rows = np.arange(12.0).reshape(4, 3)
    a = table_of(["a", "b", "c"], rows).values["a"]
    assert not np.shares_memory(a, rows) and a.flags.c_contiguous
    assert a.tolist() == [0.0, 3.0, 6.0, 9.0]
    x = table_of(["x[0]", "x[1]", "y"], np.asfortranarray(rows)).values["x"]
    assert x.flags.c_contiguous and x.tolist() == rows[:, :2].tolist()


def test_a_vector_of_columns_in_another_order_is_gathered():
    data = np.asfortranarray(np.arange(8.0).reshape(2, 4))
    values = table_of(["x[1]", "x[0]", "y", "z"], data).values
    assert values["x"].tolist() == [[1.0, 0.0], [5.0, 4.0]]
