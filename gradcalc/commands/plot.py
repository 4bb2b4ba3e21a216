"""`gradcalc plot`: a function of one scalar input and its derivative over an interval, as
data (the renderer draws it): every grid point in one vectorised pass (commands.points),
then its poles, steps and kinks and a y-range that poles cannot flatten
(commands.plot_features), and where either curve is not finite (undefined)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from gradcalc.backends.batched import evaluate
from gradcalc.commands import plot_features
from gradcalc.commands.jobs import grad_seed, load_values
from gradcalc.errors import GradcalcError, ShapeError
from gradcalc.language.parse import parse, quote
from gradcalc.language.text import option_name
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: grid points by default, and at most
DEFAULT_POINTS = 201
MAX_POINTS = 100_001
_OVER = re.compile(r"^\s*([^=\s]+)\s*=\s*(.+?)\s*:\s*(.+?)\s*$")


@dataclass
class PlotData:
    name: str  # the input
    output: str  # the output's name
    xs: np.ndarray
    f: np.ndarray
    df: np.ndarray
    #: where the derivative's curve breaks: kinks, poles and steps, each (x before, x after)
    jumps: list[tuple[float, float]] = field(default_factory=list)
    kinks: list[tuple[float, float]] = field(default_factory=list)
    poles: list[tuple[float, float]] = field(default_factory=list)
    steps: list[tuple[float, float]] = field(default_factory=list)
    undefined: list[tuple[float, float]] = field(default_factory=list)  # stretches
    ylim: tuple[float, float] = (-1.0, 1.0)
    ylim_given: bool = False  # --ylim, rather than chosen from the curves
    clipped: bool = False  # some finite value lies outside ylim
    program: str = ""

    @property
    def breaks(self) -> list[tuple[float, float]]:
        """Where the function's curve breaks: its poles and steps."""
        return sorted(self.poles + self.steps)


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


def parse_ylim(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[float, float]:
    """--ylim 'A:B' as (A, B): finite numbers (or pi, E) with A below B."""
    low, sep, high = text.partition(":")
    if not sep:
        raise GradcalcError(f"--ylim {quote(text)}: expected LOW:HIGH, e.g. -5:5",
                            kind="usage")
    ends = []
    for part in (low, high):
        try:
            value = load_values([f"y={part.strip()}"], "--ylim", limits)["y"]
        except GradcalcError:
            raise GradcalcError(f"--ylim {quote(text)}: the ends must be numbers",
                                kind="usage") from None
        if value.shape != () or not np.isfinite(value):
            raise GradcalcError(f"--ylim {quote(text)}: the ends must be finite numbers",
                                kind="usage")
        ends.append(float(value))
    if not ends[0] < ends[1]:
        raise GradcalcError(f"--ylim {quote(text)}: LOW must be below HIGH", kind="usage")
    return ends[0], ends[1]


def run(program_text: str, over: str, at: list[str], points: int = DEFAULT_POINTS,
        of: str | None = None, limits: Limits = DEFAULT_LIMITS,
        ylim: str | None = None) -> PlotData:
    if not 2 <= points <= MAX_POINTS:
        raise GradcalcError(f"--samples must be between 2 and {MAX_POINTS:,}", kind="usage")
    given = parse_ylim(ylim, limits) if ylim is not None else None
    name, low, high = parse_over(over, limits)
    values = load_values(at, limits=limits) if at else {}
    program = parse(program_text, limits=limits, given=(name, *values))
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
    data.undefined = _undefined(xs, data.f, data.df)
    found = plot_features.find(xs, data.f, data.df)
    data.kinks, data.poles, data.steps = found.kinks, found.poles, found.steps
    data.jumps = sorted(found.kinks + found.poles + found.steps)
    data.ylim, data.clipped = found.ylim, found.clipped
    if given is not None:
        data.ylim, data.ylim_given = given, True
        values = np.concatenate([data.f, data.df])
        values = values[np.isfinite(values)]
        data.clipped = bool(np.any((values < given[0]) | (values > given[1])))
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
