"""The suite's hypothesis profiles (tests/conftest.py): the same examples on every run unless
asked to explore, and then new ones, more of them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXPLORE_FACTOR, examples, exploring


def _draws() -> list[float]:
    """The examples one property test draws, in order."""
    seen: list[float] = []

    @given(st.floats(allow_nan=False))
    def record(x: float) -> None:
        seen.append(x)

    record()
    return seen


@pytest.fixture
def fixed_run():
    if exploring():
        pytest.skip("this run explores")
    yield
    settings.load_profile("fixed")


def test_every_run_draws_the_same_examples(fixed_run):
    assert _draws() == _draws()
    assert examples(60) == 60


def test_an_exploring_run_draws_new_examples_and_more_of_them(fixed_run):
    settings.load_profile("explore")
    assert exploring()
    assert _draws() != _draws()
    assert examples(60) == 60 * EXPLORE_FACTOR
