"""sympy's own antiderivative, for an integral the rules give no steps for: found by
`sympy.integrate` and kept only when differentiating it back gives the integrand.

Bounded by counted work, never by time, and exactly reproducible: the search and its
check run in a fresh process (`gradcalc.verify.counted`: fixed string hashing, sympy's
random generators seeded, nothing kept from earlier work), every Python function call
counted, and it is stopped after `MAX_SYMPY_CALLS`; the same integral makes the same
count in every run, on a busy machine as on an idle one, so it is found, or refused, the
same everywhere. Imports, equality tests and sympy's tables built once a process (by a
few integrals run first, uncounted: `warm_up`) are not counted. The integrand must also
be at most `MAX_INTEGRAND_OPS` operations.
"""


from __future__ import annotations

from typing import Any

import sympy as sp

from gradcalc.verify import counted

#: the Python function calls one antiderivative (and its check) may make inside sympy
MAX_SYMPY_CALLS = 1_500_000
#: the largest integrand (sympy's count_ops) handed to sympy's integrate
MAX_INTEGRAND_OPS = 40
#: what sympy's search may raise: no antiderivative from it
SYMPY_FAILS = (ValueError, TypeError, NotImplementedError, AttributeError, RecursionError)


def warm_up() -> None:
    """Build sympy's once-a-process tables (uncounted), so counts do not include them."""
    x = sp.Symbol("x", real=True)
    for f in (sp.sin(x) / x, sp.exp(-x**2), x * sp.exp(x) / (x + 1) ** 2):
        sp.integrate(f, x)


def verified(f: Any, x: Any) -> Any:
    """sympy's antiderivative of f when it differentiates back to f; None when sympy has
    none (or one with an unevaluated integral, another name, or sympy's own symbol),
    False when it does not differentiate back."""
    F = sp.integrate(f, x)
    if isinstance(F, sp.Piecewise):  # sympy's cases: the generic one first
        F = F.args[0][0]
    if F.has(sp.Integral) or not F.free_symbols <= {x} or F.has(sp.Dummy):
        return None
    return F if sp.simplify(sp.diff(F, x) - f) == 0 else False


def search(f: Any, x: Any, calls: int | None = None) -> counted.Counted:
    """`verified(f, x)` counted (`gradcalc.verify.counted`), stopped past `calls` calls
    (`MAX_SYMPY_CALLS` by default)."""
    limit = MAX_SYMPY_CALLS if calls is None else calls
    return counted.run(verified, f, x, calls=limit, warm=warm_up)


def antiderivative(f: Any, x: Any) -> tuple[Any, str]:
    """(F, '') with F' = f, or (None, why not)."""
    if sp.count_ops(f) > MAX_INTEGRAND_OPS:
        return None, "an integrand this large"
    try:
        done = search(f, x)
    except SYMPY_FAILS:
        return None, "sympy finds none"
    except counted.ChildFailed as failed:  # the machine's doing, not sympy's: said so
        return None, f"sympy's search did not finish ({failed})"
    if done.over:
        return None, f"sympy finds none within {MAX_SYMPY_CALLS:,} counted calls"
    if done.result is None:
        return None, "sympy finds none"
    if done.result is False:
        return None, "sympy's does not differentiate back to f"
    return done.result, ""
