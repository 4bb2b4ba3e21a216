"""Float64 constants read back as the exact numbers they stand for.

0.5 is 1/2, 6.283185307179586 is 2π, 1.4142135623730951 is √2: the symbolic proof
(proof.py) and the printing of formulas (reading/student.py) both need it, so it sits below
them both.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import sympy as sp

#: a decimal read back exactly when its shortest form has a denominator up to this
MAX_DENOMINATOR = 10**6
#: multiples of π and e, and square roots, read back with denominators up to this
MAX_SPECIAL_DENOMINATOR = 100
#: logarithms read back exactly (ln(3), 2·ln(2), 1/ln(10))
LOG_BASES = (2, 3, 5, 6, 7, 10)


def _special(v: float) -> Any:
    """v as a small multiple of π or e or of a small integer's logarithm, or a square root
    of a small fraction, or None."""
    for const, value in ((sp.pi, math.pi), (sp.E, math.e)):
        r = Fraction(v / value).limit_denominator(MAX_SPECIAL_DENOMINATOR)
        if r and float(r) * value == v:
            return sp.Rational(r.numerator, r.denominator) * const
    for base in LOG_BASES:
        r = Fraction(v / math.log(base)).limit_denominator(MAX_SPECIAL_DENOMINATOR)
        if r and float(r) * math.log(base) == v:
            return sp.Rational(r.numerator, r.denominator) * sp.log(base)
        r = Fraction(v * math.log(base)).limit_denominator(MAX_SPECIAL_DENOMINATOR)
        if r and float(r) / math.log(base) == v:
            return sp.Rational(r.numerator, r.denominator) / sp.log(base)
    if v > 0:
        r = Fraction(v * v).limit_denominator(MAX_SPECIAL_DENOMINATOR)
        if r and math.sqrt(float(r)) == v:
            return sp.sqrt(sp.Rational(r.numerator, r.denominator))
    return None


def exact_number(v: float) -> Any:
    """A float64 constant as the exact number it stands for, where there is a short one:
    a fraction (0.5, 1/3), a multiple of π or e, a square root; else the Float itself."""
    if not math.isfinite(v):
        return sp.Float(v)
    r = Fraction(v).limit_denominator(MAX_SPECIAL_DENOMINATOR**2)
    if float(r) == v:
        return sp.Rational(r.numerator, r.denominator)
    special = _special(v)
    if special is not None:
        return special
    short = Fraction(repr(v))
    if short.denominator <= MAX_DENOMINATOR:
        return sp.Rational(short.numerator, short.denominator)
    return sp.Float(v)


#: how closely a value computed from float64 evidence (a ratio of two answers' values)
#: must agree with a closed form to be said as it: a few ulps of float64, no more
CLOSED_FORM_RTOL = 1e-11
#: the powers of e a computed value is read back as: e^k for 1 <= |k| <= this
MAX_E_POWER = 10
#: a closed form's rational multiplier: denominator up to this, numerator up to 100 times it
MAX_MULTIPLIER_DENOMINATOR = 100
#: the integers a constant plus a closed form is read back with (1 + e^3)
MAX_OFFSET = 10


@functools.cache
def _constants() -> tuple[tuple[Any, float], ...]:
    """The constants a computed number is a rational multiple of, simplest first, each
    with its float value (built once a process)."""
    powers = [sp.exp(k) for k in range(-MAX_E_POWER, MAX_E_POWER + 1) if k not in (0, 1)]
    roots = [sp.sqrt(n) for n in (2, 3, 5, 6, 7)]
    logs = [sp.log(b) for b in LOG_BASES]
    constants = [sp.pi, sp.E, *roots, *powers, *logs, *(1 / g for g in logs), 1 / sp.pi,
                 sp.pi**2]
    return tuple((c, float(c)) for c in constants)


def _multiple(v: float, c: Any, value: float, rtol: float) -> Any:
    """v as r·c for a small rational r, or None."""
    r = Fraction(v / value).limit_denominator(MAX_MULTIPLIER_DENOMINATOR)
    if r and abs(r.numerator) <= 100 * r.denominator and \
            abs(float(r) * value - v) <= rtol * abs(v):
        return sp.Rational(r.numerator, r.denominator) * c
    return None


def closed_form(v: float, rtol: float = CLOSED_FORM_RTOL) -> Any:
    """A value computed in float64 (a ratio, a difference) as the closed form it agrees
    with to `rtol`: a fraction (1/20), a rational multiple of π, e, e^k, √n or ln(n)
    (e^(-3), 3π/2, 1/ln(2)), or an integer plus one of them (1 + e^3); None if none."""
    if not math.isfinite(v) or v == 0:
        return sp.Integer(0) if v == 0 else None
    r = Fraction(v).limit_denominator(MAX_SPECIAL_DENOMINATOR * 10)
    if abs(float(r) - v) <= rtol * abs(v):
        return sp.Rational(r.numerator, r.denominator)
    for c, value in _constants():
        found = _multiple(v, c, value, rtol)
        if found is not None:
            return found
    for n in (k for k in range(-MAX_OFFSET, MAX_OFFSET + 1) if k):
        for c, value in _constants():
            if abs(n + value - v) <= rtol * abs(v):
                return n + c
    return None
