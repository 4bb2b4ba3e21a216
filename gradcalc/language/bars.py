"""`|...|` as the absolute value: `|x|`, `ln|x|`, `|x|^2`, `||x| - 1|`, `|x||y|`.

Which bar opens and which closes follows from what is beside it: a bar at the start,
after an operator, an opening bracket, a function's name or an opening bar opens; a bar
after an operand (a name, number, `)` or a closing bar) closes the innermost open one, or
opens one multiplied on (`|x||y|`). The bars inside each pair of brackets pair up on their
own. Every assignment of open and close that pairs up is found (a dynamic programme over
the open depth, bounded by the nesting limit); one is read, two are an error that shows
both readings (`|a|b|c|` is |a|·b·|c| or |a·|b|·c|).

An opening bar becomes `abs(` (`(abs(` after a function's name, so `ln|x|` is
ln(abs(x))), a closing one `)` (`))`). The result is read by the same notation pass, ast
whitelist and limits as anything typed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from gradcalc.errors import LimitError, ParseError
from gradcalc.language.program import Pos
from gradcalc.language.text import escape

_OPENERS, _CLOSERS = "([", ")]"
#: bars in one bracket group: the pairing's cost is bars × depths, so both are bounded
MAX_BARS = 2_000


def translate(text: str, functions: Collection[str], at: Callable[[int], Pos],
              max_depth: int = 100) -> tuple[str, list[int]]:
    """`text` with `|...|` as abs(...), and per output character (plus an end entry) its
    offset in `text`."""
    bars = _classify(text, functions)
    opening: dict[int, bool] = {}
    for ks in _runs(bars, text):
        opening.update(_pair(ks, bars, text, at, max_depth))
    out: list[str] = []
    origin: list[int] = []
    stack: list[bool] = []
    for k, ch in enumerate(text):
        if k in opening:
            if opening[k]:
                wrapped = bars[k][0] == "function"
                stack.append(wrapped)
                piece = "(abs(" if wrapped else "abs("
                if out and (out[-1][-1:].isalnum() or out[-1][-1:] == "_") and not wrapped:
                    piece = " " + piece
            else:
                piece = "))" if stack.pop() else ")"
            out.append(piece)
            origin.extend([k] * len(piece))
        else:
            out.append(ch)
            origin.append(k)
    origin.append(len(text))
    return "".join(out), origin


def _classify(text: str, functions: Collection[str]) -> dict[int, tuple[str, int]]:
    """Per bar: what is before it ('operand', 'function' or 'start') and its bracket
    level (bars pair only within one pair of brackets)."""
    bars: dict[int, tuple[str, int]] = {}
    level = 0
    word_start = -1
    prev = ""  # the last non-space character's class
    spaced = False  # a space since the last character (`x ln|x|`: the word is `ln`)
    for k, ch in enumerate(text):
        if ch.isspace():
            spaced = True
            continue
        after_space, spaced = spaced, False
        if ch == "|":
            if prev == "word":
                word = text[word_start:k].rstrip()
                kind = "function" if word in functions or word == "ln" else "operand"
            else:
                kind = "operand" if prev == "operand" else "start"
            bars[k] = (kind, level)
            prev = "bar"
        elif ch in _OPENERS:
            level += 1
            prev = "open"
        elif ch in _CLOSERS:
            level -= 1
            prev = "operand"
        elif ch.isalpha() or ch == "_" or (ch.isdigit() and prev == "word" and not after_space):
            if prev != "word" or after_space:
                word_start = k
            prev = "word"
        elif ch.isdigit() or ch == ".":
            prev = "operand"
        else:
            prev = "op"
    return bars


def _runs(bars: dict[int, tuple[str, int]], text: str) -> list[list[int]]:
    """The bars in each bracket group, in order (a group ends where its level closes)."""
    runs: dict[tuple[int, int], list[int]] = {}
    level, epoch = 0, [0]
    keys: list[tuple[int, int]] = []
    for k, ch in enumerate(text):
        if ch in _OPENERS:
            level += 1
            if len(epoch) <= level:
                epoch.append(0)
            epoch[level] += 1
        elif ch in _CLOSERS:
            level = max(level - 1, 0)
        elif k in bars:
            key = (level, epoch[level] if level < len(epoch) else 0)
            if key not in runs:
                runs[key] = []
                keys.append(key)
            runs[key].append(k)
    return [runs[key] for key in keys]


def _options(kind: str, adjacent: bool, prev_open: bool, depth: int) -> tuple[bool, ...]:
    """What a bar may be (True: opens) given what is before it and the reading so far."""
    if adjacent:  # `||`: after an opening bar it opens; after a closing one, either
        options: tuple[bool, ...] = (True,) if prev_open else (False, True)
    elif kind in ("start", "function"):
        options = (True,)
    else:
        options = (False, True)
    return tuple(o for o in options if o or depth > 0)


def _pair(ks: list[int], bars: dict[int, tuple[str, int]], text: str,
          at: Callable[[int], Pos], max_depth: int) -> dict[int, bool]:
    """Open (True) or close (False) for each bar of one bracket group."""
    n = len(ks)
    kinds = [bars[k][0] for k in ks]
    adjacent = [bool(i) and not text[ks[i - 1] + 1 : ks[i]].strip() for i in range(n)]
    State = tuple[int, bool]  # (open depth, whether the last bar opened)
    # forward: the states reachable before each bar, with how many ways (capped at 2)
    if n > MAX_BARS:
        raise LimitError(f"more than {MAX_BARS:,} '|' bars in one bracket group at "
                         f"{at(ks[0])} (the limit is {MAX_BARS:,})")
    ways: list[dict[State, int]] = [{(0, False): 1}]
    too_deep = None  # the first bar where a reading went past the depth limit
    for i in range(n):
        nxt: dict[State, int] = {}
        for (depth, prev_open), count in ways[-1].items():
            for opens in _options(kinds[i], adjacent[i], prev_open, depth):
                d = depth + (1 if opens else -1)
                if d > max_depth or d > n - 1 - i:
                    if d > max_depth and too_deep is None:
                        too_deep = ks[i]
                    continue  # too deep, or more open than bars left to close them
                nxt[(d, opens)] = min(nxt.get((d, opens), 0) + count, 2)
        ways.append(nxt)
    total = sum(c for (d, _), c in ways[n].items() if d == 0)
    if total == 0 and too_deep is not None:
        raise LimitError(f"'|' nests deeper than {max_depth} levels at {at(too_deep)} "
                         f"(the limit is {max_depth})")
    if total == 0:
        raise ParseError(f"the '|' at {at(ks[-1])} has no partner: write |...| around the "
                         "value, or abs(...)")
    # backward: the states before bar i from which the rest can end at depth 0
    can: list[set[State]] = [set() for _ in range(n + 1)]
    can[n] = {s for s in ways[n] if s[0] == 0}

    def moves(i: int, state: State) -> list[bool]:
        depth, prev_open = state
        return [o for o in _options(kinds[i], adjacent[i], prev_open, depth)
                if (depth + (1 if o else -1), o) in can[i + 1]]

    for i in range(n - 1, -1, -1):
        can[i] = {s for s in ways[i] if moves(i, s)}

    def walk(branch: int | None) -> list[bool]:
        """Closing preferred, except at bar `branch`, where the other way is taken."""
        out: list[bool] = []
        state: State = (0, False)
        for i in range(n):
            options = moves(i, state)
            pick = options[-1] if i == branch else options[0]
            out.append(pick)
            state = (state[0] + (1 if pick else -1), pick)
        return out

    first = walk(None)
    if total > 1:
        state: State = (0, False)
        for i in range(n):
            if len(moves(i, state)) > 1:
                a, b = (escape(_show(text, ks, r), quotes=False) for r in (first, walk(i)))
                raise ParseError(f"the bars at {at(ks[0])} can be read two ways: {a} or {b}; "
                                 "write abs(...) to say which")
            state = (state[0] + (1 if first[i] else -1), first[i])
    return dict(zip(ks, first, strict=True))


def _show(text: str, ks: list[int], reading: list[bool]) -> str:
    """One reading of the bars' stretch of text: abs(...) for each pair, `*` for each
    product the bars imply."""
    marks = dict(zip(ks, reading, strict=True))
    out: list[str] = []
    for k in range(ks[0], ks[-1] + 1):
        ch = text[k]
        if k in marks:
            before = out[-1][-1:] if out else ""
            if marks[k] and (before.isalnum() or before == ")"):
                out.append("*")
            out.append("abs(" if marks[k] else ")")
        else:
            if out and out[-1] == ")" and (ch.isalnum() or ch == "("):
                out.append("*")
            out.append(ch)
    return "".join(out)
