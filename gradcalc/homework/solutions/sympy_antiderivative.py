"""sympy's own antiderivative, for an integral the rules give no steps for: found by
`sympy.integrate` and kept only when differentiating it back gives the integrand.

Bounded by counted work, never by time: every Python function call sympy makes is
counted (`sys.setprofile`, sympy's cache cleared first so a run never profits from an
earlier one), and the search stops after `MAX_SYMPY_CALLS`, the same count on a busy
machine as on an idle one. Imports are not counted, and sympy's tables built once a
process (meijerg's, the polynomial domains') are built before the first count by a few
integrals run uncounted (`WARM_UP`). The integrand must also be at most
`MAX_INTEGRAND_OPS` operations. One caveat, documented: Python's string hashing
(different in every process) changes the order sympy visits some sets in, and a few
least-recently-used caches of sympy's are not cleared, so the count of one integral
varies by up to about 2% between processes; only an integral within that of the limit
can be found in one run and not in another.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import sympy as sp

#: the Python function calls one antiderivative (and its check) may make inside sympy
MAX_SYMPY_CALLS = 1_500_000
#: the largest integrand (sympy's count_ops) handed to sympy's integrate
MAX_INTEGRAND_OPS = 40


_WARM: list[bool] = []


def _warm_up() -> None:
    """Build sympy's once-a-process tables (uncounted), so counts do not include them."""
    if not _WARM:
        x = sp.Symbol("x", real=True)
        for f in (sp.sin(x) / x, sp.exp(-x**2), x * sp.exp(x) / (x + 1) ** 2):
            sp.integrate(f, x)
        _WARM.append(True)


class _OverCount(Exception):
    """sympy made more calls than the bound allows."""


def counted(work: Callable[[], Any], calls: int | None = None) -> tuple[Any, int]:
    """(work's result, the Python calls it made), or (None, calls + 1) when it makes more
    than `calls` (`MAX_SYMPY_CALLS` by default); sympy's cache is cleared first, so the
    count does not depend on what ran before."""
    calls = MAX_SYMPY_CALLS if calls is None else calls
    made, importing = 0, 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal made, importing
        code = frame.f_code
        if code.co_name == "<module>" or code.co_filename.startswith("<frozen"):
            importing += {"call": 1, "return": -1}.get(event, 0)  # once a process
        elif event == "call" and not importing:
            made += 1
            if made > calls:
                raise _OverCount

    _warm_up()
    earlier = sys.getprofile()
    sp.core.cache.clear_cache()
    sys.setprofile(count)
    try:
        return work(), made
    except _OverCount:
        return None, made
    finally:
        sys.setprofile(earlier)


def antiderivative(f: Any, x: Any) -> tuple[Any, str]:
    """(F, '') with F' = f, or (None, why not)."""
    if sp.count_ops(f) > MAX_INTEGRAND_OPS:
        return None, "an integrand this large"

    def found() -> Any:
        F = sp.integrate(f, x)
        if isinstance(F, sp.Piecewise):  # sympy's cases: the generic one first
            F = F.args[0][0]
        if F.has(sp.Integral) or not F.free_symbols <= {x} or F.has(sp.Dummy):
            return None
        return F if sp.simplify(sp.diff(F, x) - f) == 0 else False

    try:
        F, made = counted(found)
    except (ValueError, TypeError, NotImplementedError, AttributeError, RecursionError):
        return None, "sympy finds none"
    if made > MAX_SYMPY_CALLS:
        return None, f"sympy finds none within {MAX_SYMPY_CALLS:,} counted calls"
    if F is None:
        return None, "sympy finds none"
    if F is False:
        return None, "sympy's does not differentiate back to f"
    return F, ""
