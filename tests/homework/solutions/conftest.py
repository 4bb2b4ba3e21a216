"""Fixtures shared by the worked solutions' tests."""

from __future__ import annotations

import pytest

from gradcalc.homework.solutions import departure


@pytest.fixture
def departure_counts(monkeypatch) -> list[int]:
    """The calls each piece of a departure's counted work made, in order, as it runs,
    each counted exactly in a fresh process (none run here first)."""
    monkeypatch.setattr(departure.counted, "HERE", 10**12)
    made: list[int] = []
    real = departure.counted.run

    def recording(work, *args, calls, **given):
        done = real(work, *args, calls=calls, **given)
        made.append(done.made)
        return done

    monkeypatch.setattr(departure.counted, "run", recording)
    return made
