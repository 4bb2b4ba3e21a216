"""Drawing a PlotData: in the terminal with plotext (imported here only, so no other
command pays for it), or to an SVG/PNG file with matplotlib (the `plot` extra). Both draw
within the plot's y-range (values beyond it cut off), poles as vertical asymptotes, and
the function and its derivative with different marks, so they differ without colour."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from gradcalc.commands.plot import PlotData, segments
from gradcalc.errors import GradcalcError


def to_json(data: PlotData) -> dict:
    from gradcalc.render.numbers import jsonable

    return {"input": data.name, "output": data.output, "x": jsonable(data.xs),
            "f": jsonable(data.f), "df": jsonable(data.df),
            "jumps": [list(j) for j in data.jumps], "kinks": [list(j) for j in data.kinks],
            "poles": [list(j) for j in data.poles], "steps": [list(j) for j in data.steps],
            "undefined": [list(u) for u in data.undefined],
            "ylim": list(data.ylim), "clipped": data.clipped}


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _value_at(xs: np.ndarray, ys: np.ndarray, x: float) -> float:
    return float(ys[int(np.argmin(np.abs(xs - x)))])


def notes(data: PlotData) -> list[str]:
    """What the picture shows in words: poles, steps, kinks, undefined stretches, and the
    y-range when it clips."""
    x, y, dy = data.name, data.output, f"d{data.output}/d{data.name}"
    lines = [f"{y}({x}) and {dy} on [{_fmt(data.xs[0])}, {_fmt(data.xs[-1])}], "
             f"{len(data.xs)} points"]
    found = [(a, b, "pole") for a, b in _merged(data.poles)] \
        + [(a, b, "step") for a, b in _merged(data.steps)] \
        + [(a, b, "kink") for a, b in _merged(data.kinks)]
    for a, b, feature in sorted(found):
        where = f"at {x} = {_fmt(a)}" if a == b else f"between {x} = {_fmt(a)} and {_fmt(b)}"
        if feature == "pole":
            lines.append(f"a pole {where}: {y} and {dy} grow without bound (the asymptote "
                         "is drawn │)")
        elif feature == "step":
            lines.append(f"a step {where}: {y} jumps from {_fmt(_value_at(data.xs, data.f, a))}"
                         f" to {_fmt(_value_at(data.xs, data.f, b))}, which {dy} on either "
                         "side misses")
        else:
            lines.append(f"a kink {where}: {dy} jumps from "
                         f"{_fmt(_value_at(data.xs, data.df, a))} to "
                         f"{_fmt(_value_at(data.xs, data.df, b))} while {y} is continuous")
    for a, b in data.undefined:
        where = f"at {x} = {_fmt(a)}" if a == b else f"on {x} = {_fmt(a)} … {_fmt(b)}"
        lines.append(f"undefined {where} (nan or inf)")
    if data.clipped:
        why = "--ylim" if data.ylim_given else "chosen away from the poles"
        lines.append(f"y-axis {_fmt(data.ylim[0])} … {_fmt(data.ylim[1])} ({why}): values "
                     "beyond it are cut off")
    return lines


def asymptotes(data: PlotData) -> list[float]:
    """Where each pole's vertical asymptote is drawn: the middle of its interval."""
    return [(a + b) / 2 for a, b in _merged(data.poles)]


def clip(ys: np.ndarray, low: float, high: float) -> np.ndarray:
    """The curve inside [low, high]: a value beyond it next to one inside is moved to the
    edge (the curve runs off the frame there), the others become gaps."""
    out = np.array(ys, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        beyond = np.isfinite(out) & ((out < low) | (out > high))
    inside = np.isfinite(out) & ~beyond
    beside = np.zeros_like(beyond)
    beside[1:] |= inside[:-1]
    beside[:-1] |= inside[1:]
    edge = beyond & beside
    out[edge] = np.clip(out[edge], low, high)
    out[beyond & ~edge] = np.nan
    return out


def _merged(jumps: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Jumps that share a grid point as one (a kink on the grid: its convention's value
    sits between the two sides)."""
    out: list[tuple[float, float]] = []
    for a, b in jumps:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def terminal(data: PlotData, width: int, height: int, color: bool) -> str:
    """The plot as text: the function and its derivative, cut at jumps and gaps."""
    try:
        import plotext as plt
    except ImportError:  # pragma: no cover - plotext is a dependency
        raise GradcalcError("gradcalc plot needs plotext: pip install 'plotext<6'",
                            kind="usage") from None
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    low, high = data.ylim
    # the two curves differ in their marks, not only in colour: a braille line and dots
    for label, ys, breaks, color_name, marker in (
            (f"{data.output}", data.f, data.breaks, "blue", "braille"),
            (f"d{data.output}/d{data.name}", data.df, data.jumps, "red", "dot")):
        for k, (x, y) in enumerate(segments(data.xs, clip(ys, low, high), breaks)):
            plt.plot(x.tolist(), y.tolist(), marker=marker, color=color_name,
                     label=label if k == 0 else None)
    for x in asymptotes(data):
        plt.vline(x, "gray")
    plt.ylim(low, high)
    plt.xlabel(data.name)
    text = plt.build()
    if not color:
        text = plt.uncolorize(text)
    return "\n".join(line.rstrip() for line in text.splitlines())


def save(data: PlotData, path: str) -> None:
    """An SVG or PNG with matplotlib (the `plot` extra)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".svg", ".png"):
        raise GradcalcError(f"--save writes .svg or .png files, not {suffix or 'no suffix'}",
                            kind="usage")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError:
        raise GradcalcError("--save needs matplotlib: pip install 'gradcalc[plot]'",
                            kind="usage") from None
    fig, ax = pyplot.subplots(figsize=(7, 4))
    low, high = data.ylim
    try:
        # told apart without colour too: a solid line and a dashed one
        for label, ys, breaks, style in ((data.output, data.f, data.breaks, "C0-"),
                                         (f"d{data.output}/d{data.name}", data.df,
                                          data.jumps, "C3--")):
            for k, (x, y) in enumerate(segments(data.xs, clip(ys, low, high), breaks)):
                ax.plot(x, y, style, label=label if k == 0 else None)
        for k, x in enumerate(asymptotes(data)):
            ax.axvline(x, color="0.4", linestyle=":", linewidth=1,
                       label="asymptote" if k == 0 else None)
        for a, b in data.undefined:
            ax.axvspan(a, b, color="0.9", label=None)
        ax.set_xlabel(data.name)
        pad = 0.03 * (high - low)
        ax.set_ylim(low - pad, high + pad)
        ax.axhline(0, color="0.6", linewidth=0.5)
        ax.legend()
        ax.set_title(data.program if len(data.program) < 60 else data.program[:59] + "…")
        try:
            fig.savefig(path, format=suffix[1:], metadata=_metadata(suffix))
        except OSError as exc:
            raise GradcalcError(f"cannot write {path!r}: {exc.strerror}", kind="usage") from None
    finally:
        pyplot.close(fig)


def _metadata(suffix: str) -> dict:
    """Reproducible files: no creation date (SVG) and no software stamp."""
    return {"Date": None} if suffix == ".svg" else {}


def want_color(out: Any) -> bool:
    """Colours only for a terminal that has them (https://no-color.org)."""
    return (out.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")
