"""The primitives' public functions in one namespace: `ops.sin(x)`, `ops.sum(x, axis)`.

Every name here comes from the registry (gradcalc.engine.table registers the entries), plus
the shape helpers the rules share (gradcalc.engine.shapes). `PRIMITIVES` is the table,
`FUNCTIONS` the language's function table (name -> (function, (least, most) arguments)).
A primitive registered later (`table.register`) is found here too, by name.
"""

from __future__ import annotations

from typing import Any

from gradcalc.engine import table
from gradcalc.engine.primitive import FUNCTIONS, PRIMITIVES, Kink, Prim, apply, fn
from gradcalc.engine.shapes import (
    batch_of,
    count,
    dims,
    expand,
    ndim,
    normalize_axis,
    ones,
    shape,
    swap_last,
    unbroadcast,
    unsqueeze,
    value,
    zeros,
)
from gradcalc.engine.table import dot, register, unregister

globals().update(dict(fn))  # the table's functions as module names (fast to look up)


def __getattr__(name: str) -> Any:
    """A registered primitive's function (`ops.sin`), found at call time."""
    try:
        return getattr(fn, name)
    except AttributeError:
        raise AttributeError(f"module 'gradcalc.engine.ops' has no attribute {name!r}") from None


def primitive_of(name: str) -> Prim | None:
    """The entry behind a primitive's or a language function's name (an alias too)."""
    if name in PRIMITIVES:
        return PRIMITIVES[name]
    found = FUNCTIONS.get(name)
    return None if found is None else PRIMITIVES.get(found[0].__name__)


def elementwise(name: str) -> bool:
    """Whether `name` acts element by element (broadcasting its operands)."""
    prim = primitive_of(name)
    return prim is not None and prim.elementwise


def takes_axis(name: str) -> bool:
    """Whether the language function `name` takes `axis` (second argument, or `axis=`)."""
    prim = primitive_of(name)
    return prim is not None and prim.axis


__all__ = [
    "FUNCTIONS", "PRIMITIVES", "Kink", "Prim", "apply", "fn", "table", "register",
    "unregister", "dot", "batch_of", "count", "dims", "expand", "ndim", "normalize_axis",
    "ones", "shape", "swap_last", "unbroadcast", "unsqueeze", "value", "zeros",
    "elementwise", "takes_axis", "primitive_of", *dict(fn),
]
