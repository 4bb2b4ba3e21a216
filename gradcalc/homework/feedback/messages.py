"""The feedback texts that several kinds of problem say alike, each written once: a sign
error, a constant factor, the function itself, a derivative for an antiderivative and back.
`of` is what the answer should have been (`the derivative`, `the gradient`, `dy/dx`);
`why` is a kind's own reminder, printed in brackets or after a colon."""

from __future__ import annotations

import math
from typing import Any


def sign_error(of: str, subject: str = "the answer", why: str = "") -> str:
    """`sign error: the answer is the negative of the derivative`."""
    return f"sign error: {subject} is the negative of {of}" + (f" ({why})" if why else "")


def times(factor: str, of: str, subject: str = "the answer") -> str:
    """`the answer is 2 times the derivative`, `... is (1 + e^3 ≈ 21.1) times ...`."""
    grouped = f"({factor})" if " + " in factor or " - " in factor or "≈" in factor \
        else factor
    return f"{subject} is {grouped} times {of}"


def constant_factor(factor: str, of: str, why: str = "") -> str:
    """`off by a constant factor: the answer is 2 times the derivative`."""
    return f"off by a constant factor: {times(factor, of)}" + (f" ({why})" if why else "")


def the_function_itself(then: str) -> str:
    """`the answer is the function itself` and what to do instead."""
    return f"the answer is the function itself{then}"


#: a derivative asked, an antiderivative given
ANTIDERIVATIVE_FOR_DERIVATIVE = ("an antiderivative of the function (its derivative is the "
                                 "function): differentiate, don't integrate")
#: an antiderivative asked, the derivative given
DERIVATIVE_FOR_ANTIDERIVATIVE = ("the answer is the derivative of the function: "
                                 "integrate, don't differentiate")


#: a fraction with a larger denominator that ends as a decimal is said as that decimal
#: (6172839/500 is 12345.678)
MAX_SAID_DENOMINATOR = 20


def number(v: float, approx: bool = True) -> str:
    """A number found by comparing values, said exactly where it is exact: 3, 1/2, π,
    √2/2, e, e^(-3), 1 + e^3, ln(2); with `approx`, a decimal beside a form whose size is
    not plain to see (e^(-3) ≈ 0.0498); 6 digits when no closed form agrees."""
    if not (math.isfinite(v) and abs(v) < 1e15):  # 1e308, not its 309 digits
        return f"{v:g}"
    if abs(v - round(v)) <= 1e-9 * max(1.0, abs(v)):
        return str(int(round(v)))
    from gradcalc.homework.exact import closed_form
    from gradcalc.homework.reading.student import formula

    exact = closed_form(v)
    if exact is None:
        return f"{v:g}"
    if exact.is_Rational:
        q = int(exact.q)
        plain = q <= MAX_SAID_DENOMINATOR or q != 2 ** _twos(q) * 5 ** _fives(q)
        return formula(exact) if plain else f"{float(exact):.15g}"
    text = formula(exact)
    return f"{text} ≈ {v:.3g}" if approx and _not_plain(exact) else text


def _twos(q: int) -> int:
    return (q & -q).bit_length() - 1


def _fives(q: int) -> int:
    k = 0
    while q % 5 == 0:
        q, k = q // 5, k + 1
    return k


def _not_plain(exact: Any) -> bool:
    """Whether a closed form's size is hard to see: a power of e other than e itself, a
    logarithm, a sum."""
    import sympy as sp

    return exact.is_Add or bool(exact.atoms(sp.log)) or any(
        p.args[0] != 1 for p in exact.atoms(sp.exp))
