"""Derivatives of the symbolic backend's expressions, and their values at a point.

The symbolic backend (gradcalc.backends.symbolic) builds the program's output as sympy
expressions along the executed path; this module differentiates them (gradients,
Jacobians, Hessians) and evaluates them at the point in high precision, saying where sympy
has no value (a kink's leftover Heaviside or DiracDelta, a non-real or undefined result).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.backends.symbolic import (
    LEFTOVERS,
    const_float,
    to_sympy,
)
from gradcalc.engine import ops


def point_subs(symbols: dict[str, np.ndarray], point: dict[str, Any],
               digits: int | None = None) -> dict[sp.Symbol, Any]:
    """Symbol -> exact sympy Float of the point's float64 value (for a simultaneous xreplace).

    The Floats carry float64's precision, or `digits` decimal digits: the same exact
    values, with that much working precision for what is computed from them.
    """
    subs: dict[sp.Symbol, Any] = {}
    for name, syms in symbols.items():
        values = np.broadcast_to(np.asarray(ops.value(point[name]), dtype=np.float64),
                                 syms.shape)
        for idx in np.ndindex(*syms.shape):
            v = float(values[idx])
            if not math.isfinite(v):
                subs[syms[idx]] = to_sympy(v)
            else:
                subs[syms[idx]] = sp.Float(v) if digits is None else sp.Float(v, digits)
    return subs


def evaluate_expr(expr: Any, subs: dict[sp.Symbol, Any],
                  digits: int = 15) -> tuple[float, str | None]:
    """(float value, None) or (nan/±inf, reason) of `expr` at the point `subs`.

    Reasons: 'undefined' (nan, 0/0), 'complex infinity', 'complex', or the name of a
    leftover (DiracDelta, Heaviside at 0, Subs, Derivative) that has no value there.
    """
    if not isinstance(expr, sp.Basic):
        return float(expr), None
    if expr.has(*LEFTOVERS):
        for atom in expr.atoms(sp.Heaviside, sp.DiracDelta):
            arg = atom.args[0].xreplace(subs)
            try:
                at_zero = complex(arg.evalf()) == 0
            except (TypeError, ValueError):
                at_zero = True
            if at_zero:
                return math.nan, f"{type(atom).__name__} at 0"
    try:
        r = expr.xreplace(subs)
        r = r.evalf(digits) if not r.is_Number else r
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return math.nan, "undefined"
    return _classify(r)


def _classify(r: Any) -> tuple[float, str | None]:
    if r is sp.nan:
        return math.nan, "undefined"
    if r is sp.zoo:
        return math.nan, "complex infinity"
    if r is sp.oo or r is sp.S.NegativeInfinity:
        return (math.inf if r is sp.oo else -math.inf), None
    if r.is_Number:
        return const_float(r), None
    for kind in LEFTOVERS:
        if r.has(kind):
            return math.nan, kind.__name__
    if r.free_symbols:
        return math.nan, "unevaluated"
    try:
        c = complex(r)
    except (TypeError, ValueError):
        return math.nan, "unevaluated"
    if c.imag != 0:
        return math.nan, "complex"
    return c.real, None


FLOAT64_TINY = float(np.finfo(np.float64).tiny)
FLOAT64_MAX = float(np.finfo(np.float64).max)


def leaves_float64_range(expr: Any, subs: dict[sp.Symbol, Any]) -> bool:
    """Whether some subexpression of `expr` at the point lies outside float64's normal
    range (under 2.2e-308 but not 0, or over 1.8e308): there the tape underflows or
    overflows while sympy's Floats, with unbounded exponents, do not."""
    if not isinstance(expr, sp.Basic):
        return False
    values: dict[Any, Any] = {}
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:  # post-order, iteratively, each shared subexpression once
        node, ready = stack.pop()
        if node in values:
            continue
        if not ready and node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in values)
            continue
        try:
            if node.is_Symbol:
                v = subs.get(node, node)
            elif node.args:
                v = node.func(*[values[a] for a in node.args])
            else:
                v = node
        except (TypeError, ValueError, KeyError, ArithmeticError):
            v = node
        values[node] = v
        if isinstance(v, sp.Float) and not v.is_zero:
            magnitude = abs(v)
            if magnitude < FLOAT64_TINY or magnitude > FLOAT64_MAX:
                return True
    return False


