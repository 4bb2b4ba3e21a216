"""Entries of the table that reduce along axes beyond sum, mean, prod and norm."""

from __future__ import annotations

from typing import Any

from gradcalc.engine.primitive import Prim


def entries(reduction: Any, along: Any) -> list[Prim]:
    return []
