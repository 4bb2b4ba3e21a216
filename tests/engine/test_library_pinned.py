"""The library ops against PyTorch's values pinned without torch: for every case of
tests/library_cases.py, gradcalc gives the values, shapes, dtypes, printout (integer and
boolean results) and gradients that torch 2.13.0 gave in float64 (tests/library_pinned.py,
written by tests/pin_library.py), or raises the same built-in class with the same first
words."""

from __future__ import annotations

import numpy as np
import pytest
from library_cases import CASES, observe
from library_pinned import PINNED

START = 24  # the characters of PyTorch's message an error must begin with


def close(actual: object, expected: object) -> bool:
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    return a.shape == e.shape and bool(
        np.allclose(a, e, rtol=1e-12, atol=1e-12, equal_nan=True))


def test_every_case_is_pinned():
    assert sorted(CASES) == sorted(PINNED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_agrees_with_pytorch(name):
    expected, actual = PINNED[name], observe("gradcalc", name)
    if "error" in expected:
        assert "error" in actual, f"PyTorch raises {expected['error']}; gradcalc gave {actual}"
        (kind, words), (got_kind, got_words) = expected["error"], actual["error"]
        assert got_kind == kind, (got_kind, got_words)
        assert got_words.startswith(words[:START]), (got_words, words)
        return
    assert "error" not in actual, actual["error"]
    assert len(actual["out"]) == len(expected["out"])
    for got, want in zip(actual["out"], expected["out"], strict=True):
        assert (got["shape"], got["dtype"]) == (want["shape"], want["dtype"])
        assert close(got["values"], want["values"]), (got["values"], want["values"])
        assert got.get("print") == want.get("print")
    assert (actual["grads"] is None) == (expected["grads"] is None)
    for leaf, want in (expected["grads"] or {}).items():
        got = actual["grads"][leaf]
        assert (got is None) == (want is None), leaf
        assert want is None or close(got, want), (leaf, got, want)
