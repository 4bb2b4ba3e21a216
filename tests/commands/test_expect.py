"""--expect values and expressions, tolerances and mismatch reports (commands/expect.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcalc.commands.expect import compare, expected_value
from gradcalc.commands.matrix import assemble
from gradcalc.errors import GradcalcError

EXACT = 2 * math.sin(1) + math.cos(1)


@pytest.mark.parametrize("text,value", [
    ("pi/2", math.pi / 2), ("2*sin(1)+cos(1)", EXACT), ("[1, 2]", [1, 2]),
    ("ones(2)", [1, 1]), ("nan", math.nan), ("sqrt(2)", math.sqrt(2)),
])
def test_expected_values(text, value):
    np.testing.assert_array_equal(expected_value(text), value)


@pytest.mark.parametrize("text", ["x*2", "y = 1", "__import__('os')", "[1,", "open('f')"])
def test_expected_values_refused(text):
    with pytest.raises(GradcalcError):
        expected_value(text)


def test_match_and_mismatch():
    d = {"x": np.array(EXACT)}
    assert compare("x=2*sin(1)+cos(1)", d, None).ok
    bad = compare("x=2.2232", d, None)
    assert not bad.ok
    assert "expected 2.2232, computed 2.2232442754839328, difference" in bad.text()
    assert compare("x=2.2232", d, None, rtol=1e-4).ok
    assert compare("x=2.2232", d, None, atol=1e-4).ok


def test_the_worst_entry_is_named():
    result = compare("x=[1, 2, 3]", {"x": np.array([1.0, 2.5, 3.0])}, None)
    assert result.mismatches[0].index == (1,)
    assert "x[1]: expected 2, computed 2.5, difference 0.5" in result.text()
    assert result.text(lambda v: f"{v:.1f}") == \
        "mismatch (rtol 1e-09, atol 1e-12): x[1]: expected 2.0, computed 2.5, difference 0.5"


def test_shapes_must_agree():
    result = compare("x=[1, 2]", {"x": np.array([1.0, 2.0, 3.0])}, None)
    assert "expected shape (2,), computed shape (3,)" in result.text()


def test_several_inputs_need_names_or_the_whole_matrix():
    d = {"a": np.array([2.0, 5.0]), "b": np.array([1.0, 0.0])}
    m = assemble("jacobian", "y", (2,), d, ["a", "b"], {"a": (), "b": ()})
    assert compare("a=[2,5], b=[1,0]", d, m).ok
    assert compare("[[2, 1], [5, 0]]", d, m).ok
    assert not compare("[[2, 5], [1, 0]]", d, m).ok
    with pytest.raises(GradcalcError, match="needs names"):
        compare("[1, 2]", d, None)
    with pytest.raises(GradcalcError, match="not a derivative here"):
        compare("c=1", d, m)


def test_tolerances_must_be_sane():
    with pytest.raises(GradcalcError, match="--rtol"):
        compare("x=1", {"x": np.array(1.0)}, None, rtol=-1)
