"""Names written against each other, read apart before the notation pass: `xsinx` is
x·sin(x), `sinxcosx` sin(x)·cos(x), `cos2x` cos(2x), `ln2` ln(2), `xln(x)` x·ln(x),
`xsec^2(x)` x·sec²(x), `lnabs(x)` ln(|x|), `arccotx` arccot(x), `xy` x·y, `πr` π·r,
`log_2x` log₂(x).

Only the caller knows which names are variables (a homework problem's inputs), so a name
is read apart only when it is not one of them, not a function, not assigned by the text,
and is written wholly as known pieces: functions, the caller's variables, `π` and digits
(a number only as a function's argument: `cos2x`, never `x2`). `π` glued to letters is
always read apart (no name starts with π and means something else). A name with two such
readings (`asinx`: a·sin(x) or asin(x), when a and x are variables) is an error showing
both; one reading is recorded as a `forms.Trap` ('glued name').

The names are spaced apart (`xsinx` -> `x sin x`), so that the notation pass reads them
as it reads what is typed with spaces; nothing else in the text changes.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Callable, Collection

from gradcalc.engine.primitive import derived, named
from gradcalc.errors import ParseError
from gradcalc.language.forms import Trap
from gradcalc.language.program import Pos
from gradcalc.language.text import LineIndex, quote


def gluable() -> frozenset[str]:
    """The functions a student writes against what follows (`sinx`, `xln(x)`,
    `lnabs(x)`): the table's entries that say so (gradcalc/engine/table.py)."""
    return derived("gluable", lambda: named(lambda p: p.facts.glued))


#: a function that another may be written against (`lnabs(x)`, `lnsqrt(x)`)
INNER = frozenset({"abs", "sqrt"})
#: at most this many readings of one name are looked for (two already make an error)
MAX_READINGS = 4
PI = "π"
_WORD = re.compile(r"[^\W\d]\w*")
#: `log_2x`: the log to base 2 of x (a name of its own to the tokenizer)
_LOG_BASE = re.compile(r"log_(\d+)([^\W\d]\w*)")
#: `x3^(x^2-1)`: a variable, then a number raised to a power (x·3^(x²−1), said)
_DIGIT_POWER = re.compile(r"([^\W\d]+?)(\d+)")


def digit_power(word: str, variables: Collection[str], then: str) -> tuple[str, str] | None:
    """(the variable, the number) of `x3` before `^` or `**` when x is a variable."""
    m = _DIGIT_POWER.fullmatch(word)
    if m and m[1] in variables and then.lstrip().startswith(("**", "^")):
        return m[1], m[2]
    return None


def readings(word: str, functions: Collection[str], variables: Collection[str],
             then: str = "") -> list[tuple[str, ...]]:
    """Every way `word` is written as pieces (see the module's docstring), fewest pieces
    first; `then` is the text after it (a function may end the name only before `(` or
    `**`: `xln(x)`, `xsec^2(x)`)."""
    funcs = [f for f in gluable() if f in functions or f == "ln"]
    pieces = sorted({*funcs, *(v for v in variables if v and v != word), PI},
                    key=len, reverse=True)
    found: list[tuple[str, ...]] = []

    def fits(prev: str | None, piece: str) -> bool:
        if prev is None:
            return not piece.isdigit()
        if prev in funcs:
            return piece not in funcs or piece in INNER or prev in ("ln", "log")
        if prev.isdigit():
            return not piece.isdigit() and piece not in funcs
        return not piece.isdigit()

    def walk(at: int, so_far: tuple[str, ...]) -> None:
        if len(found) >= MAX_READINGS:
            return
        if at == len(word):
            last = so_far[-1]
            if len(so_far) > 1 and (last not in funcs or then.startswith(("(", "**"))):
                found.append(so_far)
            return
        prev = so_far[-1] if so_far else None
        digits = len(word[at:]) - len(word[at:].lstrip("0123456789"))
        options = [word[at:at + digits]] if digits else [
            p for p in pieces if word.startswith(p, at)]
        for piece in options:
            if fits(prev, piece):
                walk(at + len(piece), (*so_far, piece))

    walk(0, ())
    if not found and (power := digit_power(word, variables, then)):
        found.append(power)
    return sorted(set(found), key=len)


def _around_pi(word: str) -> list[tuple[str, ...]]:
    """`πr` -> (π, r), `rπ` -> (r, π): π glued to a name (every other part a name)."""
    if PI not in word:
        return []
    parts = tuple(p for chunk in word.split(PI) for p in (PI, chunk) if p)[1:] \
        if word.startswith(PI) else tuple(
            p for k, chunk in enumerate(word.split(PI)) for p in ((PI, chunk) if k else (chunk,))
            if p)
    if len(parts) < 2 or not all(p == PI or p.isidentifier() for p in parts):
        return []
    return [parts]


