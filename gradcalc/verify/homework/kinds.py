"""What a homework problem asks for: one value of settings, data only.

`Kind` holds every per-problem setting beyond "the first derivative" (its defaults are
the plain check), so one problem's settings travel as one value: the command line builds
it from its options, and a file of problems can build it from text columns with
`Kind.read` (each column named as the field, its text as the option takes it: order `2`,
partial `x,y`, at `x=2, y=1`, implicit `y`, antiderivative `true`, constant
`required|optional|forbidden`, shape `W=3x2, x=2`, integers `true`; an empty cell is the
default). The modules of each kind (order.py, implicit.py, antiderivative.py,
tensors.py) import `Kind` from here; dispatch.py, above them all, sends a problem to its
kind's module. This module imports none of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.language.parse import normalize, quote
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the highest order of derivative a check takes
MAX_ORDER = 10
CONSTANT_RULES = ("required", "optional", "forbidden")
#: the largest declared tensor (entries), and the most dimensions
MAX_ENTRIES, MAX_DIMS = 10_000, 4


@dataclass(frozen=True)
class Kind:
    """One problem's kind. Fields (each default is the plain first-derivative check):

    - order: the N-th derivative (with several wrt and order 2: the Hessian).
    - partial: a mixed partial, differentiated in this order (("x", "y") is f_xy).
    - at: inputs held at values; the answer is the derivative's value there.
    - implicit: the dependent name of an equation F = G (dy/dx by implicit
      differentiation, judged on points of the curve).
    - antiderivative: the answer's derivative must be the function; `constant` says
      whether its `+ C` is required, optional (the default) or forbidden.
    - shape: tensor inputs, name -> shape (backprop homework); `integers`: draw them as
      small integers.
    """

    order: int = 1
    partial: tuple[str, ...] = ()
    at: tuple[tuple[str, float], ...] = ()
    implicit: str | None = None
    antiderivative: bool = False
    constant: str = "optional"
    shape: tuple[tuple[str, tuple[int, ...]], ...] = ()
    integers: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.order <= MAX_ORDER:
            raise GradcalcError(f"--order {self.order}: give an order from 1 to {MAX_ORDER}",
                                kind="usage")
        if self.constant not in CONSTANT_RULES:
            raise GradcalcError(f"--constant {self.constant!r}: give one of "
                                f"{', '.join(CONSTANT_RULES)}", kind="usage")
        if self.partial and self.order != 1:
            raise GradcalcError("--partial names every differentiation; it goes without "
                                "--order", kind="usage")
        chosen = [bool(self.partial or self.order > 1 or self.at), bool(self.implicit),
                  self.antiderivative, bool(self.shape)]
        if self.antiderivative and (self.partial or self.order > 1):
            raise GradcalcError("--antiderivative goes without --order and --partial",
                                kind="usage")
        if sum(chosen[1:]) > 1:
            raise GradcalcError("--implicit, --antiderivative and --shape are different "
                                "kinds of problem: give one", kind="usage")

    @property
    def plain(self) -> bool:
        """The first derivative, gradient or Jacobian: today's check."""
        return self == Kind()

    def as_json(self) -> dict[str, Any]:
        """The settings that differ from the default, for a verdict's JSON."""
        out: dict[str, Any] = {}
        for name, default in vars(Kind()).items():
            v = getattr(self, name)
            if v != default:
                out[name] = (dict(v) if name in ("at", "shape") else
                             list(v) if isinstance(v, tuple) else v)
        return out

    @classmethod
    def read(cls, order: str | int | None = None, partial: str | None = None,
             at: str | list[str] | None = None, implicit: str | None = None,
             antiderivative: bool | str = False, constant: str | None = None,
             shape: str | None = None, integers: bool | str = False,
             limits: Limits = DEFAULT_LIMITS) -> Kind:
        """A Kind from option or column texts (None or '' is the default)."""
        return cls(order=_order(order), partial=_names(partial, "--partial"),
                   at=_at(at, limits), implicit=_name(implicit), antiderivative=_flag(
                       antiderivative), constant=(constant or "optional").strip().lower(),
                   shape=_shapes(shape), integers=_flag(integers))


