"""`gradcalc plot`: a function of one scalar input and its derivative over an interval, as
data (the renderer draws it): every grid point in one vectorised pass (commands.points),
then where the derivative jumps (kinks), where the function itself jumps (poles and
steps) and where either is not finite (undefined)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from gradcalc.backends.batched import evaluate
from gradcalc.commands.jobs import grad_seed, load_values, option_name
from gradcalc.errors import GradcalcError, ShapeError
from gradcalc.language.parse import parse, quote
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: grid points by default, and at most
DEFAULT_POINTS = 201
MAX_POINTS = 100_001
#: a change of the derivative between neighbours larger than this share of its range
#: (over the finite points) is a jump: a kink of the function, or a pole
JUMP_SHARE = 0.25
ISOLATION = 4.0

_OVER = re.compile(r"^\s*([^=\s]+)\s*=\s*(.+?)\s*:\s*(.+?)\s*$")


@dataclass
class PlotData:
    name: str  # the input
    output: str  # the output's name
    xs: np.ndarray
    f: np.ndarray
    df: np.ndarray
    jumps: list[tuple[float, float]] = field(default_factory=list)  # (x before, x after)
    steps: list[tuple[float, float]] = field(default_factory=list)  # the function jumps
    undefined: list[tuple[float, float]] = field(default_factory=list)  # stretches
    program: str = ""


def parse_over(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[str, float, float]:
    """--over 'x=-3:3' as (name, low, high); the ends are values like --at's (pi, -2*pi
    is not: numbers, pi, E)."""
    m = _OVER.match(text)
    if not m:
        raise GradcalcError(f"--over {quote(text)}: expected NAME=LOW:HIGH, e.g. x=-3:3",
                            kind="usage")
    name = option_name(m.group(1), "--over")
    ends = []
    for part in (m.group(2), m.group(3)):
        value = load_values([f"{name}={part}"], "--over", limits)[name]
        if value.shape != () or not np.isfinite(value):
            raise GradcalcError(f"--over {quote(text)}: the ends must be finite numbers",
                                kind="usage")
        ends.append(float(value))
    if not ends[0] < ends[1]:
        raise GradcalcError(f"--over {quote(text)}: LOW must be below HIGH", kind="usage")
    return name, ends[0], ends[1]


def run(program_text: str, over: str, at: list[str], points: int = DEFAULT_POINTS,
        of: str | None = None, limits: Limits = DEFAULT_LIMITS) -> PlotData:
    if not 2 <= points <= MAX_POINTS:
        raise GradcalcError(f"--samples must be between 2 and {MAX_POINTS:,}", kind="usage")
    program = parse(program_text, limits=limits)
    name, low, high = parse_over(over, limits)
    values = load_values(at, limits=limits) if at else {}
    if name in values:
        raise GradcalcError(f"{name} is given both by --over and --at", kind="usage")
    out_name = option_name(of, "--of") if of else program.default_output()
    xs = np.linspace(low, high, points)
    batch = {name: xs, **{k: np.broadcast_to(v, (points,) + v.shape).copy()
                          for k, v in values.items()}}
    try:
        seed = partial(grad_seed, of=out_name, weights=None, where=" at each point")
        f, der, _, _ = evaluate(program, batch, [name], out_name, limits, seed)
    except ShapeError as exc:
        raise ShapeError(f"plot needs a scalar output ({exc.message})") from None
    data = PlotData(name, out_name, xs, f.reshape(points), der[name].reshape(points),
                    program=program_text)
    data.undefined = _undefined(xs, f, data.df)
    data.jumps = _jumps(xs, data.df)
    data.steps = _jumps(xs, data.f)  # the same test on the function: poles and steps
    return data


def _undefined(xs: np.ndarray, f: np.ndarray, df: np.ndarray) -> list[tuple[float, float]]:
    """Stretches of grid points where the function or its derivative is not finite."""
    bad = ~(np.isfinite(f) & np.isfinite(df))
    out = []
    i = 0
    while i < len(xs):
        if bad[i]:
            j = i
            while j + 1 < len(xs) and bad[j + 1]:
                j += 1
            out.append((float(xs[i]), float(xs[j])))
            i = j + 1
        else:
            i += 1
    return out


def _jumps(xs: np.ndarray, df: np.ndarray) -> list[tuple[float, float]]:
    """Neighbouring grid points between which `df` (the derivative, or the function)
    changes by more than JUMP_SHARE of its range, and by ISOLATION times more than the
    changes just around: a jump between them, not a steep but smooth stretch. Two big
    changes in a row are one jump with the convention's value on the grid point between."""
    finite = np.isfinite(df)
    if finite.sum() < 3:
        return []
    span = float(np.ptp(df[finite]))
    if span == 0:
        return []
    with np.errstate(invalid="ignore"):
        step = np.where(finite[:-1] & finite[1:], np.abs(np.diff(df)), 0.0)
    big = step > JUMP_SHARE * span
    out = []
    i = 0
    while i < len(step):
        if not big[i]:
            i += 1
            continue
        j = i + 1 if i + 1 < len(step) and big[i + 1] else i
        around = [step[k] for k in (i - 1, j + 1) if 0 <= k < len(step)]
        if step[i: j + 1].max() > ISOLATION * max(around, default=0.0):
            out += [(float(xs[k]), float(xs[k + 1])) for k in range(i, j + 1)]
        i = j + 1
    return out


def segments(xs: np.ndarray, ys: np.ndarray, breaks: list[tuple[float, float]]
             ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The curve cut where it is not finite and across each break, so no line is drawn
    through a jump or an undefined stretch."""
    cut = ~np.isfinite(ys)
    starts = {b[1] for b in breaks}
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    current: list[int] = []
    for i, x in enumerate(xs):
        if cut[i] or float(x) in starts:
            if len(current) > 0:
                pieces.append((xs[current], ys[current]))
            current = [] if cut[i] else [i]
            continue
        current.append(i)
    if current:
        pieces.append((xs[current], ys[current]))
    return pieces
