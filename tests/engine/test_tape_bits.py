"""The engine's numbers stay bit for bit what they were before its speed work
(tests/engine_cases.py pinned them): gradients, Hessians, Jacobians, --points and the
library's backward, nan, inf and signed zeros included."""

from __future__ import annotations

import pytest
from engine_cases import observe
from engine_pinned import PINNED


@pytest.fixture(scope="module")
def observed() -> dict:
    return observe()


def test_the_same_cases(observed: dict) -> None:
    assert sorted(observed) == sorted(PINNED)


@pytest.mark.parametrize("case", sorted(PINNED))
def test_bit_for_bit(observed: dict, case: str) -> None:
    assert observed[case] == PINNED[case]
