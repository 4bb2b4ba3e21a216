"""How numbers read in the readable and plain views: rounded for people, in full on request.

The rule (docs/scripting.md, "Numbers"):

- A number is shown with `digits` significant digits (15 by default: all that float64
  carries reliably), trailing zeros dropped, so `0.1 + 0.2` reads `0.3`.
- A value below 1e-15 times the scale of its array (its largest finite magnitude, and at
  least 1) reads `0`: `cos(pi/2)` is 6.1e-17 in float64, the rounding of an exact 0.
- `--digits full` turns both off: the shortest text that reads back as the same float64.

JSON is never rounded. Values shown as 0 that were not 0 are counted, so the readable
view can say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.render.numbers import number as full

#: significant digits shown by default
DEFAULT_DIGITS = 15
#: the most digits float64 needs to read back exactly
MAX_DIGITS = 17
#: a value below this times its array's scale reads as 0
ZERO_TOLERANCE = 1e-15


def parse_digits(text: str | int | None) -> int | None:
    """--digits: a count of significant digits (1 to 17), or `full` (None: every digit)."""
    if text is None:
        return DEFAULT_DIGITS
    if isinstance(text, str) and text.strip().lower() in ("full", "all", "exact"):
        return None
    try:
        digits = int(str(text).strip())
    except ValueError:
        raise GradcalcError(f"--digits {text!r}: expected a number of significant digits "
                            f"(1 to {MAX_DIGITS}) or 'full'", kind="usage") from None
    if not 1 <= digits <= MAX_DIGITS:
        raise GradcalcError(f"--digits {digits}: expected 1 to {MAX_DIGITS} significant "
                            "digits, or 'full' for every digit", kind="usage")
    return digits


def scale_of(array: np.ndarray) -> float:
    """The largest finite magnitude in `array` (0 when there is none)."""
    a = np.abs(np.asarray(array, dtype=np.float64))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size else 0.0


@dataclass
class Numbers:
    """Formats numbers with one rule for a whole view, and counts the values shown as 0."""

    digits: int | None = DEFAULT_DIGITS
    hidden: list[float] = field(default_factory=list)  # non-zero values shown as 0

    def one(self, v: float, scale: float = 0.0) -> str:
        """`v` as text; `scale` is the largest magnitude of the array it belongs to."""
        v = float(v)
        if self.digits is None or not math.isfinite(v):
            return full(v)
        if v != 0 and abs(v) < ZERO_TOLERANCE * max(1.0, scale):
            self.hidden.append(v)
            return "0"
        text = format(v, f".{self.digits}g")
        return full(float(text)) if "e" not in text else _exponent(text)

    def rows(self, array: np.ndarray) -> list[str]:
        """An array as lines of space-separated numbers: one line per row of its last axis."""
        a = np.asarray(array, dtype=np.float64)
        scale = scale_of(a)
        if a.ndim == 0:
            return [self.one(a, scale)]
        flat = a.reshape(-1, a.shape[-1]) if a.size else a.reshape(0, 0)
        return [" ".join(self.one(v, scale) for v in row) for row in flat]

    def literal(self, array: np.ndarray) -> str:
        """An array as a nested list literal, the syntax --at accepts."""
        a = np.asarray(array, dtype=np.float64)
        scale = scale_of(a)
        return self._literal(a, scale)

    def _literal(self, a: np.ndarray, scale: float) -> str:
        if a.ndim == 0:
            return self.one(a, scale)
        return "[" + ", ".join(self._literal(sub, scale) for sub in a) + "]"

    def note(self) -> str | None:
        """What the view should say when it showed non-zero values as 0."""
        if not self.hidden:
            return None
        first = full(self.hidden[0])
        if len(self.hidden) == 1:
            what = f"a value of {first} is"
        else:
            what = f"{len(self.hidden)} values of magnitude below {ZERO_TOLERANCE:g} (first " \
                   f"{first}) are"
        return f"{what} shown as 0 (rounding noise); --digits full shows every digit"


def _exponent(text: str) -> str:
    """`6.12323399573677e-17` as Python writes exponents (`e-17`, `e+20`), trailing zeros
    of the mantissa dropped."""
    mantissa, _, exp = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    sign = "-" if exp.startswith("-") else "+"
    return f"{mantissa}e{sign}{exp.lstrip('+-').lstrip('0').rjust(2, '0')}"
