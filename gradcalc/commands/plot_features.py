"""What a plot's grid shows besides the curves: poles, steps and kinks told apart, and a
y-range that a pole cannot flatten.

The test uses the derivative the tape computed at every grid point, so it needs no
guessing from the picture:
- between two neighbouring (finite) points a continuous function changes by at most about
  the width times its steepest slope there, and in the direction its slope points; a
  change far past that, or against the slope on both sides, is a jump of the function;
- a jump of the function where |f| grows towards it, to well above its usual size, is a
  pole; any other jump is a step;
- where the function is continuous, a change of the derivative much larger than the
  changes just beside it (and not a rounding speck) is a kink;
- the y-range covers the curves away from the poles: values beyond it are clipped, and
  the poles are drawn as asymptotes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: a change of the function more than this many times (width × steepest slope) is a jump
SLOPE_ROOM = 3.0
#: |f| beside a jump above this many times its median (and growing towards it): a pole
POLE_SIZE = 4.0
#: with no jump between them, a pole still when the derivatives' rise over the width is
#: this share of |f| (and |f| grows towards it from both sides)
POLE_RISE = 0.25
#: a change of the derivative this many times larger than those beside it is a kink ...
ISOLATION = 4.0
#: ... when it is also at least this share of the derivative's usual size
KINK_FLOOR = 0.01
#: the y-range leaves out this share of the interval on each side of a pole (at least
#: three grid steps), where the curves run off towards infinity
POLE_WINDOW = 0.05


@dataclass
class Features:
    poles: list[tuple[float, float]] = field(default_factory=list)  # (x before, x after)
    steps: list[tuple[float, float]] = field(default_factory=list)
    kinks: list[tuple[float, float]] = field(default_factory=list)
    ylim: tuple[float, float] = (-1.0, 1.0)
    clipped: bool = False  # some finite value lies outside ylim


def _typical(values: np.ndarray) -> float:
    """The median of the finite |values| (np.median's number, without its import of
    numpy.ma: start-up time)."""
    a = np.abs(values[np.isfinite(values)])
    if not a.size:
        return 0.0
    half = a.size // 2
    if a.size % 2:
        return float(np.partition(a, half)[half])
    part = np.partition(a, [half - 1, half])
    return float((part[half - 1] + part[half]) / 2)


def _grows_towards(f: np.ndarray, idx: list[int]) -> bool:
    """|f| strictly growing along idx (which ends at the jump), over three points."""
    if len(idx) < 3:
        return False
    a = np.abs(f[idx[-3:]])
    return bool(a[0] < a[1] < a[2])


def find(xs: np.ndarray, f: np.ndarray, df: np.ndarray) -> Features:
    """Poles, steps, kinks and the y-range of one plot's grid (see the module's
    docstring)."""
    out = Features()
    ok = np.flatnonzero(np.isfinite(f) & np.isfinite(df))
    if ok.size < 2:
        out.ylim = _range([f, df], np.isfinite(f) | np.isfinite(df))
        return out
    fin = f[ok]
    scale = float(np.ptp(fin)) or float(np.max(np.abs(fin))) or 1.0
    tol = 1e-9 * scale
    typical = _typical(fin)
    broken: set[int] = set()  # positions in `ok` after which the function jumps
    infinite = np.isinf(f)
    for k in range(ok.size - 1):
        i, j = ok[k], ok[k + 1]
        if infinite[i + 1: j].any():  # the function is infinite between them
            broken.add(k)
            out.poles.append((float(xs[i]), float(xs[j])))
            continue
        change = f[j] - f[i]
        width = xs[j] - xs[i]
        bound = width * max(abs(df[i]), abs(df[j]))
        against = df[i] * df[j] > 0 and change * df[i] < 0
        left = [int(n) for n in ok[max(0, k - 2): k + 1]]
        right = [int(n) for n in ok[k + 1: k + 4]][::-1]
        big = max(abs(f[i]), abs(f[j])) > POLE_SIZE * typical + tol
        if abs(change) > SLOPE_ROOM * bound + tol or (against and abs(change) > tol):
            broken.add(k)
            pole = big and (_grows_towards(f, left) or _grows_towards(f, right))
            (out.poles if pole else out.steps).append((float(xs[i]), float(xs[j])))
        elif big and _grows_towards(f, left) and _grows_towards(f, right) \
                and min(abs(df[i]), abs(df[j])) * width / 4 > POLE_RISE * max(abs(f[i]),
                                                                             abs(f[j])):
            # no jump, but a rise between them as high as the function itself: 1/x**2
            broken.add(k)
            out.poles.append((float(xs[i]), float(xs[j])))
    for n in np.flatnonzero(infinite):  # infinite beside where it is undefined: log at 0
        if not any(a <= xs[n] <= b for a, b in out.poles):
            out.poles.append((float(xs[n]), float(xs[n])))
    for k, n in enumerate(ok):  # growing without bound towards where it is undefined
        side = [int(m) for m in ok[k: k + 3]][::-1] if n > 0 and not np.isfinite(f[n - 1]) \
            else [int(m) for m in ok[max(0, k - 2): k + 1]] \
            if n + 1 < f.size and not np.isfinite(f[n + 1]) else []
        near = float(xs[1] - xs[0]) * 1.5
        if side and abs(f[n]) > POLE_SIZE * typical + tol and _grows_towards(f, side) \
                and not any(a - near <= xs[n] <= b + near for a, b in out.poles):
            out.poles.append((float(xs[n]), float(xs[n])))
    out.poles.sort()
    out.kinks = _kinks(xs, df, ok, broken)
    out.ylim = _ylim(xs, f, df, out.poles)
    finite = np.concatenate([f[np.isfinite(f)], df[np.isfinite(df)]])
    lo, hi = out.ylim
    out.clipped = bool(np.any((finite < lo) | (finite > hi)))
    return out


def _kinks(xs: np.ndarray, df: np.ndarray, ok: np.ndarray, broken: set[int]
           ) -> list[tuple[float, float]]:
    """Neighbouring points between which the derivative jumps while the function does
    not; two jumps in a row (a kink on a grid point, its convention's value between the
    sides) are one kink."""
    adjacent = [k for k in range(ok.size - 1) if ok[k + 1] == ok[k] + 1]
    edge = {k + d for k in range(ok.size) if ok[k] == 0 or ok[k] == df.size - 1
            or not np.isfinite(df[ok[k] - 1]) or not np.isfinite(df[ok[k] + 1])
            for d in (-2, -1, 0, 1)}
    near_break = {k + d for k in broken for d in (-2, -1, 0, 1, 2)}
    near_gap = {k + d for k in range(ok.size - 1) if ok[k + 1] != ok[k] + 1
                for d in (-2, -1, 0, 1, 2)}
    change = {k: abs(float(df[ok[k + 1]] - df[ok[k]])) for k in adjacent}
    floor = KINK_FLOOR * (_typical(df[ok]) + float(np.ptp(df[ok])) * 1e-6) + 1e-12
    out: list[tuple[float, float]] = []
    k = 0
    while k < ok.size - 1:
        if k not in change or k - 1 not in change or k in near_break or k in near_gap \
                or k in edge or change[k] <= floor or change[k] <= ISOLATION * change[k - 1]:
            k += 1
            continue
        last = k + 1 if change.get(k + 1, 0.0) > change[k] / ISOLATION else k
        if last + 1 in change and last not in edge and last not in near_gap \
                and min(change[n] for n in range(k, last + 1)) > ISOLATION * change[last + 1]:
            out += [(float(xs[ok[n]]), float(xs[ok[n + 1]])) for n in range(k, last + 1)]
            k = last + 1
        else:
            k += 1
    return out


def _range(curves: list[np.ndarray], keep: np.ndarray) -> tuple[float, float]:
    values = np.concatenate([c[keep & np.isfinite(c)] for c in curves])
    if values.size == 0:
        return (-1.0, 1.0)
    lo, hi = float(values.min()), float(values.max())
    if lo == hi:
        return (lo - 1.0, hi + 1.0)
    return (lo, hi)


def _ylim(xs: np.ndarray, f: np.ndarray, df: np.ndarray,
          poles: list[tuple[float, float]]) -> tuple[float, float]:
    """Both curves' range, away from the poles (with a margin there: the curves leave it)."""
    keep = np.ones(xs.shape, dtype=bool)
    if poles:
        step = float(xs[1] - xs[0])
        window = max(3 * step, POLE_WINDOW * float(xs[-1] - xs[0]))
        for a, b in poles:
            keep &= (xs < a - window + step) | (xs > b + window - step)
    if not keep.any():
        keep[:] = True
    lo, hi = _range([f, df], keep)
    if poles:
        pad = 0.1 * (hi - lo)
        lo, hi = lo - pad, hi + pad
    return (lo, hi)
