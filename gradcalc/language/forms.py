"""The forms a text may come in before the notation pass: surrounding whitespace, LaTeX
and braces (gradcalc/language/latex.py), `|...|` (bars.py); and `Trap`, a record of a
reading that another reading of the same text would change.

`prepare` runs on every normalised text gradcalc reads as math (programs, answers, CSV
cells, `--at` values) and returns text in the language's own notation with, per character,
its offset in the input, so errors still point at what the user typed. Each step runs
only when its trigger character is present; its output goes through the same notation
pass, ast whitelist and limits as anything typed.

A `Trap` is what the notation pass (notation.py, applying.py) records where it chose the
conventional reading of something another reader could take differently (`sin x^2` as
sin(x²), `1/2x` as (1/2)·x, `sin^-1 x` as asin(x)); `parse.parse_with_traps` returns them
beside the program so a verdict can say "read as ..." and what the other reading gives.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from gradcalc.language import bars, latex, tex
from gradcalc.language.program import Pos


@dataclass(frozen=True)
class Trap:
    """A conventional reading of a piece of text that has another reading.

    `kind`: 'function argument' (`sin x^2`, `sin 2x`), 'function power' (`sin^2 x`),
    'inverse function' (`sin^-1 x`), 'division then product' (`1/2x`, `1/2√x`),
    'product argument' (`sin x y`, `sin xy`: sin(x·y), or sin(x)·y as some readers take
    it), 'bracket argument' (`ln [u-2]^2`: ln((u-2)^2), or ln(u-2)^2),
    'power then parenthesis' (`x^x(1+ln x)`), 'split name' (`xe^x`, `xcos(x)`), 'log base'
    (`log_2 x`). `written`: the piece as typed (normalised: `^` is `**`); `read`: how it
    was read, `other`: the other reading (None when there is no other sensible one), both
    in the language's text, parseable on their own; `at`: where the piece starts;
    `start`, `end`: the piece's offsets in the text parsed (-1 when not known), so that
    a caller can splice `other` in and read the whole text the other way.
    """

    kind: str
    written: str
    read: str
    other: str | None
    at: Pos
    start: int = -1
    end: int = -1


def prepare(text: str, functions: Collection[str], at: Callable[[int], Pos],
            max_depth: int = 100) -> tuple[str, list[int]]:
    """`text` with its surrounding whitespace, LaTeX, braces and bars read, and per
    character (plus an end entry) its offset in `text`."""
    out, origin = _dedent(text)
    if "\\" in out or "$" in out or "{,}" in out or tex.SPACED_BASE.search(out):
        out, step = tex.books(out)
        origin = [origin[k] for k in step]
    if "\\" in out or "{" in out or "}" in out:
        out, step = latex.translate(out, lambda k: at(origin[k]))
        origin = [origin[k] for k in step]
    if "|" in out:
        out, step = bars.translate(out, functions, lambda k: at(origin[min(k, len(out))]),
                                   max_depth)
        origin = [origin[k] for k in step]
    return out, origin


def _dedent(text: str) -> tuple[str, list[int]]:
    """Without the indent all its lines share (a text that starts with a space or a tab
    is not an unexpected indent); trailing whitespace is harmless and kept."""
    if not text[:1].isspace():
        return text, list(range(len(text) + 1))
    lines = text.split("\n")
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    cut = min(indents, default=0)
    if not cut:
        return text, list(range(len(text) + 1))
    out: list[str] = []
    origin: list[int] = []
    start = 0
    for line in lines:
        drop = min(cut, len(line) - len(line.lstrip(" \t")))
        out.append(line[drop:])
        origin.extend(range(start + drop, start + len(line) + 1))  # the line and its '\n'
        start += len(line) + 1
    origin = origin[: len("\n".join(out))] + [len(text)]
    return "\n".join(out), origin
