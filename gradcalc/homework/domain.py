"""Where a problem is judged: a domain such as `x > 0`, `-1 < x < 1`, `x in [1, 10]`
or `x > 0, y > 0` (`--domain`, a key's `domain` column), read into one interval per
variable, and the points drawn inside it.

Without a domain an answer is judged on the function's whole real domain, every part of
it (STACK's default); a domain restricts the judging to where it holds, as a WeBWorK
problem's limits do. The ends are values read by gradcalc's own value parser
(`gradcalc.language.values`: `pi`, `sqrt(2)`, `-1/2`, `inf`), never by sympy.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.limits import DEFAULT_LIMITS, Limits


@dataclass(frozen=True)
class Bound:
    """One variable's interval of a domain: `low < name < high`, each end as typed
    (None: unbounded) and as a float (±inf when unbounded), open or closed."""

    name: str
    low_text: str | None = None
    high_text: str | None = None
    low: float = -math.inf
    high: float = math.inf
    low_closed: bool = False
    high_closed: bool = False

    @property
    def text(self) -> str:
        """`x > 0`, `-1 < x < 1`, `1 <= x <= 10`: the canonical text (it reads back)."""
        lo = "<=" if self.low_closed else "<"
        hi = "<=" if self.high_closed else "<"
        if self.low_text is None:
            return f"{self.name} {hi} {self.high_text}" if self.high_text else self.name
        if self.high_text is None:
            return f"{self.name} {lo.replace('<', '>')} {self.low_text}"
        return f"{self.low_text} {lo} {self.name} {hi} {self.high_text}"


#: the comparisons a domain's condition may use, and what each is read as
_COMPARISONS = {"<": "<", "<=": "<=", "=<": "<=", "≤": "<=", ">": ">", ">=": ">=",
                "=>": ">=", "≥": ">="}
_COMPARISON = re.compile(r"(<=|>=|=<|=>|≤|≥|<|>)")
_INTERVAL = re.compile(r"(?P<name>[^\W\d]\w*)\s*(?:\bin\b|∈)\s*(?P<open>[\[(])(?P<body>.*)"
                       r"(?P<close>[\])])", re.S)
_VARIABLE = re.compile(r"[^\W\d]\w*")
#: names that are a bound's constants, not a domain's variable
_CONSTANT_NAMES = frozenset({"pi", "π", "e", "E", "inf", "oo"})
_DOMAIN_HELP = "write conditions such as x > 0, -1 < x < 1 or x in [1, 10]"


@lru_cache(maxsize=256)
def read_domain(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[Bound, ...]:
    """'x > 0, -1 < y <= 1' or 'x in [1, 10]' -> one Bound per variable (conditions on
    one variable intersected); GradcalcError (usage) when the text is not a domain or
    an interval is empty. Bounds are values read by gradcalc's own value parser."""
    from gradcalc.language.text import quote
    from gradcalc.language.values import split_top_level

    bounds: dict[str, Bound] = {}
    pieces = [p.strip() for part in split_top_level(text.replace(";", ","))
              for p in re.split(r"\s+and\s+|&", part)]
    for piece in [p for p in pieces if p]:
        bound = _interval(piece, limits) or _chain(piece, limits)
        old = bounds.get(bound.name)
        bounds[bound.name] = bound if old is None else _both(old, bound)
    if not bounds:
        raise GradcalcError(f"--domain {quote(text)}: {_DOMAIN_HELP}", kind="usage")
    for b in bounds.values():
        if b.low > b.high or b.low == b.high and not (b.low_closed and b.high_closed):
            raise GradcalcError(f"--domain {quote(text)}: no value of {b.name} satisfies it",
                                kind="usage")
        if b.low == b.high:
            raise GradcalcError(f"--domain {quote(text)}: {b.name} is a single value: hold "
                                f"it there with --at {b.name}={b.low_text}", kind="usage")
    return tuple(bounds.values())


def _value(text: str, piece: str, limits: Limits) -> tuple[str | None, float]:
    """A bound's text (None when infinite) and value."""
    from gradcalc.language.text import quote
    from gradcalc.language.values import parse_value

    shown = " ".join(text.split())
    typed = shown.replace("∞", "inf").replace("oo", "inf")
    try:
        v = parse_value(typed, option="--domain", limits=limits)
    except GradcalcError as exc:
        raise GradcalcError(f"--domain {quote(piece)}: {shown!r} is not a number "
                            f"({exc.message})", kind="usage") from None
    if v.shape != () or math.isnan(float(v)):
        raise GradcalcError(f"--domain {quote(piece)}: {shown!r} is not a number",
                            kind="usage")
    return (None if math.isinf(float(v)) else shown), float(v)


def _interval(piece: str, limits: Limits) -> Bound | None:
    """`x in [a, b]`, `x ∈ (a, b]` (None when the piece is not of that form)."""
    from gradcalc.language.text import quote
    from gradcalc.language.values import split_top_level

    m = _INTERVAL.fullmatch(piece)
    if m is None:
        return None
    ends = split_top_level(m["body"])
    if len(ends) != 2:
        raise GradcalcError(f"--domain {quote(piece)}: an interval has two ends, e.g. "
                            "x in [1, 10]", kind="usage")
    (lo_text, lo), (hi_text, hi) = (_value(e, piece, limits) for e in ends)
    return Bound(m["name"], lo_text, hi_text, lo, hi, m["open"] == "[" and lo_text is not None,
                 m["close"] == "]" and hi_text is not None)


