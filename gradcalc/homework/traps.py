"""Notation traps: text people read two ways, judged both ways.

A trap is text such as `1/2x` (gradcalc, like WeBWorK, reads (1/2)·x; many mean
1/(2x)), `1/2√x`, `1/x(x + 1)`, `x^1/2` ((x^1)/2, not √x), `sin x^2`, `sin pi/6`
(sin(π)/6), `x^2y`, `sin^-1 x`. For each one found in a side, both readings are written
out in full; the one the parser chose is the one read the same as the side, and the other
is judged too (within the same budget). When the two verdicts differ, the verdict says so:
"read as (1/2)·x; if you meant 1/(2x), that would be correct — write 1/(2x)".

Beside these, every reading the notation pass chose where another exists (a
`forms.Trap` with an `other`: `y / 2 x`, `2 x / 5 y`, `log x` as ln x where base 10 may
be meant, `log_2.5x` as base 2.5, `sin 2x`) is judged the other way too: a reading that
would change the verdict is always said.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from gradcalc.homework.judge import Settings, Verdict, judge
from gradcalc.homework.problem import read_problem
from gradcalc.homework.read_as import side_text
from gradcalc.homework.reading.claims import split_prefix
from gradcalc.language import forms
from gradcalc.limits import DEFAULT_LIMITS, Limits

DEFAULT_SETTINGS = Settings()
#: at most this many traps per side are judged the other way
MAX_TRAPS = 2
#: the notation pass's readings judged the other way too; not 'function argument'
#: (`sin 2x`, `cos x(x+1)` are read alike by every reader; `sin x^2` and `ln x/2` are
#: the regular expressions' traps below)
JUDGED = frozenset({"division then product", "log base", "power then factor",
                    "power then parenthesis", "root then parenthesis", "inverse function"})


@dataclass(frozen=True)
class Trap:
    """Two full texts of one side, each with one reading of the trap written out."""

    first: str
    second: str


_FACTOR = r"(?:\d+(?:\.\d+)?|√?[A-Za-zπθ]\w*(?:\([^()]*\))?|√?\([^()]*\))(?:\^(?:\w+|\([^()]*\)))?"
#: a quotient whose denominator is followed at once by another factor: 1/2x, 1/x(x+1)
_QUOTIENT = re.compile(rf"/\s*(?P<run>{_FACTOR}(?:{_FACTOR})+)")
#: a root-like power by a fraction written without parentheses: x^1/2, x^-3/2, x^1/3
#: (x^2/4 is x²/4 to everyone: only 1 over anything, or odd over 2, is a trap)
_POWER_FRACTION = re.compile(r"\^(?P<p>-?(?:1/\d+|[3579]/2))(?![\d.])")
#: a function applied without parentheses to a power: sin x^2
_BARE_CALL = re.compile(r"\b(?P<f>sin|cos|tan|sec|csc|cot|ln|log|exp|sinh|cosh|tanh)"
                        r"\s+(?P<x>[A-Za-z0-9]\w*)\^(?P<p>\w+|\([^()]*\))")
#: a function applied without parentheses, then divided: sin pi/6 (sin(π)/6 or sin(π/6))
_BARE_QUOTIENT = re.compile(r"\b(?P<f>sin|cos|tan|sec|csc|cot|ln|log|exp|sinh|cosh|tanh)"
                            r"\s+(?P<x>[^\W_]\w*)\s*/\s*(?P<d>\d+(?:\.\d+)?|[^\W\d_]\w*)")
#: a number exponent followed at once by a factor: x^2y, x^2(x+1) (not a function's name
#: or e^, which start a new factor to every reader: x^2e^x, x^3ln x)
_EXPONENT_RUN = re.compile(r"\^(?P<p>-?\d+(?:\.\d+)?)(?!(?:a|arc)?(?:sin|cos|tan|sec|csc|cot|"
                           r"ln|log|exp|sqrt)|e\s*\^)(?P<x>[A-Za-z(√]\w*(?:\([^()]*\))?)")
#: a function's name or e^ after a power: a new factor to every reader (x^2e^x, x^3ln x)
_NEW_FACTOR = re.compile(r"\*\*[^*]+\*(?:(?:a|arc)?(?:sin|cos|tan|sec|csc|cot)|ln|log|exp|"
                         r"sqrt|e\*\*)")
#: sin^-1 x: the inverse or the reciprocal
_INVERSE = re.compile(r"\b(?P<f>sin|cos|tan)\s*\^\s*-\s*1\s*(?P<x>\([^()]*\)|\w+)")


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _factors(run: str) -> list[str]:
    return [m.group() for m in re.finditer(_FACTOR, run)]


def traps(text: str) -> Iterator[Trap]:
    """Every trap in a side's text, as two texts (the readings in either order)."""
    for m in _QUOTIENT.finditer(text):
        run = m["run"]
        parts = _factors(run)
        if len(parts) < 2 or "".join(parts) != run:
            continue
        s, e = m.start("run"), m.end("run")
        yield Trap(_splice(text, s, e, "*".join(parts)), _splice(text, s, e, f"({run})"))
    for m in _POWER_FRACTION.finditer(text):
        s, e = m.start(), m.end()
        p, q = m["p"].split("/")
        yield Trap(_splice(text, s, e, f"^({p})/{q}"), _splice(text, s, e, f"^({p}/{q})"))
    for m in _BARE_CALL.finditer(text):
        f, x, p = m["f"], m["x"], m["p"]
        yield Trap(_splice(text, m.start(), m.end(), f"{f}({x}^{p})"),
                   _splice(text, m.start(), m.end(), f"{f}({x})^{p}"))
    for m in _BARE_QUOTIENT.finditer(text):
        f, x, d = m["f"], m["x"], m["d"]
        yield Trap(_splice(text, m.start(), m.end(), f"{f}({x})/{d}"),
                   _splice(text, m.start(), m.end(), f"{f}({x}/{d})"))
    for m in _EXPONENT_RUN.finditer(text):
        s, e = m.start(), m.end()
        yield Trap(_splice(text, s, e, f"^({m['p']}*{m['x']})"),
                   _splice(text, s, e, f"^{m['p']}*{m['x']}"))
    for m in _INVERSE.finditer(text):
        f, x = m["f"], m["x"]
        arg = x if x.startswith("(") else f"({x})"
        yield Trap(_splice(text, m.start(), m.end(), f"a{f}{arg}"),
                   _splice(text, m.start(), m.end(), f"(1/{f}{arg})"))


