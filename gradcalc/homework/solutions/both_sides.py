"""Implicit differentiation worked out: both sides of F = G differentiated by x, y a
function of x (the chain rule gives dy/dx, written y', on every y term); the y' terms
collected on one side; the equation solved for y'. A second derivative differentiates
y' again (y' appearing in it is replaced by the first result), and on a polynomial curve
its numerator is reduced by the curve's own equation where that is shorter, as `check`'s
expected text is.

The differentiation steps are identities in x, y and y', checked at drawn values of all
three; collecting keeps F - G itself; solving is checked by putting the solution back
into the equation; the reduction by the curve's equation holds on the curve only, and is
checked at points of the curve (found as the judge finds them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.exact import exact_number
from gradcalc.homework.problem import read_side
from gradcalc.homework.reading.student import formula, latex, simplest
from gradcalc.homework.solutions import states
from gradcalc.homework.solutions.derivative_rules import Rules
from gradcalc.homework.solutions.differentiating import rewrites, work
from gradcalc.homework.solutions.evaluating import decimal, put_in, put_in_latex, where
from gradcalc.homework.solutions.states import Term, Todo, leaf, pending
from gradcalc.homework.solutions.subexpressions import Unsupported, from_ir, from_sympy, inline
from gradcalc.homework.solutions.verified import Checker, Raw, chain, shown
from gradcalc.homework.solutions.worked import Part, Solution


@dataclass(frozen=True)
class Path:
    """An implicit solution's path, for placing a departure: each term of the equation
    (its text, its derivative by x with y' a symbol, +1 on the left, −1 on the right),
    the differentiated equation's left minus right side, the slope found, the names."""

    terms: tuple[tuple[str, Any, int], ...]
    residual: Any
    slope: Any
    symbols: dict[str, Any]
    prime: Any


def _terms(nodes: list[Any], X: Any, Y: Any, slope: Any) -> tuple[tuple[str, Any, int], ...]:
    out = []
    for side, node in zip((1, -1), nodes, strict=True):
        pairs = zip(node.args, node.signs, strict=True) if node.op == "sum" else [(node, 1)]
        for term, sign in pairs:
            d = sp.diff(term.value, X) + sp.diff(term.value, Y) * slope
            out.append((term.text, sign * d, side))
    return tuple(out)


def _no_todo(todo: Todo) -> Any:
    raise ValueError("a part still to do")


def solution(left: str, right: str, side: Any, x: str, y: str, order: int, settings: Any,
             limits: Any, on_curve: Callable[[], dict[str, np.ndarray]],
             constants: tuple[str, ...] = (), point: dict[str, float] | None = None
             ) -> Solution:
    """The worked solution of dy/dx (order 1) or d²y/dx² (order 2) of left = right; the
    equation's other names are `constants`; with `point` (a point of the curve, every
    name given), the value there as a last part."""
    X, Y, slope = proof.symbol(x), proof.symbol(y), sp.Symbol(f"{y}'", real=True)
    symbols = {x: X, y: Y, f"{y}'": slope} | {c: proof.symbol(c) for c in constants}
    out = Solution("implicit", f"{left} = {right}", "")
    try:
        nodes = [from_ir(inline(read_side(t, "equation", 0, limits).program), symbols)
                 for t in (left, right)]
    except Unsupported as exc:
        out.note = f"no worked steps for this equation ({exc})"
        return out
    out.problem_latex = f"{nodes[0].latex} = {nodes[1].latex}"
    rules = Rules(X, dependent=Y, slope=slope)
    checker = Checker(symbols, X, anchor=side.entries[0], dependent=Y, slope=slope,
                      samples=settings.samples, seed=settings.seed, limits=limits)
    out.points = checker.count
    # 1. both sides differentiated
    raws, last = _both(nodes, rules)
    start = tuple(pending(Todo("d", n.text, n.latex, n.value, X, payload=n)) for n in nodes)
    steps, complete = chain(raws, checker)
    start_text = shown(start)
    out.parts.append(Part(f"d/d{x} of both sides ({y}' = d{y}/d{x})",
                          rf"\frac{{d}}{{d{x}}}\text{{ of both sides}}", start_text[0],
                          start_text[1], shown(last)[0], shown(last)[1], tuple(steps)))
    out.merged += sum(len(s.merged) for s in steps)
    # 2. collected and solved
    lhs, rhs = (states.to_sympy(t, _no_todo) for t in last)
    residual = sp.expand(lhs - rhs)
    a, b = residual.coeff(slope, 1), residual.coeff(slope, 0)
    if not complete or sp.expand(a * slope + b - residual) != 0 or a == 0:
        out.note = "the differentiated equation is not linear in y': no steps to solve it"
        return out
    if a.could_extract_minus_sign():
        a, b = -a, -b
    collected = (Term("product", (leaf(a), leaf(slope))), leaf(-b))
    solved = simplest(-b / a)
    found = (leaf(slope), leaf(-b / a))
    algebra = [Raw("collect", shown(last)[0], f"{shown(last)[0]} ⇒ {shown(collected)[0]}",
                   f"{shown(last)[1]} \\Rightarrow {shown(collected)[1]}", last, collected,
                   "residual", f"the {y}' terms to the left, the rest to the right"),
               Raw("solve", shown(collected)[0], f"{shown(collected)[0]} ⇒ {shown(found)[0]}",
                   f"{shown(collected)[1]} \\Rightarrow {shown(found)[1]}", collected, found,
                   "solved", f"divide by {formula(a)}")]
    if formula(solved) != formula(-b / a):
        simplified = (leaf(slope), leaf(solved))
        algebra.append(Raw("simplify", formula(-b / a), f"{formula(-b / a)} = {formula(solved)}",
                           f"{latex(-b / a)} = {latex(solved)}", found, simplified))
    steps, complete = chain(algebra, checker)
    out.parts.append(Part(f"solve for {y}'", f"\\text{{solve for }} {y}'", shown(last)[0],
                          shown(last)[1], f"{y}' = {formula(solved)}",
                          f"{y}' = {latex(solved)}", tuple(steps)))
    out.merged += sum(len(s.merged) for s in steps)
    if not complete:
        out.note = "the algebra could not be verified"
        return out
    result, label = solved, f"d{y}/d{x}"
    out.path = Path(_terms(nodes, X, Y, slope), residual, solved, symbols, slope)
    if order == 2:
        second = _second(solved, X, Y, slope, symbols, rules, side, settings, limits, on_curve,
                         x, y)
        if second is None:
            out.note = "the second derivative's steps could not be verified"
            return out
        parts, result = second
        out.parts.extend(parts)
        label = f"d^2{y}/d{x}^2"
    label_latex = (rf"\frac{{d{y}}}{{d{x}}}" if order == 1 else
                   rf"\frac{{d^2{y}}}{{d{x}^2}}")
    out.answer = f"{label} = {formula(result, (x, y))}"
    out.answer_latex = f"{label_latex} = {latex(result)}"
    if point is not None:
        _at(out, result, (label, label_latex), point, symbols, settings, limits)
    return out


def _at(out: Solution, result: Any, label: tuple[str, str], point: dict[str, float],
        symbols: dict[str, Any], settings: Any, limits: Any) -> None:
    """The result's value at the point of the curve: the point put in (written out),
    the exact value, and the answer with its decimal value."""
    values = {n: exact_number(v) for n, v in point.items()}
    said, said_latex = where(values)
    at = simplest(result.xreplace({symbols[n]: v for n, v in values.items()}))
    put, put_latex = put_in(formula(result), values), put_in_latex(latex(result), values)
    head, head_latex = f"at {said}: {label[0]}", rf"\text{{at }} {said_latex}:\ {label[1]}"
    raw = Raw("evaluate", formula(result), f"{head} = {put} = {formula(at)}",
              f"{head_latex} = {put_latex} = {latex(at)}", (leaf(result),), (leaf(at),))
    given = {n: np.full(2, v) for n, v in point.items()}
    checker = Checker(symbols, symbols[next(iter(point))], samples=settings.samples,
                      seed=settings.seed, limits=limits, given=given)
    steps, ok = chain([raw], checker)
    if not ok:
        out.note = "the value at the point could not be verified"
        return
    out.parts.append(Part(f"{label[0]} at {said}", head_latex, formula(result), put_latex,
                          formula(at), latex(at), tuple(steps)))
    out.answer = f"{head} = {formula(at)}{decimal(at)}"
    out.answer_latex = f"{head_latex} = {latex(at)}{decimal(at)}".replace("≈", r"\approx")


def _both(nodes: list[Any], rules: Rules) -> tuple[list[Raw], tuple[Term, Term]]:
    """The rules' steps on both sides, the left side's first."""
    raws: list[Raw] = []
    done: list[Term] = []
    for k, node in enumerate(nodes):
        own, last = rewrites(node, rules)
        for raw in own:
            other = [pending(Todo("d", n.text, n.latex, n.value, rules.x, payload=n))
                     for n in nodes[k + 1:]]
            raw.before = (*done, raw.before[0], *other)
            raw.after = (*done, raw.after[0], *other)
            raws.append(raw)
        done.append(last)
    return raws, (done[0], done[1])


def _second(first: Any, X: Any, Y: Any, slope: Any, symbols: dict[str, Any], rules: Rules,
            side: Any, settings: Any, limits: Any, on_curve: Callable[[], Any], x: str,
            y: str) -> tuple[list[Part], Any] | None:
    """d/dx of y' = first (y a function of x), y' put in, then the curve's equation used."""
    node = from_sympy(first, (X, Y))
    checker = Checker(symbols, X, anchor=side.entries[0], dependent=Y, slope=slope,
                      samples=settings.samples, seed=settings.seed, limits=limits)
    title = f"{y}'' = d/d{x}({y}')"
    worked = work(node, rules, checker, title, rf"{y}'' = \frac{{d}}{{d{x}}}({y}')")
    if not worked.complete:
        return None
    value = worked.value
    put = sp.together(value.xreplace({slope: first}))
    tied = Checker(symbols, X, anchor=side.entries[0], dependent=Y, slope=slope,
                   samples=settings.samples, seed=settings.seed, limits=limits,
                   tied={f"{y}'": first})
    final = simplest(put)
    raws = [Raw("put-in", formula(value), f"{y}' = {formula(first)}: {formula(value)} = "
                f"{formula(final)}", f"{latex(value)} = {latex(final)}", (leaf(value),),
                (leaf(final),), note=f"{y}' = {formula(first)} put in")]
    steps, ok = chain(raws, tied)
    if not ok:
        return None
    parts = [worked.part, Part(f"{y}'' with {y}' put in",
                               rf"{y}'' \text{{ with }} {y}' \text{{ put in}}", formula(value),
                               latex(value), formula(final), latex(final), tuple(steps))]
    reduced = _reduced(final, side, X, Y, limits)
    if reduced is not None:
        points = on_curve()
        if len(points.get(x, ())):
            curve = Checker(symbols, X, dependent=Y, slope=slope, samples=settings.samples,
                            seed=settings.seed, limits=limits, given=points)
            raw = Raw("on-curve", formula(final), f"{formula(final)} = {formula(reduced)}",
                      f"{latex(final)} = {latex(reduced)}", (leaf(final),), (leaf(reduced),),
                      note="on the curve")
            steps, ok = chain([raw], curve)
            if ok:
                parts.append(Part(f"{y}'' on the curve",
                                  rf"{y}'' \text{{ on the curve}}", formula(final),
                                  latex(final), formula(reduced), latex(reduced),
                                  tuple(steps)))
                final = reduced
    return parts, final


def _reduced(e: Any, side: Any, X: Any, Y: Any, limits: Any) -> Any:
    """e's numerator reduced by the curve's polynomial, when that is shorter."""
    try:
        h = proof.side_exprs(side, (X.name, Y.name), {X.name: 0.5, Y.name: 0.5}, limits)[0]
        curve = sp.Poly(sp.expand(sp.numer(sp.together(h))), X, Y)
        top, bottom = sp.fraction(sp.together(e))
        numerator = sp.Poly(sp.expand(top), X, Y)
    except (sp.PolynomialError, Exception):  # noqa: BLE001 - not polynomial: no reduction
        return None
    if not (curve.domain.is_QQ or curve.domain.is_ZZ) or curve.total_degree() < 1:
        return None
    reduced = sp.div(numerator, curve)[1].as_expr() / bottom
    return reduced if sp.count_ops(reduced) < sp.count_ops(e) else None
