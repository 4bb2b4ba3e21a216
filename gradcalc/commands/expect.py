"""--expect: the derivative a user expects, compared within --rtol/--atol.

An expected value is a value literal (`[6, 6]`, `ones(3)`, `nan`) or an expression of
numbers in the program language (`pi/2`, `2*sin(1)+cos(1)`), run by gradcalc's own
interpreter with no inputs. A mismatch names the entry and gives expected, computed and
their difference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.backends.numeric import NumericBackend
from gradcalc.commands.jobs import ATOL, RTOL
from gradcalc.commands.matrix import Matrix
from gradcalc.engine import ops
from gradcalc.errors import GradcalcError
from gradcalc.language.parse import normalize, parse, quote
from gradcalc.language.program import ExprStmt, Interpreter
from gradcalc.language.values import parse_value, split_top_level, value_from_data
from gradcalc.limits import DEFAULT_LIMITS, Limits

_NAMED = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)$", re.S)


@dataclass
class Mismatch:
    """The worst entry of one expected value (or a difference of shapes)."""

    name: str  # the derivative's key ("x"), or "" for the whole assembled matrix
    index: tuple[int, ...] | None = None
    expected: float | None = None
    computed: float | None = None
    shapes: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # (expected, computed)

    def text(self, number: Callable[[float], str] | None = None) -> str:
        """The mismatch in words; `number` formats expected and computed (default: every
        digit)."""
        number = number or full
        where = self.name + ("" if not self.index else
                             "[" + ",".join(str(i) for i in self.index) + "]")
        where = f"{where}: " if where else ""
        if self.shapes is not None:
            return f"{where}expected shape {self.shapes[0]}, computed shape {self.shapes[1]}"
        assert self.expected is not None and self.computed is not None
        diff = self.computed - self.expected
        return (f"{where}expected {number(self.expected)}, computed {number(self.computed)}, "
                f"difference {diff:.3g}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name or None,
                               "index": None if self.index is None else list(self.index)}
        if self.shapes is not None:
            out.update(expected_shape=list(self.shapes[0]), computed_shape=list(self.shapes[1]))
        else:
            out.update(expected=self.expected, computed=self.computed,
                       difference=None if self.expected is None or self.computed is None
                       else self.computed - self.expected)
        return out


@dataclass
class Expectation:
    rtol: float = RTOL
    atol: float = ATOL
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def text(self, number: Callable[[float], str] | None = None, sep: str = "; ") -> str:
        """"match (tolerances)", or "mismatch (tolerances): " and each mismatch, joined by
        `sep`."""
        tol = f"(rtol {self.rtol:g}, atol {self.atol:g})"
        if self.ok:
            return f"match {tol}"
        return f"mismatch {tol}:{sep.lstrip(';')}" + sep.join(m.text(number)
                                                             for m in self.mismatches)


def full(v: float) -> str:
    """The shortest text that reads back as the same float64, whole numbers without ".0"."""
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def check_tolerances(rtol: float, atol: float) -> None:
    for name, v in (("--rtol", rtol), ("--atol", atol)):
        if not (math.isfinite(v) and v >= 0):
            raise GradcalcError(f"{name} must be a finite number >= 0, not {v!r}",
                                kind="usage")


def expected_value(text: str, option: str = "--expect",
                   limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """A value literal, or else an expression of numbers run by our interpreter."""
    try:
        return parse_value(text, option=option, limits=limits)
    except GradcalcError:
        pass
    try:
        program = parse(text, limits=limits)
    except GradcalcError as exc:
        raise GradcalcError(f"{option} {quote(text)}: {exc.message}", kind="value") from None
    stmt = program.body[0]
    if len(program.body) != 1 or not isinstance(stmt, ExprStmt):
        raise GradcalcError(f"{option} {quote(text)}: expected a value or an expression of "
                            "numbers, e.g. 2*sin(1) + cos(1)", kind="value")
    names = sorted(program.names_used())
    if names:
        raise GradcalcError(f"{option} {quote(text)}: {', '.join(names)} has no value here; "
                            "an expected value is numbers, lists and functions of them, "
                            "e.g. pi/2 or [2*sin(1), 1]", kind="value")
    interpreter = Interpreter(NumericBackend(limits), {}, max_iterations=limits.max_iterations)
    try:
        with np.errstate(all="ignore"):
            value = interpreter.evaluate(stmt.value)
    except GradcalcError as exc:
        raise GradcalcError(f"{option} {quote(text)}: {exc.message}", kind="value") from None
    return np.asarray(ops.value(value), dtype=np.float64)


def expected_values(expect: Any, keys: list[str], limits: Limits = DEFAULT_LIMITS
                    ) -> dict[str, np.ndarray]:
    """name -> expected array; an unnamed value gets the key "" (the whole derivative)."""
    if isinstance(expect, dict):  # batch: {"x": [6, 6]} or {"x": "pi/2"}
        return {str(k): value_from_data(v, what=f"--expect {k}", limits=limits)
                if not isinstance(v, str) else expected_value(v, f"--expect {k}", limits)
                for k, v in expect.items()}
    if not isinstance(expect, str):
        return {"": value_from_data(expect, what="--expect", limits=limits)}
    text = normalize(expect) if len(expect) <= limits.max_source_chars else expect
    pieces = [p for p in split_top_level(text) if p.strip()]
    named = [_NAMED.match(p) for p in pieces]
    if not any(named):
        return {"": expected_value(text, "--expect", limits)}
    if not all(named):
        raise GradcalcError(f"--expect {quote(expect)}: give every value a name, e.g. "
                            "'a=1, b=[2,3]'", kind="usage")
    out: dict[str, np.ndarray] = {}
    for m in named:
        assert m is not None
        name = m.group(1)
        if name in out:
            raise GradcalcError(f"--expect {quote(expect)}: {name} is given more than once",
                                kind="usage")
        out[name] = expected_value(m.group(2), f"--expect {name}", limits)
    return out


def compare(expect: Any, derivative: dict[str, np.ndarray], matrix: Matrix | None,
            rtol: float = RTOL, atol: float = ATOL,
            limits: Limits = DEFAULT_LIMITS) -> Expectation:
    """Compare the expected values with the computed derivative (`matrix`: its assembled
    form, which an unnamed value is compared with when there are several inputs)."""
    check_tolerances(rtol, atol)
    wanted = expected_values(expect, list(derivative), limits)
    result = Expectation(rtol, atol)
    for name, want in wanted.items():
        if name == "":
            if len(derivative) == 1:
                name, got = next(iter(derivative.items()))
            elif matrix is not None:
                got = matrix.values if want.ndim == 2 else matrix.values.reshape(-1)
            else:
                raise GradcalcError("--expect with several inputs needs names, e.g. "
                                    "--expect 'a=1, b=[2,3]'", kind="usage")
        elif name in derivative:
            got = derivative[name]
        else:
            raise GradcalcError(f"--expect names {name}, which is not a derivative here "
                                f"({', '.join(derivative)})", kind="usage")
        bad = _worst(name, np.asarray(want, dtype=np.float64),
                     np.asarray(got, dtype=np.float64), rtol, atol)
        if bad is not None:
            result.mismatches.append(bad)
    return result


def _worst(name: str, want: np.ndarray, got: np.ndarray, rtol: float, atol: float
           ) -> Mismatch | None:
    if want.shape != got.shape:
        if want.size == 1 and got.size == 1:
            want = want.reshape(got.shape)
        else:
            return Mismatch(name, shapes=(want.shape, got.shape))
    close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    with np.errstate(all="ignore"):
        excess = np.where(close, -np.inf, np.abs(got - want) - rtol * np.abs(want))
    excess = np.where(np.isnan(excess), np.inf, excess)
    k = int(np.argmax(excess))
    index = np.unravel_index(k, got.shape) if got.ndim else ()
    return Mismatch(name, tuple(int(i) for i in index) or None,
                    float(want.reshape(-1)[k]), float(got.reshape(-1)[k]))
