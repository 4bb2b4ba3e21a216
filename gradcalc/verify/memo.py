"""sympy's derivatives of one output expression, made once and reused at other points.

The check of several points of one program (the sample of a --points table) runs the
program on sympy at each point, which is cheap and exact: the expressions it builds may
depend on the point beyond its control-flow path (the branch a Piecewise twin takes, a
value that folds to a constant). Differentiating them is what costs, and what it gives
depends only on the expressions, so it is kept here, keyed by the expressions themselves
(sympy's structural equality and hash): the second point with the same output expression
differentiates nothing. The operation budget is charged exactly as the first time, so a
run that would exceed it still does, at the same step.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

#: derivative sets kept (each bounded by the check's operation budget)
SIZE = 16

_MEMO: OrderedDict[Any, tuple[dict, list[int]]] = OrderedDict()
#: derivative sets made and reused since the last `clear` (tests count work with these)
COUNTS = {"made": 0, "reused": 0}


def clear() -> None:
    _MEMO.clear()
    COUNTS.update(made=0, reused=0)


def derivatives(what: str, make: Callable[..., dict], target: np.ndarray,
                symbols: dict[str, np.ndarray], spend: Callable[[int], None]) -> dict:
    """make(target, symbols, spend) (sympy's `derivative_exprs` or `hessian_exprs`), or
    the same result kept from an earlier point, with its budget charges repeated."""
    target = np.asarray(target, dtype=object)
    key = (what, target.shape, tuple(target.flat),
           tuple((n, s.shape, tuple(s.flat)) for n, s in symbols.items()))
    try:
        hit = _MEMO.get(key)
    except TypeError:  # an entry that cannot be hashed: nothing is kept
        return make(target, symbols, spend)
    if hit is not None:
        _MEMO.move_to_end(key)
        result, charges = hit
        COUNTS["reused"] += 1
        for n in charges:
            spend(n)
        return dict(result)
    charges: list[int] = []

    def charge(n: int) -> None:
        charges.append(n)
        spend(n)

    result = make(target, symbols, charge)
    COUNTS["made"] += 1
    _MEMO[key] = (result, charges)
    while len(_MEMO) > SIZE:
        _MEMO.popitem(last=False)
    return dict(result)
