"""Notation traps: text people read two ways, judged both ways, in every kind.

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

One mechanism for every kind of problem (`judged`): the kind's module reads the two
texts (its `reading`, else `read_sides` here: a `Reading`, each formula with where it
was typed) and decides (its `judge`); gradcalc/homework/dispatch.py hands both over. The
other readings are judged by the same judge, at most MAX_TRAPS of each kind per side.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from gradcalc.engine.primitive import by_name, derived, named
from gradcalc.errors import GradcalcError
from gradcalc.homework.judge import Verdict
from gradcalc.homework.problem import (
    Problem,
    Side,
    answer_variables,
    free_names,
    function_side,
    read_side,
)
from gradcalc.homework.read_as import side_text
from gradcalc.homework.reading.claims import split_prefix
from gradcalc.language import forms
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: at most this many traps per side are judged the other way
MAX_TRAPS = 2
#: the notation pass's readings judged the other way too; not 'function argument'
#: (`sin 2x`, `cos x(x+1)` are read alike by every reader; `sin x^2` and `ln x/2` are
#: the regular expressions' traps below)
JUDGED = frozenset({"division then product", "log base", "power then factor",
                    "power then parenthesis", "root then parenthesis", "inverse function",
                    "product argument", "bracket argument"})


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


@dataclass(frozen=True)
class _Patterns:
    """The regular expressions that name functions, made from the table of primitives:
    `bare_call` a function applied without parentheses to a power (sin x^2);
    `bare_quotient` one applied without parentheses, then divided (sin pi/6: sin(π)/6 or
    sin(π/6)); `exponent_run` a number exponent followed at once by a factor (x^2y,
    x^2(x+1); not a function's name or e^, which start a new factor to every reader:
    x^2e^x, x^3ln x); `new_factor` a function's name or e^ after a power; `bare_name` a
    function's name with no parenthesis of its own, whose argument follows it (ln|x|,
    ln x); `inverse` f^-1 x, the inverse or the reciprocal."""

    bare_call: re.Pattern
    bare_quotient: re.Pattern
    exponent_run: re.Pattern
    new_factor: re.Pattern
    bare_name: re.Pattern
    inverse: re.Pattern


def _alternation(names: frozenset[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))


def _built() -> _Patterns:
    applied = _alternation(named(lambda p: p.facts.applied))
    glued = _alternation(named(lambda p: p.facts.glued))
    inverted = _alternation(named(lambda p: bool(p.facts.inverse)))
    return _Patterns(
        re.compile(rf"\b(?P<f>{applied})\s+(?P<x>[A-Za-z0-9]\w*)\^(?P<p>\w+|\([^()]*\))"),
        re.compile(rf"\b(?P<f>{applied})\s+(?P<x>[^\W_]\w*)\s*/\s*"
                   r"(?P<d>\d+(?:\.\d+)?|[^\W\d_]\w*)"),
        re.compile(rf"\^(?P<p>-?\d+(?:\.\d+)?)(?!(?:{glued})|e\s*\^)"
                   r"(?P<x>[A-Za-z(√]\w*(?:\([^()]*\))?)"),
        re.compile(rf"\*\*[^*]+\*(?:{glued}|e\*\*)"),
        re.compile(rf"√?(?:{glued})"),
        re.compile(rf"\b(?P<f>{inverted})\s*\^\s*-\s*1\s*(?P<x>\([^()]*\)|\w+)"))


def _patterns() -> _Patterns:
    return derived("trap patterns", _built)


#: the argument of a function's name with no parenthesis of its own: |x| or a word after
#: a space
_BARE_ARGUMENT = re.compile(r"\|[^|]*\||\s+[A-Za-z0-9]\w*")


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _factors(run: str) -> list[str]:
    return [m.group() for m in re.finditer(_FACTOR, run)]


def traps(text: str) -> Iterator[Trap]:
    """Every trap in a side's text, as two texts (the readings in either order)."""
    known = _patterns()
    for m in _QUOTIENT.finditer(text):
        run = m["run"]
        parts = _factors(run)
        if len(parts) < 2 or "".join(parts) != run:
            continue
        s, e = m.start("run"), m.end("run")
        bare = [known.bare_name.fullmatch(p) is not None for p in parts]
        if any(bare[:-1]):
            continue
        if bare[-1]:  # 1/3ln|x|: the function goes with its argument (1/(3ln|x|))
            arg = _BARE_ARGUMENT.match(text, e)
            if arg is None:
                continue
            e, run, parts = arg.end(), run + arg.group(), [*parts[:-1], parts[-1] + arg.group()]
        yield Trap(_splice(text, s, e, "*".join(parts)), _splice(text, s, e, f"({run})"))
    for m in _POWER_FRACTION.finditer(text):
        s, e = m.start(), m.end()
        p, q = m["p"].split("/")
        yield Trap(_splice(text, s, e, f"^({p})/{q}"), _splice(text, s, e, f"^({p}/{q})"))
    for m in known.bare_call.finditer(text):
        f, x, p = m["f"], m["x"], m["p"]
        yield Trap(_splice(text, m.start(), m.end(), f"{f}({x}^{p})"),
                   _splice(text, m.start(), m.end(), f"{f}({x})^{p}"))
    for m in known.bare_quotient.finditer(text):
        f, x, d = m["f"], m["x"], m["d"]
        yield Trap(_splice(text, m.start(), m.end(), f"{f}({x})/{d}"),
                   _splice(text, m.start(), m.end(), f"{f}({x}/{d})"))
    for m in known.exponent_run.finditer(text):
        s, e = m.start(), m.end()
        yield Trap(_splice(text, s, e, f"^({m['p']}*{m['x']})"),
                   _splice(text, s, e, f"^{m['p']}*{m['x']}"))
    for m in known.inverse.finditer(text):
        f, x = m["f"], m["x"]
        arg = x if x.startswith("(") else f"({x})"
        yield Trap(_splice(text, m.start(), m.end(), f"{by_name()[f].facts.inverse}{arg}"),
                   _splice(text, m.start(), m.end(), f"(1/{f}{arg})"))