def _chain(piece: str, limits: Limits) -> Bound:
    """`x > a`, `a <= x`, `a < x < b`, `b > x >= a`."""
    from gradcalc.language.text import quote

    parts = [p.strip() for p in _COMPARISON.split(piece)]
    ops = [_COMPARISONS[o] for o in parts[1::2]]
    terms = parts[0::2]
    names = [k for k, t in enumerate(terms) if _VARIABLE.fullmatch(t) and
             t not in _CONSTANT_NAMES]
    if len(terms) not in (2, 3) or len(names) != 1 or len(terms) == 3 and (
            names != [1] or len({o[0] for o in ops}) != 1):
        raise GradcalcError(f"--domain {quote(piece)}: {_DOMAIN_HELP}", kind="usage")
    at = names[0]
    name = terms[at]
    if ops[0][0] == ">":  # b > x > a is a < x < b
        terms, ops, at = terms[::-1], [o.replace(">", "<") for o in ops[::-1]], \
            len(terms) - 1 - at
    bound = Bound(name)
    for k, t in enumerate(terms):
        if k == at:
            continue
        text, v = _value(t, piece, limits)
        closed = ops[min(k, at)] == "<=" and text is not None
        if k < at:  # t < name
            bound = Bound(name, text, bound.high_text, v, bound.high, closed,
                          bound.high_closed)
        else:
            bound = Bound(name, bound.low_text, text, bound.low, v, bound.low_closed, closed)
    return bound


def _both(a: Bound, b: Bound) -> Bound:
    """The intersection of two intervals of one variable."""
    lo = max((a, b), key=lambda x: (x.low, not x.low_closed))
    hi = min((a, b), key=lambda x: (x.high, x.high_closed))
    return Bound(a.name, lo.low_text, hi.high_text, lo.low, hi.high, lo.low_closed,
                 hi.high_closed)


# --------------------------------------------------------------------------- judging there


def shown(bounds: tuple[Bound, ...]) -> str:
    """The domain as a reader writes it: `x > 0`, `1 ≤ x ≤ 10`, `x > 0, y > 0`."""
    return ", ".join(b.text for b in bounds).replace("<=", "≤").replace(">=", "≥")


def check_names(bounds: tuple[Bound, ...], inputs: tuple[str, ...],
                pinned: tuple[tuple[str, float], ...] = ()) -> None:
    """GradcalcError (usage) when the domain names a variable the function does not use,
    or holds an input (`--at`) at a value outside it."""
    from gradcalc.language.text import quote

    held = dict(pinned)
    for b in bounds:
        if b.name not in inputs:
            raise GradcalcError(f"--domain {quote(b.text)}: the function does not use "
                                f"{quote(b.name)} (its inputs: {', '.join(inputs)})",
                                kind="usage")
        if b.name in held and not bool(inside({b.name: np.array([held[b.name]])},
                                              (b,))[0]):
            raise GradcalcError(f"--at {b.name}={held[b.name]:g} is outside --domain "
                                f"{quote(b.text)}", kind="usage")


def inside(points: dict[str, np.ndarray], bounds: tuple[Bound, ...]) -> np.ndarray:
    """Per point: whether it lies in the domain."""
    k = len(next(iter(points.values())))
    ok = np.ones(k, dtype=bool)
    for b in bounds:
        v = points.get(b.name)
        if v is None:
            continue
        ok &= (v >= b.low) if b.low_closed else (v > b.low)
        ok &= (v <= b.high) if b.high_closed else (v < b.high)
    return ok


def draw(rng: np.random.Generator, bound: Bound, spread: np.ndarray) -> np.ndarray:
    """Draws inside one variable's interval: from an end outwards by the magnitudes of
    `spread` (several scales, as without a domain) when the other end is open; between
    two ends, uniformly and near either end."""
    size = np.abs(spread)
    if math.isinf(bound.low) and math.isinf(bound.high):
        return spread
    if math.isinf(bound.high):
        out = bound.low + size
    elif math.isinf(bound.low):
        out = bound.high - size
    else:
        count = len(spread)
        u = rng.random(count)
        near = rng.random(count) < 0.25  # a quarter near an end: 1e-4 to 1 of the width
        t = np.where(near, 10 ** rng.uniform(-4, 0, count) / 2, u)
        t = np.where(near & (rng.random(count) < 0.5), 1 - t, t)
        out = bound.low + (bound.high - bound.low) * t
    # rounding may land on an open end (a narrow interval far from 0): step inside
    low = bound.low if bound.low_closed else np.nextafter(bound.low, math.inf)
    high = bound.high if bound.high_closed else np.nextafter(bound.high, -math.inf)
    return np.clip(out, low, high)


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """np.unique of values without nan, without its import of numpy.ma (start-up time)."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


#: the probes of a variable without a domain: a fine grid near 0 and magnitudes far out
_GRID = np.linspace(-10, 10, 161)
_FAR = 10 ** np.linspace(-3, 4, 36)
PROBES = _sorted_distinct(np.concatenate([_GRID, _FAR, -_FAR]))


def probes(bound: Bound | None) -> np.ndarray:
    """Fixed points that meet every part of a variable's domain wider than a grid step
    near 0 (whatever the seed's draws met): the same grid and magnitudes as without a
    domain, moved inside its interval."""
    if bound is None or math.isinf(bound.low) and math.isinf(bound.high):
        return PROBES
    if math.isinf(bound.high):
        return bound.low + np.concatenate([_FAR, _GRID[_GRID > 0]])
    if math.isinf(bound.low):
        return bound.high - np.concatenate([_FAR, _GRID[_GRID > 0]])
    return np.linspace(bound.low, bound.high, len(_GRID) + 2)[1:-1]
