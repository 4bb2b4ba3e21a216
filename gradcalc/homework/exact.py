"""Float64 constants read back as the exact numbers they stand for.

0.5 is 1/2, 6.283185307179586 is 2π, 1.4142135623730951 is √2: the symbolic proof
(proof.py) and the printing of formulas (reading/student.py) both need it, so it sits below
them both.
"""

from __future__ import annotations

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