def _flag(v: bool | str) -> bool:
    return v if isinstance(v, bool) else str(v).strip().lower() in ("1", "true", "yes", "y")


def _order(v: str | int | None) -> int:
    if v is None or v == "":
        return 1
    try:
        return int(v)
    except ValueError:
        raise GradcalcError(f"--order {v!r}: give a whole number, e.g. --order 2",
                            kind="usage") from None


def _option_name(text: str, option: str) -> str:
    """A name as a program's names are read (NFKC); control characters refused."""
    try:
        return normalize(text).strip()
    except GradcalcError as exc:
        raise GradcalcError(f"{option} {quote(text)}: {exc.message}", kind="usage") from None


def _name(v: str | None) -> str | None:
    if not v or not v.strip():
        return None
    return _option_name(v.strip(), "--implicit") or None


def _names(v: str | None, option: str) -> tuple[str, ...]:
    if not v or not v.strip():
        return ()
    names = tuple(_option_name(n, option) for n in v.replace(";", ",").split(","))
    if not all(names):
        raise GradcalcError(f"{option} {quote(v)}: give names separated by commas, e.g. "
                            "x,y", kind="usage")
    return names


def _at(v: str | list[str] | None, limits: Limits) -> tuple[tuple[str, float], ...]:
    if not v:
        return ()
    from gradcalc.language.values import parse_assignments

    values = parse_assignments(v, option="--at", limits=limits)
    out: list[tuple[str, Any]] = []
    for n, x in values.items():
        if not np.all(np.isfinite(x)):
            raise GradcalcError(f"--at {n}: give finite numbers", kind="usage")
        out.append((n, float(x) if x.shape == () else _frozen(x.tolist())))
    return tuple(out)


def _frozen(v: Any) -> Any:
    """Nested lists as nested tuples (a Kind is hashable)."""
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else float(v)


def _shapes(v: str | None) -> tuple[tuple[str, tuple[int, ...]], ...]:
    if not v or not v.strip():
        return ()
    return read_shapes(v)


def read_shapes(text: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """'W=3x2, x=2, s=scalar' -> (('W', (3, 2)), ('x', (2,)), ('s', ()))."""
    out: dict[str, tuple[int, ...]] = {}
    for piece in [p.strip() for p in text.split(",") if p.strip()]:
        name, sep, dims = (t.strip() for t in piece.partition("="))
        if not sep or not re.fullmatch(r"[^\W\d]\w*", name):
            raise GradcalcError(f"--shape {quote(piece)}: expected NAME=SHAPE, e.g. W=3x2",
                                kind="usage")
        if dims.lower() in ("scalar", "()", ""):
            shape: tuple[int, ...] = ()
        else:
            parts = re.split(r"\s*[x×*]\s*", dims.lower())
            if not all(p.isdigit() and 0 < int(p) for p in parts):
                raise GradcalcError(f"--shape {quote(piece)}: dimensions are whole numbers "
                                    "above 0 joined by x, e.g. 3x2", kind="usage")
            shape = tuple(int(p) for p in parts)
        if len(shape) > MAX_DIMS or math.prod(shape) > MAX_ENTRIES:
            raise GradcalcError(f"--shape {quote(piece)}: at most {MAX_DIMS} dimensions and "
                                f"{MAX_ENTRIES:,} entries", kind="limit")
        if name in out:
            raise GradcalcError(f"--shape: {quote(name)} is given twice", kind="usage")
        out[name] = shape
    if not out:
        raise GradcalcError("--shape: give NAME=SHAPE, e.g. 'W=3x2, x=2'", kind="usage")
    return tuple(out.items())


PLAIN = Kind()
