"""The derivative as a formula (`--symbolic`, `--latex`): what the check builds, shown.

The program is replayed on sympy along the numeric run's path (the check's route), then
differentiated, simplified within a budget of CPU time (`verify.budget`), and printed
three ways: text, a Unicode drawing for the terminal, and LaTeX. At the point, an exact
value is given where sympy finds one: the inputs are read back as exact numbers when
they are (2, 1/10, π/2), so `cos(π/2)` is 0 rather than 6.1e-17.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.backends.symbolic import (
    as_expr,
    symbolic_output,
    to_sympy,
)
from gradcalc.backends.symbolic_derivatives import (
    derivative_exprs,
    hessian_exprs,
)
from gradcalc.language.program import Decisions, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, cpu_clock, time_budget

#: a formula longer than this (in characters of text) is shown unsimplified and cut
MAX_TEXT = 4_000
#: an exact value longer than this is not worth showing next to the float
MAX_EXACT = 80
#: exact readings of an input value are searched among these constants
_CONSTANTS = [sp.pi, sp.E]


@dataclass
class Formula:
    """One derivative (one input's gradient block, or one Hessian block) as a formula."""

    text: str
    pretty: str
    latex: str
    exact: str | None  # the exact value at the point, where sympy finds one
    simplified: bool  # False: simplification ran out of its time budget
    expr: Any = None  # the sympy expressions themselves (an object array)

    def to_json(self) -> dict[str, Any]:
        return {"formula": self.text, "latex": self.latex, "exact": self.exact,
                "simplified": self.simplified}


@dataclass
class Formulas:
    """Every derivative of a job as formulas, or the reason there are none."""

    items: dict[str, Formula]
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"formulas": {k: f.to_json() for k, f in self.items.items()},
                "reason": self.reason}


def derivative_formulas(kind: str, program: Program, inputs: dict[str, np.ndarray],
                        wrt: list[str], constants: dict[str, np.ndarray], of: str,
                        decisions: Decisions | None, weights: np.ndarray | None = None,
                        limits: Limits = DEFAULT_LIMITS) -> Formulas:
    """Formulas of a 'gradient'/'vjp'/'jacobian'/'hessian' (keys as the Result's)."""
    seconds = limits.check_seconds
    started = cpu_clock()
    try:
        with time_budget(seconds):
            exprs, symbols = _exprs(kind, program, inputs, wrt, constants, of, decisions,
                                    weights, limits)
    except Timeout:
        return Formulas({}, f"building the formula exceeded {seconds:g} s of CPU time")
    except Exception as exc:  # noqa: BLE001 - sympy fails in many ways; say which, go on
        return Formulas({}, f"no formula ({type(exc).__name__}: {_first_line(exc)})")
    exact_subs = _exact_point(symbols, inputs)
    left = max(seconds - (cpu_clock() - started), 0.05)
    items = {}
    for key, block in exprs.items():
        simple, done = _simplify(block, left / max(len(exprs), 1))
        items[key] = _present(simple, done, exact_subs)
    return Formulas(items)