@dataclass(frozen=True)
class Piece:
    """One formula of a side as the kind read it, and where its text starts in what was
    typed (None when it is not there as typed: `<a, b>` is read as `[a, b]`)."""

    side: Side
    start: int | None


def located(typed: str, side: Side, start: int | None = None) -> Piece:
    """`side`, read from `typed` or from the piece of it at `start`; an answer's prefix
    (`dy/dx =`, or `= dy/dx` after the formula) is not part of its formula."""
    source = side.program.source
    if start is not None or source == typed:
        return Piece(side, start if start is not None else 0)
    try:
        claim = split_prefix(typed)[1]
    except GradcalcError:
        claim = None
    if claim is not None:
        lead = len(typed) - len(typed.lstrip())
        end = len(typed.rstrip())
        at = end - len(source) if typed.startswith(claim.prefix, lead) else lead
        if typed[at:at + len(source)] == source:
            return Piece(side, at)
    return Piece(side, None)


@dataclass(frozen=True)
class Reading:
    """How a kind read a problem's two texts: the function's formulas (one, or an
    equation's two sides) and the answer's, each with its notation traps; `problem`, the
    problem read, when the kind's judge can decide on it without reading again."""

    function: tuple[Piece, ...]
    answer: Piece
    problem: Problem | None = None

    def pieces(self, which: str) -> tuple[Piece, ...]:
        return self.function if which == "function" else (self.answer,)

    def shown(self, which: str) -> str:
        """The side as read, in the student's notation (an equation's sides with =)."""
        return " = ".join(side_text(p.side) for p in self.pieces(which))

    def names(self, which: str) -> frozenset[str]:
        """The names the side reads: another reading with a name more (`1/(3ln)|x|`, ln
        a constant) reads text the student did not write as a formula."""
        return frozenset(n for p in self.pieces(which) for n in free_names(p.side.program))


def read_sides(function: str, answer: str, wrt: list[str] | None = None,
               limits: Limits = DEFAULT_LIMITS) -> Reading:
    """The reading of a kind that says none of its own: the function as every check
    reads it, the answer with the function's names as its variables."""
    f = function_side(function, limits)
    a = read_side(answer, "answer", 2, limits, answer_variables(answer, f, wrt))
    return Reading((located(function, f),), located(answer, a))


