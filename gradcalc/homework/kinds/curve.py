"""The numeric side of implicit differentiation: points of a curve H(x, y) = 0 and dy/dx
there, from the tape.

Seeded values of x, and for each several seeded starts of y, are taken to the curve by
Newton's method on y, whose step H/H_y uses the tape's own derivative. Where H_y is 0 (a
vertical tangent, a crossing) there is no dy/dx and the point is dropped. An equation's
named constants (`r` in x^2 + y^2 = r^2) are drawn with each x, so that an answer is
judged for many values of them, each point on its own curve. The truth at each point is
dy/dx = -H_x/H_y, and d²y/dx² = -(H_xx + 2·H_xy·y' + H_yy·y'²)/H_y, every partial from
the tape (higher.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.homework import higher
from gradcalc.homework.judge import Settings
from gradcalc.homework.problem import Side
from gradcalc.homework.sample import _regions, evaluate
from gradcalc.limits import Limits

#: x values drawn per round, starts of y per x, rounds at most, Newton steps at most
XS, STARTS, ROUNDS, NEWTON_STEPS = 16, 6, 4, 60
#: a Newton point is on the curve when |H| is below this (relative to H's terms' scale)
ON_CURVE = 1e-10


def curve_points(side: Side, x: str, y: str, settings: Settings, limits: Limits,
                 constants: tuple[str, ...] = ()
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Points of H = 0 where H_y ≠ 0 (seeded; the constants drawn with each x), and each
    one's branch name."""
    rng = np.random.default_rng(settings.seed)
    entry = side.entries[0]
    want = 3 * settings.samples
    found: dict[str, list[float]] = {n: [] for n in (x, y, *constants)}
    labels: list[str] = []
    for _ in range(ROUNDS):
        xs = _draw(rng)
        starts = np.concatenate([rng.uniform(-3, 3, (XS, STARTS // 2)),
                                 _regions(rng, XS * (STARTS - STARTS // 2)).reshape(
                                     XS, -1)], axis=1)
        fixed = {c: _draw(rng) for c in constants}
        Y = _newton(entry, np.repeat(xs, STARTS), starts.reshape(-1), x, y, limits,
                    {c: np.repeat(v, STARTS) for c, v in fixed.items()})
        for i, x0 in enumerate(xs):
            ys = _distinct(Y[i * STARTS:(i + 1) * STARTS])
            for r, y0 in enumerate(ys):
                found[x].append(float(x0))
                found[y].append(float(y0))
                for c, v in fixed.items():
                    found[c].append(float(v[i]))
                labels.append(_label(r, len(ys)))
        if len(labels) >= want:
            break
    return ({n: np.asarray(v[:want]) for n, v in found.items()},
            np.asarray(labels[:want], dtype=object))


def _draw(rng: np.random.Generator) -> np.ndarray:
    """XS values: half uniform in [-3, 3], half from every scale (sample._regions)."""
    return np.concatenate([rng.uniform(-3, 3, XS // 2), _regions(rng, XS - XS // 2)])


def _label(rank: int, count: int) -> str:
    if count == 1:
        return "only"
    if rank == 0:
        return "lower"
    if rank == count - 1:
        return "upper"
    return "middle"


def _distinct(ys: np.ndarray) -> list[float]:
    out: list[float] = []
    for v in sorted(float(t) for t in ys[np.isfinite(ys)]):
        if not out or abs(v - out[-1]) > 1e-6 * (1 + abs(v)):
            out.append(v)
    return out


def _newton(entry: Any, X: np.ndarray, Y: np.ndarray, x: str, y: str, limits: Limits,
            fixed: dict[str, np.ndarray]) -> np.ndarray:
    """Newton's method on y for every (x, start) at once; nan where it does not land on
    the curve or where H_y is 0 there."""
    Y = Y.astype(np.float64).copy()
    with np.errstate(all="ignore"):
        for _ in range(NEWTON_STEPS):
            v = evaluate(entry, {x: X, y: Y, **fixed}, (y,), limits)
            step = v.value / v.grad[y]
            step[~np.isfinite(step)] = np.nan
            Y = Y - step
            if np.all(~np.isfinite(step) | (np.abs(step) <= 1e-15 * (1 + np.abs(Y)))):
                break
        on, sloped = on_curve(entry, {x: X, y: Y, **fixed}, x, y, limits)
    return np.where(on & sloped, Y, np.nan)


def on_curve(entry: Any, pts: dict[str, np.ndarray], x: str, y: str, limits: Limits
             ) -> tuple[np.ndarray, np.ndarray]:
    """Where the points lie on H = 0 (to rounding, relative to H's terms' scale), and
    where H_y ≠ 0 there (so that dy/dx exists)."""
    X, Y = pts[x], pts[y]
    with np.errstate(all="ignore"):
        v = evaluate(entry, pts, (x, y), limits)
        scale = 1 + np.abs(X) ** 3 + np.abs(Y) ** 3 + np.abs(v.grad[x] * X) + np.abs(
            v.grad[y] * Y)
        return np.abs(v.value) <= ON_CURVE * scale, (np.abs(v.grad[y]) > 1e-8 * (
            1 + np.abs(v.grad[x]))) & np.isfinite(v.grad[x])


def slope(side: Side, pts: dict[str, np.ndarray], x: str, y: str, order: int,
          limits: Limits) -> np.ndarray:
    """dy/dx (order 1) or d²y/dx² (order 2) at points of the curve, from H's partials."""
    entry = side.entries[0]
    if order == 1:
        d = higher.along(entry, pts, ((x,), (y,)), limits)
        with np.errstate(all="ignore"):
            return -d[(x,)] / d[(y,)]
    d = higher.along(entry, pts, ((x,), (y,), (x, x), (x, y), (y, y)), limits)
    with np.errstate(all="ignore"):
        p = -d[(x,)] / d[(y,)]
        return -(d[(x, x)] + 2 * d[(x, y)] * p + d[(y, y)] * p**2) / d[(y,)]