def _exprs(kind: str, program: Program, inputs: dict[str, np.ndarray], wrt: list[str],
           constants: dict[str, np.ndarray], of: str, decisions: Decisions | None,
           weights: np.ndarray | None, limits: Limits
           ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    out, symbols = symbolic_output(program, {n: inputs[n] for n in wrt}, wrt, constants, of,
                                   decisions, limits, local=False)
    out = np.asarray(out, dtype=object)
    if kind == "hessian":
        blocks = hessian_exprs(out, symbols)
        if len(wrt) == 1:
            return {wrt[0]: blocks[(wrt[0], wrt[0])]}, symbols
        return {f"{a},{b}": v for (a, b), v in blocks.items()}, symbols
    d = derivative_exprs(out, symbols)
    if kind == "jacobian":
        return d, symbols
    w = np.ones(out.shape) if weights is None else np.asarray(weights)
    w_exact = np.vectorize(to_sympy, otypes=[object])(w) if w.size else w.astype(object)
    result = {}
    for name, block in d.items():
        axes = tuple(range(out.ndim))
        flat = np.tensordot(w_exact, block, axes=(axes, axes)) if out.ndim else block
        result[name] = np.asarray(flat, dtype=object)
    return result, symbols


def _simplify(block: np.ndarray, seconds: float) -> tuple[np.ndarray, bool]:
    """Each entry simplified while the budget lasts; the rest as sympy built them."""
    out = np.array(block, dtype=object)
    try:
        with time_budget(seconds):
            for idx in np.ndindex(*out.shape):
                out[idx] = sp.simplify(out[idx])
    except Timeout:
        return out, False
    except Exception:  # noqa: BLE001 - an unsimplified formula is still the formula
        return out, False
    return out, True


def exact_number(v: float) -> Any:
    """v as an exact sympy number when float64 holds exactly that number (2, 1/10, π/2,
    3·e), else None."""
    if not np.isfinite(v):
        return None
    if v == int(v):
        return sp.Integer(int(v))
    try:
        guess = sp.nsimplify(v, _CONSTANTS, tolerance=1e-15)
    except (ValueError, TypeError, RecursionError):
        return None
    if guess.is_Float or len(str(guess)) > 40:
        return None
    try:
        return guess if float(guess) == v else None
    except (TypeError, ValueError):
        return None


def _exact_point(symbols: dict[str, np.ndarray], inputs: dict[str, np.ndarray]
                 ) -> dict[Any, Any] | None:
    subs: dict[Any, Any] = {}
    for name, syms in symbols.items():
        values = np.broadcast_to(np.asarray(inputs[name], dtype=np.float64), syms.shape)
        for idx in np.ndindex(*syms.shape):
            exact = exact_number(float(values[idx]))
            if exact is None:
                return None
            subs[syms[idx]] = exact
    return subs


def _exact_value(block: np.ndarray, subs: dict[Any, Any] | None) -> str | None:
    """The block's exact value at the point, or None (an input is not an exact number, a
    Float constant in the program, or a value sympy leaves unevaluated)."""
    if subs is None:
        return None
    out = np.empty(block.shape, dtype=object)
    try:
        with time_budget(1.0):
            for idx in np.ndindex(*block.shape):
                v = sp.simplify(as_expr(block[idx]).xreplace(subs))
                if v.free_symbols or v.has(sp.Float) or v.has(sp.nan, sp.zoo) \
                        or not v.is_number:
                    return None
                out[idx] = v
    except (Timeout, Exception):  # noqa: BLE001 - no exact value, the float stands
        return None
    text = _text(out)
    return text if len(text) <= MAX_EXACT else None


def _text(block: np.ndarray) -> str:
    return sp.sstr(block.tolist()) if block.ndim else sp.sstr(block.item())


def _matrix(block: np.ndarray) -> Any:
    if block.ndim == 0:
        return as_expr(block.item())
    if block.ndim == 1:
        return sp.Matrix([list(block)])
    if block.ndim == 2:
        return sp.Matrix(block.tolist())
    return None  # higher ranks: text only


def _present(block: np.ndarray, simplified: bool, subs: dict[Any, Any] | None) -> Formula:
    text = _text(block)
    if len(text) > MAX_TEXT:
        cut = text[: MAX_TEXT - 1] + "…"
        return Formula(cut, cut, "", None, False, block)
    m = _matrix(block)
    pretty = sp.pretty(m, use_unicode=True) if m is not None else text
    names = _latex_names(block)
    latex = sp.latex(m if m is not None else block.tolist(), symbol_names=names)
    return Formula(text, pretty, latex, _exact_value(block, subs), simplified, block)


def _latex_names(block: np.ndarray) -> dict[Any, str]:
    """x[0] as x_{0} and A[0,1] as A_{0,1}: an element of an input as a subscript."""
    names = {}
    free = set().union(*(getattr(e, "free_symbols", set()) for e in block.reshape(-1)))
    for s in free:
        base, sep, rest = s.name.partition("[")
        if sep:
            names[s] = f"{sp.latex(sp.Symbol(base))}_{{{rest.rstrip(']')}}}"
    return names


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0][:120] if text else type(exc).__name__
