"""Drawing a PlotData: in the terminal with plotext (imported here only, so no other
command pays for it), or to an SVG/PNG file with matplotlib (the `plot` extra)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gradcalc.commands.plot import PlotData, segments
from gradcalc.errors import GradcalcError


def to_json(data: PlotData) -> dict:
    from gradcalc.render.numbers import jsonable

    return {"input": data.name, "output": data.output, "x": jsonable(data.xs),
            "f": jsonable(data.f), "df": jsonable(data.df),
            "jumps": [list(j) for j in data.jumps], "steps": [list(j) for j in data.steps],
            "undefined": [list(u) for u in data.undefined]}


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def notes(data: PlotData) -> list[str]:
    """What the picture shows in words: kinks, jumps and undefined stretches."""
    lines = [f"{data.output}({data.name}) and d{data.output}/d{data.name} on "
             f"[{_fmt(data.xs[0])}, {_fmt(data.xs[-1])}], {len(data.xs)} points"]
    steps = _merged(data.steps)
    h = 1.5 * float(data.xs[1] - data.xs[0]) if len(data.xs) > 1 else 0.0
    for a, b in _merged(data.jumps):
        if any(a <= d and c <= b for c, d in steps):  # the function jumps there too
            lines.append(f"the function and its derivative jump between {data.name} = "
                         f"{_fmt(a)} and {_fmt(b)} (a pole or a step)")
        elif any(c - h <= b and a <= d + h for c, d in data.undefined):
            lines.append(f"the derivative jumps between {data.name} = {_fmt(a)} and "
                         f"{_fmt(b)}, beside where it is undefined (a pole)")
        else:
            lines.append(f"the derivative jumps between {data.name} = {_fmt(a)} and "
                         f"{_fmt(b)} (a kink: the function is continuous there)")
    for a, b in steps:
        if not any(c <= b and a <= d for c, d in _merged(data.jumps)):
            lines.append(f"the function jumps between {data.name} = {_fmt(a)} and "
                         f"{_fmt(b)} (a step, which the derivative on either side misses)")
    for a, b in data.undefined:
        where = f"at {data.name} = {_fmt(a)}" if a == b else \
            f"on {data.name} = {_fmt(a)} … {_fmt(b)}"
        lines.append(f"undefined {where} (nan or inf)")
    return lines


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
    for label, ys, breaks, color_name in (
            (f"{data.output}", data.f, [], "blue"),
            (f"d{data.output}/d{data.name}", data.df, data.jumps, "red")):
        for k, (x, y) in enumerate(segments(data.xs, ys, breaks)):
            plt.plot(x.tolist(), y.tolist(), marker="braille", color=color_name,
                     label=label if k == 0 else None)
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
    try:
        for label, ys, breaks, style in ((data.output, data.f, [], "C0-"),
                                         (f"d{data.output}/d{data.name}", data.df,
                                          data.jumps, "C3-")):
            for k, (x, y) in enumerate(segments(data.xs, ys, breaks)):
                ax.plot(x, y, style, label=label if k == 0 else None)
        for a, b in data.undefined:
            ax.axvspan(a, b, color="0.9", label=None)
        ax.set_xlabel(data.name)
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


def want_color() -> bool:
    """Colours only for a terminal that has them (https://no-color.org)."""
    return (sys.stdout.isatty() and "NO_COLOR" not in os.environ
            and os.environ.get("TERM") != "dumb")
