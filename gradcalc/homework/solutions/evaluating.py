"""A result's value at a point, as a textbook ends it: the point's values put into the
formula (written out, the substitution itself), then the exact value and, when that is
not a whole number or a short decimal, its decimal value (`≈`, or `=` when it is exact).

The substitution is made on the printed formula, name by name, so it reads as the formula
did: `2x·sin(x)` at x = 2 is `2·2·sin(2)`, a negative or fractional value goes in
parentheses (`(-1)^2`).
"""

from __future__ import annotations

import re
from typing import Any

import sympy as sp

from gradcalc.homework.reading.student import formula, latex

_NAME = re.compile(r"(?<![A-Za-z_\\])([A-Za-z_]\w*)(?![\w(])")
_TEX_NAME = re.compile(r"(?<![A-Za-z\\])([A-Za-z])(?![A-Za-z])")
#: a LaTeX command a value is not multiplied onto (\cdot x, \left( x, \frac x)
_OPERATOR = re.compile(r"\\(?:cdot|times|left|right|frac|sqrt|operatorname)$")


def _value_text(v: Any, tex: bool) -> str:
    text = latex(v) if tex else formula(v)
    plain = text.lstrip("-").replace(".", "")
    return text if plain.isalnum() and not text.startswith("-") else (
        rf"\left({text}\right)" if tex else f"({text})")


def put_in(text: str, values: dict[str, Any]) -> str:
    """The formula's text with each name of `values` replaced by its value (a product
    sign where the name was juxtaposed with a number, `2x` -> `2·3`)."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in values:
            return m.group(0)
        start = m.start()
        glued = start > 0 and (text[start - 1].isdigit() or text[start - 1] == ")")
        return ("·" if glued else "") + _value_text(values[name], False)
    return _NAME.sub(one, text)


def put_in_latex(tex: str, values: dict[str, Any]) -> str:
    """The same for a LaTeX formula (one-letter names; `2 x` -> `2 \\cdot 3`)."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in values:
            return m.group(0)
        before = tex[:m.start()].rstrip()
        glued = bool(before) and (before[-1].isalnum() or before[-1] in ")}") and not (
            _OPERATOR.search(before))  # 2 x y -> 2 \cdot 1 \cdot 2, not 2 \cdot 1 2
        return (r"\cdot " if glued else "") + _value_text(values[name], True)
    return _TEX_NAME.sub(one, tex)


def decimal(v: Any) -> str:
    """` ≈ 0.0911` for a value that is not a whole number, ` = 10.125` for a fraction
    that is a short decimal; '' for a whole number (or not a real number)."""
    if not v.is_number or v.is_Integer or not v.is_real:
        return ""
    try:
        d = float(sp.N(v, 20))
    except (TypeError, ValueError):
        return ""
    short = f"{d:.6g}"
    return f" = {short}" if sp.Rational(short) == v else f" ≈ {short}"


def where(values: dict[str, Any]) -> tuple[str, str]:
    """`x = 2`, or `(x, y) = (1, 2)` for several names; and in LaTeX."""
    names = list(values)
    if len(names) == 1:
        n = names[0]
        return f"{n} = {formula(values[n])}", f"{n} = {latex(values[n])}"
    return (f"({', '.join(names)}) = ({', '.join(formula(values[n]) for n in names)})",
            rf"({', '.join(names)}) = ({', '.join(latex(values[n]) for n in names)})")