def _as_read(function: str, answer: str, wrt: list[str] | None, side: str,
             limits: Limits, wrt_from: str) -> str | None:
    try:
        problem = read_problem(function, answer, wrt, limits, wrt_from)
    except Exception:  # noqa: BLE001 - a reading that cannot be read is no reading
        return None
    return side_text(problem.function if side == "function" else problem.answer)


def judged(function: str, answer: str, wrt: list[str] | None = None,
           settings: Settings = DEFAULT_SETTINGS, limits: Limits = DEFAULT_LIMITS,
           wrt_from: str = "--wrt") -> Verdict:
    """The verdict on an answer, with a note when a trap's other reading of either side
    would change it."""
    problem = read_problem(function, answer, wrt, limits, wrt_from)
    verdict = judge(problem, settings, limits)
    texts = {"function": function, "answer": answer}
    for side in ("answer", "function"):
        found = list(traps(texts[side]))[:MAX_TRAPS]
        read = problem.function if side == "function" else problem.answer
        others = [t for t in read.traps if t.other is not None and t.start >= 0
                  and t.kind in JUDGED and not (t.kind == "power then factor"
                                                and _NEW_FACTOR.search(t.read))]
        if not found and not others:  # most answers: nothing to read another way
            continue
        shown = side_text(read)
        tried: set[str] = set()
        for trap in found:
            note = _other(trap, side, shown, texts, wrt, settings, limits, wrt_from,
                          verdict, tried)
            if note:  # the feedback on a reading the student may not have meant goes
                return replace(verdict, note=note, feedback=note)
        for notation in others:
            if len(tried) >= MAX_TRAPS:
                break
            text = _spliced(read.program.source, notation, answer if side == "answer" else "")
            trap = Trap(texts[side], text)
            note = _other(trap, side, shown, texts, wrt, settings, limits, wrt_from,
                          verdict, tried, chosen=texts[side])
            if note:
                return replace(verdict, note=note, feedback=note)
    return verdict


def _spliced(source: str, notation: forms.Trap, answer: str) -> str:
    """The side's text with the notation pass's other reading of one piece written out
    (an answer keeps its prefix: it may say which variable)."""
    text = source[:notation.start] + f"({notation.other})" + source[notation.end:]
    claim = split_prefix(answer)[1] if answer else None
    return f"{claim.prefix} = {text}" if claim is not None else text


def _other(trap: Trap, side: str, shown: str, texts: dict[str, str],
           wrt: list[str] | None, settings: Settings, limits: Limits, wrt_from: str,
           verdict: Verdict, tried: set[str], chosen: str | None = None) -> str | None:
    """The note when the trap's other reading gets another verdict (`chosen`: the
    reading known to be the one read, which need not be read again)."""
    readings = []
    for text in (trap.first, trap.second):
        both = {**texts, side: text}
        read = shown if text == chosen else _as_read(
            both["function"], both["answer"], wrt, side, limits, wrt_from)
        readings.append((text, both, read))
    picked = [r for r in readings if r[2] == shown]
    other = [r for r in readings if r[2] is not None and r[2] != shown]
    if len(picked) != 1 or len(other) != 1 or other[0][2] in tried:
        return None
    _, both, meant = other[0]
    tried.add(meant)
    try:
        alt = judge(read_problem(both["function"], both["answer"], wrt, limits, wrt_from),
                    settings, limits)
    except Exception:  # noqa: BLE001 - the other reading cannot be judged: say nothing
        return None
    if alt.ok == verdict.ok:
        return None
    whose = "" if side == "answer" else "the function "
    typed = " ".join(texts[side].split())
    head = f"{whose}{typed} is read as {shown}; if you meant {meant}"
    if side == "answer":
        return (f"{head}, that would be correct — write {meant}" if alt.ok else
                f"{head}, that would be {alt.verdict}")
    return (f"{head}, the answer would be correct — write {meant}" if alt.ok else
            f"{head}, the answer would be {alt.verdict}")
