"""The true derivative as sympy writes it, in PyTorch's conventions: what an answer is
judged against and what the expected text prints.

sympy's derivative of |u|, sign(u) or a step is a distribution (DiracDelta, Heaviside);
the tape's is PyTorch's (the derivative of sign is 0, at 0 too). `derivatives` takes
every entry along every path and puts the pinned inputs in; `torch_convention` rewrites a
sympy derivative the tape's way.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from gradcalc.homework.exact import exact_number
from gradcalc.homework.proof import symbol


class _RealAbs(sp.Function):
    """|u| of a real u. The answer is judged only where u is real, but sympy does not know
    asin(x) is, and differentiates its Abs through re and im (with atan2's of a square
    root's argument); this one's derivative is sign(u)·u'."""

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.sign(self.args[0])


def derivatives(function: list[Any], wrt: tuple[str, ...],
                paths: tuple[tuple[str, ...], ...] | None = None,
                pinned: tuple[tuple[str, float], ...] = ()) -> list[Any]:
    """d f_i / d w_j for every entry and input, row-major (or along each path: f_xy is
    ("x", "y")), with the pinned inputs put in afterwards."""
    columns = paths or tuple((w,) for w in wrt)
    return pin([torch_convention(real_diff(f, *(symbol(n) for n in p))) for f in function
                for p in columns], pinned)


def real_diff(f: Any, *by: Any) -> Any:
    """sympy's derivative of `f` by `by`, every |u| in it taken as the |u| of a real u
    (sympy's own Abs where it knows u is real: it simplifies sign(x)·|x| to x)."""
    def unknown(e: Any) -> bool:
        return isinstance(e, sp.Abs) and e.args[0].is_extended_real is not True

    if not isinstance(f, sp.Basic) or not f.has(sp.Abs):
        return sp.diff(f, *by)
    real = f.replace(unknown, lambda e: _RealAbs(e.args[0]))
    return sp.diff(real, *by).replace(_RealAbs, sp.Abs)


def torch_convention(expr: Any) -> Any:
    """A derivative as the tape takes it at kinks (PyTorch's conventions), where sympy
    writes distributions: the derivative of sign is 0, at 0 too, so every DiracDelta term
    (and every unevaluated derivative of a sign) is 0 (d²|x|/dx² is 0, d²(x·|x|)/dx² is
    2·sign(x)); a step Heaviside(u, h) is written with sign, (1 + sign(u))/2 when h is
    sympy's 1/2."""
    if not isinstance(expr, sp.Basic) or not expr.has(sp.DiracDelta, sp.Heaviside,
                                                       sp.Derivative):
        return expr
    # sympy leaves d/dx sign(1/x) unevaluated where the argument is not a symbol: 0 too
    expr = expr.replace(lambda e: isinstance(e, sp.Derivative) and isinstance(e.expr, sp.sign),
                        lambda e: sp.S.Zero)
    if not expr.has(sp.DiracDelta, sp.Heaviside):
        return expr

    def step(*args: Any) -> Any:
        u, h = args[0], (args[1] if len(args) > 1 else sp.S.Half)
        return (1 + sp.sign(u)) / 2 + (h - sp.S.Half) * (1 - sp.sign(u) ** 2)

    out = expr.replace(sp.Heaviside, step)
    return _squared_signs(out.replace(lambda e: isinstance(e, sp.DiracDelta),
                                      lambda e: sp.S.Zero))


def _squared_signs(expr: Any) -> Any:
    """sign(x)^2 written as 1 (sign(x)^3 as sign(x)) in a term that has no value at x = 0
    anyway (d²ln|x|/dx² is -1/x^2, not -sign(x)^2/x^2): they differ only at 0, where
    the term is undefined."""
    if not expr.has(sp.sign):
        return expr
    terms = []
    for term in sp.Add.make_args(expr):
        for sq in term.atoms(sp.Pow):
            base = sq.base
            if not (isinstance(base, sp.sign) and base.args[0].is_Symbol and
                    sq.exp.is_Integer and sq.exp > 1):
                continue
            x = base.args[0]
            at_zero = term.subs(x, 0)
            if at_zero.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                term = term.xreplace({sq: base ** (sq.exp % 2)})
        terms.append(term)
    return sp.Add(*terms)


def pin(exprs: list[Any], pinned: tuple[tuple[str, float], ...]) -> list[Any]:
    """The expressions with the pinned inputs replaced by their (exact) values."""
    if not pinned:
        return exprs
    subs = {symbol(n): exact_number(v) for n, v in pinned}
    return [e.xreplace(subs) if isinstance(e, sp.Basic) else e for e in exprs]