def evaluate_array(exprs: np.ndarray, subs: dict[sp.Symbol, Any]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Values (float64) and reasons (None where the value is a plain real) of each entry."""
    exprs = np.asarray(exprs, dtype=object)
    values = np.empty(exprs.shape, dtype=np.float64)
    reasons = np.empty(exprs.shape, dtype=object)
    for idx in np.ndindex(*exprs.shape):
        values[idx], reasons[idx] = evaluate_expr(exprs[idx], subs)
    return values, reasons


def gradient_of(expr: Any, syms: list[sp.Symbol]) -> list[Any]:
    """sympy's d expr / d s for each symbol s, skipping the terms of a sum free of s.

    Equal to `sp.diff(expr, s)` term by term (diff is linear), but a sum of n terms
    differentiated by n symbols costs O(n) diffs instead of O(n^2).
    """
    zero = sp.Integer(0)
    if not isinstance(expr, sp.Basic) or expr.is_Number:
        return [zero] * len(syms)
    if expr.is_Add:
        terms: dict[sp.Symbol, list[Any]] = {}
        for term in expr.args:
            for s in term.free_symbols:
                terms.setdefault(s, []).append(term)
        return [sp.Add(*[sp.diff(t, s) for t in terms[s]]) if s in terms else zero
                for s in syms]
    free = expr.free_symbols
    return [sp.diff(expr, s) if s in free else zero for s in syms]


def derivative_exprs(out_exprs: np.ndarray, symbols: dict[str, np.ndarray],
                     spend: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """d out[i] / d in[j] as object arrays shaped out.shape + in.shape."""
    out_exprs = np.asarray(out_exprs, dtype=object)
    names = list(symbols)
    flat = [s for n in names for s in symbols[n].flat]
    if spend is not None:
        spend(out_exprs.size * len(flat))
    result = {n: np.empty(out_exprs.shape + symbols[n].shape, dtype=object) for n in names}
    for i in np.ndindex(*out_exprs.shape):
        ds = iter(gradient_of(out_exprs[i], flat))
        for n in names:
            block = result[n]
            for j in np.ndindex(*symbols[n].shape):
                block[i + j] = next(ds)
    return result


def hessian_exprs(out_expr: Any, symbols: dict[str, np.ndarray],
                  spend: Callable[[int], None] | None = None
                  ) -> dict[tuple[str, str], np.ndarray]:
    """Second derivatives of a scalar: blocks shaped in_i.shape + in_j.shape."""
    scalar = np.asarray(out_expr, dtype=object).reshape(())
    first = derivative_exprs(scalar, symbols, spend)
    blocks = {}
    for a, g in first.items():
        for b, block in derivative_exprs(g, symbols, spend).items():
            blocks[(a, b)] = block
    return blocks


def jacobian_at(out_exprs: np.ndarray, symbols: dict[str, np.ndarray],
                point: dict[str, Any]) -> dict[str, np.ndarray]:
    """d out / d input at the point: float arrays shaped out.shape + in.shape (nan where
    sympy gives nan, zoo or a complex value; ±inf for ±oo)."""
    subs = point_subs(symbols, point)
    return {n: evaluate_array(d, subs)[0]
            for n, d in derivative_exprs(out_exprs, symbols).items()}


def hessian_at(out_expr: Any, symbols: dict[str, np.ndarray],
               point: dict[str, Any]) -> dict[tuple[str, str], np.ndarray]:
    subs = point_subs(symbols, point)
    return {k: evaluate_array(b, subs)[0] for k, b in hessian_exprs(out_expr, symbols).items()}


def value_at(out_exprs: np.ndarray, symbols: dict[str, np.ndarray],
             point: dict[str, Any]) -> np.ndarray:
    return evaluate_array(out_exprs, point_subs(symbols, point))[0]


def expression_text(expr: Any, limit: int = 120) -> str:
    """A short readable text of an expression (or of an array's entries)."""
    if isinstance(expr, np.ndarray):
        text = sp.sstr(expr.tolist()) if expr.ndim else sp.sstr(expr.item())
    else:
        text = sp.sstr(expr)
    return text if len(text) <= limit else text[: limit - 1] + "…"
