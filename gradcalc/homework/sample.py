"""Points inside both sides' domain, and both sides' values there, on the tape.

Candidates are drawn (seeded) from several scales and regions at once, so a domain far
from zero (`sqrt(x - 5)`, `log(x - 10)`) or narrow (`acos(x/10)`) is met; once some
points are valid, later rounds also draw near them; a variable of a given domain
(`--domain`) is drawn inside it. A candidate is kept only where every entry of the
function, its derivative and the answer is a finite real number, and not on a kink
(where the derivative jumps). Formulas without lists, indexing or control flow are
evaluated at all candidates in one vectorised pass; others point by point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcalc.backends.numeric import as_function, run_numeric
from gradcalc.engine import ops
from gradcalc.engine.functional import pullback
from gradcalc.engine.primitive import derived, named
from gradcalc.errors import GradcalcError
from gradcalc.homework import domain, real_roots
from gradcalc.homework.domain import Bound
from gradcalc.homework.problem import Entry
from gradcalc.language.ir import walk
from gradcalc.language.program import (
    RESULT_NAME,
    Assign,
    Binary,
    Call,
    ExprStmt,
    Name,
    Num,
    Program,
    Unary,
)
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: candidates drawn per round, and rounds at most (each round after the first also draws
#: near the valid points found so far)
ROUND, ROUNDS = 48, 5
#: relative step of the kink test, and the jump in the derivative that counts as a kink
KINK_STEP, KINK_JUMP = 1e-7, 1e-3


def _regions(rng: np.random.Generator, count: int) -> np.ndarray:
    """`count` draws, each from one of several scales: around zero as WeBWorK does, then
    wider, then log-uniform magnitudes of either sign from 1e-3 to 1e4."""
    which = rng.integers(0, 5, size=count)
    sign = np.where(rng.random(count) < 0.5, -1.0, 1.0)
    out = np.empty(count)
    draws = {
        0: lambda n: rng.uniform(-2, 2, n),
        1: lambda n: rng.uniform(-10, 10, n),
        2: lambda n: 10 ** rng.uniform(-2, 2, n),
        3: lambda n: 10 ** rng.uniform(2, 4, n),
        4: lambda n: 10 ** rng.uniform(-3, 0, n),
    }
    for k, draw in draws.items():
        mask = which == k
        out[mask] = draw(int(mask.sum()))
    flip = which >= 2
    out[flip] *= sign[flip]
    return out


def _near(rng: np.random.Generator, found: np.ndarray, count: int) -> np.ndarray:
    """Draws near valid values: relative steps of 1e-3 to 30 %, and small absolute ones."""
    base = found[rng.integers(0, len(found), size=count)]
    scale = np.maximum(np.abs(base), 1e-3) * 10 ** rng.uniform(-3, np.log10(0.3), count)
    return base + scale * rng.standard_normal(count)


def candidates(rng: np.random.Generator, names: tuple[str, ...], round_no: int,
               found: dict[str, list[float]], bounds: tuple[Bound, ...] = ()
               ) -> dict[str, np.ndarray]:
    """One round's candidates per input; a variable of the domain `bounds` is drawn
    inside its interval (the draws near valid points may leave it: `domain.inside`)."""
    out = {}
    where = {b.name: b for b in bounds}
    for n in names:
        if round_no and found[n]:
            half = ROUND // 2
            near = _near(rng, np.asarray(found[n]), half)
            first = _regions(rng, ROUND - half)
            out[n] = np.concatenate([domain.draw(rng, where[n], first) if n in where else first,
                                     near])
        else:
            first = _regions(rng, ROUND)
            out[n] = domain.draw(rng, where[n], first) if n in where else first
    return out


# --------------------------------------------------------------------------- evaluation


def vectorisable(program: Program) -> bool:
    """Straight-line arithmetic and elementwise calls only: all points at once."""
    return all(_pointwise(node) for node in walk(program))


def _pointwise(node: object) -> bool:
    if isinstance(node, Binary):
        return node.op != "@"
    if isinstance(node, Call):
        return ops.elementwise(node.func)
    return isinstance(node, (Assign, ExprStmt, Unary, Name, Num))


@dataclass
class Values:
    """One entry at K points: values (K,) and, when asked, d/d input (name -> (K,))."""

    value: np.ndarray
    grad: dict[str, np.ndarray]


def evaluate(entry: Entry, points: dict[str, np.ndarray], wrt: tuple[str, ...] = (),
             limits: Limits = DEFAULT_LIMITS) -> Values:
    """The entry at every point (arrays of one length K), with its derivatives by `wrt`;
    an odd root of a negative number is the real one (real_roots.py)."""
    k = len(next(iter(points.values())))
    program = real_roots.tape_program(entry.program)
    if vectorisable(program):
        return _at_once(program, points, wrt, k, limits)
    parts = [_at_once(program, {n: v[i:i + 1] for n, v in points.items()}, wrt, 1,
                      limits) for i in range(k)]
    return Values(np.concatenate([p.value for p in parts]),
                  {n: np.concatenate([p.grad[n] for p in parts]) for n in wrt})


def _at_once(program: Program, points: dict[str, np.ndarray], wrt: tuple[str, ...], k: int,
             limits: Limits) -> Values:
    scalar = k == 1 and not vectorisable(program)
    given = {n: (v.reshape(()) if scalar else v) for n, v in points.items()}
    with np.errstate(all="ignore"):
        if not wrt:
            out = np.asarray(ops.value(run_numeric(program, given, of=RESULT_NAME,
                                                   limits=limits)), dtype=np.float64)
            return Values(_per_point(out, k), {})
        rest = {n: v for n, v in given.items() if n not in wrt}
        f, _ = as_function(program, list(wrt), rest, of=RESULT_NAME, limits=limits)
        value, pull = pullback(f, tuple(given[n] for n in wrt))
        raw = np.asarray(value, dtype=np.float64)
        grads = pull(np.ones(raw.shape))
    return Values(_per_point(raw, k), {n: _per_point(np.asarray(g, dtype=np.float64), k)
                                       for n, g in zip(wrt, grads, strict=True)})


def _per_point(out: np.ndarray, k: int) -> np.ndarray:
    if out.size == 1:
        return np.full(k, float(out.reshape(-1)[0]))
    if out.shape != (k,):
        raise GradcalcError(f"an entry has shape {out.shape}, not a number: write vectors "
                            "as lists of entries, e.g. [2*x, 3*y]", kind="shape")
    return out


def kinked_functions() -> frozenset[str]:
    """The functions whose derivative jumps somewhere (a point there is not judged): the
    table's entries that say so (gradcalc/engine/table.py)."""
    return derived("kinked", lambda: named(lambda p: p.facts.kinked))


def kinked(entries: list[Entry]) -> bool:
    """Whether any entry calls a function with a kink (then points get the kink test)."""
    return any(f"{name}(" in entry.program.source for entry in entries
               for name in kinked_functions())


def on_kink(entries: list[Entry], points: dict[str, np.ndarray], wrt: tuple[str, ...],
            limits: Limits) -> np.ndarray:
    """Per point: whether a derivative jumps between just below and just above it."""
    k = len(next(iter(points.values())))
    bad = np.zeros(k, dtype=bool)
    below = {n: v * (1 - KINK_STEP) - KINK_STEP for n, v in points.items()}
    above = {n: v * (1 + KINK_STEP) + KINK_STEP for n, v in points.items()}
    for entry in entries:
        lo, hi = evaluate(entry, below, wrt, limits), evaluate(entry, above, wrt, limits)
        for n in wrt:
            a, b = lo.grad[n], hi.grad[n]
            with np.errstate(all="ignore"):
                bad |= ~(np.abs(a - b) <= KINK_JUMP * (1 + np.abs(a) + np.abs(b)))
        with np.errstate(all="ignore"):
            bad |= ~(np.abs(lo.value - hi.value) <= KINK_JUMP * (1 + np.abs(lo.value)))
    return bad
