"""Fixtures of the engine's tests."""

from __future__ import annotations

import pytest

from gradcalc.engine import fused


@pytest.fixture
def kernels_made(monkeypatch: pytest.MonkeyPatch) -> list[fused.Kernel]:
    """Every fused.Kernel made while the test runs, in the order made."""
    made: list[fused.Kernel] = []
    original = fused.Kernel.__init__

    def kept(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(fused.Kernel, "__init__", kept)
    return made
