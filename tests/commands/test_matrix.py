"""Several inputs' blocks as one matrix (commands/matrix.py, render/matrix_rows.py)."""

from __future__ import annotations

import numpy as np

from gradcalc.commands.matrix import assemble, entry_labels
from gradcalc.render.digits import Numbers
from gradcalc.render.matrix_rows import labelled_rows, plain_rows


def test_entry_labels():
    assert entry_labels("x", ()) == ["x"]
    assert entry_labels("A", (2, 2)) == ["A[0,0]", "A[0,1]", "A[1,0]", "A[1,1]"]


def test_jacobian_rows_are_outputs_and_columns_inputs():
    m = assemble("jacobian", "y", (2,), {"a": np.array([2.0, 5.0]), "b": np.array([1.0, 0.0])},
                 ["a", "b"], {"a": (), "b": ()})
    assert m.values.tolist() == [[2, 1], [5, 0]]
    assert m.rows == ["y[0]", "y[1]"] and m.columns == ["a", "b"]
    assert plain_rows(m, Numbers()) == ["2 1", "5 0"]
    assert labelled_rows(m, Numbers()) == ["      a  b", "y[0]  2  1", "y[1]  5  0"]


def test_matrix_inputs_flatten_row_major():
    d = {"A": np.arange(8.0).reshape(2, 2, 2), "v": np.array([[1.0, 2.0], [3.0, 4.0]])}
    m = assemble("jacobian", "y", (2,), d, ["v", "A"], {"A": (2, 2), "v": (2,)})
    assert m.values.tolist() == [[1, 2, 0, 1, 2, 3], [3, 4, 4, 5, 6, 7]]
    assert m.columns == ["v[0]", "v[1]", "A[0,0]", "A[0,1]", "A[1,0]", "A[1,1]"]


def test_hessian_blocks_make_one_symmetric_matrix():
    d = {"a,a": np.array(4.0), "a,b": np.array([1.0, 2.0]), "b,a": np.array([1.0, 2.0]),
         "b,b": np.eye(2)}
    m = assemble("hessian", "y", (), d, ["a", "b"], {"a": (), "b": (2,)})
    assert m.values.tolist() == [[4, 1, 2], [1, 1, 0], [2, 0, 1]]
    assert m.rows == m.columns == ["a", "b[0]", "b[1]"]


def test_gradient_is_one_row():
    m = assemble("grad", "y", (), {"a": np.array(3.0), "b": np.array([2.0, 1.0])}, ["a", "b"],
                 {"a": (), "b": (2,)})
    assert m.values.tolist() == [[3, 2, 1]] and m.rows == ["y"]