#: how a kind reads two texts, and how it decides on them (given their reading, or None)
Read = Callable[[str, str], Reading]
Decide = Callable[[str, str, "Reading | None"], Verdict]


def judged(function: str, answer: str, read: Read, decide: Decide) -> Verdict:
    """The verdict on an answer, with a note when a trap's other reading of either side
    would change it. A text the reading refuses goes to the kind's judge alone, which
    says what is wrong (or reads it its own way: a derivative's `+ C`)."""
    try:
        reading = read(function, answer)
    except GradcalcError:
        return decide(function, answer, None)
    verdict = decide(function, answer, reading)
    texts = {"function": function, "answer": answer}
    for which in ("answer", "function"):
        found = list(traps(texts[which]))[:MAX_TRAPS]
        others = [(p, t) for p in reading.pieces(which) for t in p.side.traps
                  if t.other is not None and t.start >= 0 and t.kind in JUDGED
                  and not (t.kind == "power then factor" and _patterns().new_factor.search(t.read))]
        if not found and not others:  # most answers: nothing to read another way
            continue
        tried: set[str] = set()
        for trap in found:
            note = _other(trap, which, reading, texts, read, decide, verdict, tried)
            if note:  # the feedback on a reading the student may not have meant goes
                return replace(verdict, note=note, feedback=note)
        for piece, notation in others:
            if len(tried) >= MAX_TRAPS:
                break
            trap = Trap(texts[which], _spliced(texts[which], piece, notation, which))
            note = _other(trap, which, reading, texts, read, decide, verdict, tried,
                          chosen=texts[which])
            if note:
                return replace(verdict, note=note, feedback=note)
    return verdict


def _spliced(typed: str, piece: Piece, notation: forms.Trap, which: str) -> str:
    """The side's typed text with the notation pass's other reading of one piece written
    out (an answer keeps its prefix: it may say which variable)."""
    source = piece.side.program.source
    text = source[:notation.start] + f"({notation.other})" + source[notation.end:]
    if piece.start is not None:
        return typed[:piece.start] + text + typed[piece.start + len(source):]
    claim = split_prefix(typed)[1] if which == "answer" else None
    return f"{claim.prefix} = {text}" if claim is not None else text


def _read(read: Read, texts: dict[str, str]) -> Reading | None:
    try:
        return read(texts["function"], texts["answer"])
    except Exception:  # noqa: BLE001 - a reading that cannot be read is no reading
        return None


def _other(trap: Trap, which: str, reading: Reading, texts: dict[str, str], read: Read,
           decide: Decide, verdict: Verdict, tried: set[str],
           chosen: str | None = None) -> str | None:
    """The note when the trap's other reading gets another verdict (`chosen`: the
    reading known to be the one read, which need not be read again); a reading with
    names the side's reading lacks is no reading of it."""
    shown, names = reading.shown(which), reading.names(which)
    readings = []
    for text in (trap.first, trap.second):
        both = {**texts, which: text}
        found = None if text == chosen else _read(read, both)
        if found is not None and not found.names(which) <= names:
            found = None
        readings.append((both, found, shown if text == chosen else
                         found.shown(which) if found else None))
    picked = [r for r in readings if r[2] == shown]
    other = [r for r in readings if r[2] is not None and r[2] != shown]
    if len(picked) != 1 or len(other) != 1 or other[0][2] in tried:
        return None
    both, found, meant = other[0]
    tried.add(meant)
    try:
        alt = decide(both["function"], both["answer"], found)
    except Exception:  # noqa: BLE001 - the other reading cannot be judged: say nothing
        return None
    if alt.ok == verdict.ok:
        return None
    whose = "" if which == "answer" else "the function "
    typed = " ".join(texts[which].split())
    head = f"{whose}{typed} is read as {shown}; if you meant {meant}"
    if which == "answer":
        return (f"{head}, that would be correct — write {meant}" if alt.ok else
                f"{head}, that would be {alt.verdict}")
    return (f"{head}, the answer would be correct — write {meant}" if alt.ok else
            f"{head}, the answer would be {alt.verdict}")
