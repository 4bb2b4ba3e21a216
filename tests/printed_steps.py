"""Reading a worked solution's printed steps back, independently of how they were built:
the text a student sees is parsed by the language (student notation), each `d/dx(...)`
and `∂/∂x(...)` in it taken by sympy's `diff`, and both sides of a step compared at random
points. A test that uses this checks what is printed, not the solution's own checks."""

from __future__ import annotations

import re

import numpy as np
import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.solutions.subexpressions import from_ir, inline
from gradcalc.language.parse import parse

_DERIVATIVE = re.compile(r"(?:d/d|∂/∂)(\w)\(")


def _closing(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] == "("
        depth -= text[i] == ")"
        if depth == 0:
            return i
    raise ValueError(f"unbalanced: {text}")


def value(text: str, names: tuple[str, ...], slope: str | None = None) -> sp.Expr:
    """The printed expression as sympy; `slope` (implicit differentiation): the name of
    y' in the text, and y is a function of x in its derivatives."""
    placeholders: dict[str, sp.Expr] = {}
    while (m := _DERIVATIVE.search(text)) is not None:
        end = _closing(text, m.end() - 1)
        inner = value(text[m.end():end], names, slope)
        by = proof.symbol(m.group(1))
        d = sp.diff(inner, by)
        if slope is not None:
            d += sp.diff(inner, proof.symbol(names[1])) * proof.symbol("yprime")
        key = f"q{len(placeholders)}"
        placeholders[key] = d
        text = f"{text[:m.start()]}({key}){text[end + 1:]}"
    if slope is not None:
        text = text.replace(slope, "yprime")
    program = parse(text)
    symbols = {n: proof.symbol(n) for n in program.names_used() if n != "e"}
    expr = from_ir(inline(program), symbols).value
    return expr.xreplace({proof.symbol(k): v for k, v in placeholders.items()})


def agree(a: sp.Expr, b: sp.Expr, names: tuple[str, ...], seed: int = 0,
          points: int = 12) -> bool:
    """Whether two expressions agree at random points (where both are finite), at most
    points being used."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if not symbols:
        return abs(complex(a) - complex(b)) <= 1e-9 * (1 + abs(complex(a)))
    rng = np.random.default_rng(seed)
    f = sp.lambdify(symbols, a - b, "numpy")
    g = sp.lambdify(symbols, sp.Abs(a) + sp.Abs(b), "numpy")
    vals = [rng.uniform(0.2, 2.5, points) * rng.choice([-1, 1], points) for _ in symbols]
    with np.errstate(all="ignore"):
        d = np.broadcast_to(np.asarray(f(*vals), dtype=complex), (points,))
        scale = np.broadcast_to(np.asarray(g(*vals), dtype=complex), (points,))
    ok = np.isfinite(d) & np.isfinite(scale) & (np.abs(d.imag) < 1e-9)
    if ok.sum() < 3:
        return True  # too few real points to tell: not a counterexample
    return bool(np.all(np.abs(d[ok]) <= 1e-7 * (1 + np.abs(scale[ok]))))


def sides(step_text: str) -> tuple[str, str]:
    """A step's own equation split at its `=` (the last top-level one)."""
    depth, cut = 0, -1
    for i, c in enumerate(step_text):
        depth += c in "(["
        depth -= c in ")]"
        if c == "=" and depth == 0 and step_text[i - 1] == " ":
            cut = i
    return step_text[:cut].strip(), step_text[cut + 1:].strip()