def shown(pieces: tuple[str, ...], functions: Collection[str]) -> str:
    """One reading in the language's text: `x*sin(x)`, `sin(x)*cos(x)`, `cos(2*x)`,
    `ln(abs` (a function that ends the name takes what follows it)."""
    glue = gluable()

    def is_function(piece: str) -> bool:
        return piece in glue and (piece in functions or piece == "ln")

    out, k, n = "", 0, len(pieces)
    while k < n:
        out += "*" if out and not out.endswith("(") else ""
        if not is_function(pieces[k]):
            out, k = out + pieces[k], k + 1
            continue
        nested = 0
        while k < n and is_function(pieces[k]):
            out += pieces[k] + ("(" if k < n - 1 else "")
            nested += k < n - 1
            k += 1
        arg = []
        while k < n and not is_function(pieces[k]):
            arg.append(pieces[k])
            k += 1
        out += "*".join(arg) + ")" * (nested if arg else 0)
    return out


def unglue(text: str, functions: Collection[str], variables: Collection[str],
           at: Callable[[int], Pos], given: Collection[str] = ()
           ) -> tuple[str, list[int], tuple[Trap, ...]]:
    """`text` with glued names spaced apart, per character (plus an end entry) its offset
    in `text`, and a Trap per name read apart; a name in `given` (the caller gives it a
    value) never is. Text the tokenizer cannot read is left as it is (the parser names
    the problem)."""
    if not any(PI in w or _LOG_BASE.fullmatch(w) or variables and w not in variables
               and w not in functions and (readings(w, functions, variables, "(")
                                           or digit_power(w, variables, "**"))
               for w in set(_WORD.findall(text))):  # most texts: no tokenizing
        return text, list(range(len(text) + 1)), ()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except Exception:  # noqa: BLE001 - unreadable text: the parser reports it
        return text, list(range(len(text) + 1)), ()
    starts = LineIndex(text).starts
    names = [t for t in tokens if t.type == tokenize.NAME]
    assigned = {t.string for k, t in enumerate(tokens[:-1])
                if t.type == tokenize.NAME and tokens[k + 1].string == "="}
    out: list[str] = []
    origin: list[int] = []
    traps: list[Trap] = []
    cursor = 0
    for tok in names:
        word = tok.string
        if (keyword.iskeyword(word) or word in functions or word in variables
                or word in given or word in assigned or word == "ln" or len(word) < 2):
            continue
        based = _LOG_BASE.fullmatch(word)
        if not variables and PI not in word and not based:
            continue
        start = starts[tok.start[0] - 1] + tok.start[1]
        end = start + len(word)
        found = ([(f"log_{based[1]}", based[2])] if based else
                 readings(word, functions, variables, text[end:]) or _around_pi(word))
        if not found:
            continue
        if len(found) > 1:
            a, b = (shown(r, functions) for r in found[:2])
            raise ParseError(f"{quote(word)} can be read two ways: {a} or {b}; write it with "
                             f"a space or parentheses to say which (at {at(start)})")
        best = found[0]
        out.append(text[cursor:start])
        origin.extend(range(cursor, start))
        k = start
        for n, piece in enumerate(best):
            if n:
                out.append(" ")
                origin.append(k)
            out.append(piece)
            origin.extend(range(k, k + len(piece)))
            k += len(piece)
        cursor = end
        read = f"log({best[1]}, {based[1]})" if based else shown(best, functions)
        traps.append(Trap("glued name", word, read, None, at(start), start, end))
    if not traps:
        return text, list(range(len(text) + 1)), ()
    out.append(text[cursor:])
    origin.extend(range(cursor, len(text) + 1))
    return "".join(out), origin, tuple(traps)



def variables_in(texts: Collection[str], functions: Collection[str],
                 known: Collection[str] = ()) -> tuple[str, ...]:
    """The names that are surely variables in texts read together (a problem's function
    and answer): `known` ones (asked for, declared), every one-letter name but `e`, the
    letter a function's name is written against on another text (`sint` and `cost`: t),
    and every other name that is not written as pieces of these (`theta`, `rate`)."""
    from gradcalc.language.names import applied

    words = [set(_WORD.findall(t)) - set(functions) - {"ln"} for t in texts]
    base = {*known, *(w for ws in words for w in ws if len(w) == 1 and w != "e")}
    for k, ws in enumerate(words):
        for other in words[:k] + words[k + 1:]:
            shared = {call[1] for w in other if (call := applied(w))}
            base |= {call[1] for w in ws if (call := applied(w)) and call[1] in shared}
    rest = {w for ws in words for w in ws if w not in base and not keyword.iskeyword(w)
            and not readings(w, functions, base, "(") and not _around_pi(w)
            and not _LOG_BASE.fullmatch(w) and not any(
                digit_power(w, base, t[m.end():]) for t in texts
                for m in re.finditer(rf"\b{w}\b", t))}
    return tuple(sorted(base | rest))
