"""The language's outer() (a table function built from reshape and mul) and X.T (the
transpose, read as transpose(X)): values, derivatives against finite differences and the
symbolic check, batched points, and what stays refused."""

from __future__ import annotations

import json

import numpy as np

from gradcalc.engine import ops
from gradcalc.language.parse import parse
from gradcalc.language.program import Call, ExprStmt, Name


def test_outer_is_numpys_outer_and_differentiates():
    a, b = np.array([1.0, -2.0, 0.5]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(ops.value(ops.FUNCTIONS["outer"][0](a, b)), np.outer(a, b))


def test_outer_through_grad_is_checked_symbolically(invoke):
    r = invoke("grad", "sum(outer(x, y) * [[1, 2], [3, 4]])", "--at", "x=[1, 2], y=[3, 4]",
               "--json")
    out = json.loads(r.out)
    assert r.code == 0 and out["check"]["status"] == "pass"
    assert out["check"]["method"] == "symbolic"
    assert out["gradient"]["x"] == [11.0, 25.0] and out["gradient"]["y"] == [7.0, 10.0]


def test_outer_on_batched_points(invoke, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x[0],x[1],y[0],y[1]\n1,2,3,4\n0,1,1,0\n")
    r = invoke("grad", "sum(outer(x, y) * [[1, 2], [3, 4]])", "--points", str(path))
    assert r.code == 0
    assert r.out.splitlines()[1:] == ["1,2,3,4,61,11,25,7,10", "0,1,1,0,3,1,3,3,4"]


def test_outer_needs_vectors(invoke):
    r = invoke("grad", "sum(outer(x, 2))", "--at", "x=[1, 2]")
    assert r.code == 2 and "outer() takes two vectors" in r.err


def test_dot_t_is_the_transpose():
    (stmt,) = parse("W.T").body
    assert isinstance(stmt, ExprStmt) and isinstance(stmt.value, Call)
    assert stmt.value.func == "transpose" and isinstance(stmt.value.args[0], Name)


def test_dot_t_through_grad(invoke):
    r = invoke("grad", "sum(W.T @ x)", "--at", "W=[[1, 2], [3, 4]], x=[1, 0]", "--json")
    out = json.loads(r.out)
    assert out["gradient"]["W"] == [[1.0, 1.0], [0.0, 0.0]]
    assert out["check"]["status"] == "pass"


def test_other_attributes_stay_refused(invoke):
    r = invoke("grad", "x.foo", "--at", "x=1")
    assert r.code == 2 and "attribute access" in r.err
