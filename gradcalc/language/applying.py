"""Functions applied as students write them, for the notation pass (notation.py): rules
that take the pass (`_Pass`) and add edits to it, each recording a `Trap` (forms.py) where
another reading of the same text exists.

- a bare argument: `sin x`, `ln x`, `sin 2x`, `sin x^2`, `cos 3` read as sin(x), ln(x),
  sin(2x), sin(x²), cos(3): the argument is the factors written together after the name
  (numbers, names, bracketed groups, each with its power), up to an operator, a space
  before another function, or the end (`sin x cos x` is sin(x)·cos(x));
- `sin^2 x`, `cos²x` are (sin x)², `sin^-1 x`, `sin^-1(x)`, `sin^(-1)(x)` are asin(x)
  (the inverse function, as in calculus books; any other negative power stays an error);
- `log_2 x`, `log_2(x)`, `log_(10)(x)` (from `log_{10}`) are log(x, 2), the log to base 2;
- a name that ends in a function's name before `(` is a product: `xcos(x)` is x·cos(x);
  a one-letter name followed by `e` before `^` is too: `xe^x` is x·e^x (unless the text
  assigns that name or the caller gives it a value: `grad "xe^x" --at "xe=2, x=1"`).

These rewrite only token sequences the plain language refuses (a function's name not
followed by `(`, an unknown function's call), except `xe^x` and `log_2 x`, whose names a
program could have given values: a name the text assigns, or one the caller names as a
variable (the names given values), is never split.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import replace
from typing import Any

from gradcalc.engine.primitive import PRIMITIVES, derived
from gradcalc.language.forms import Trap
from gradcalc.language.names import SPELLINGS, applied


def inverses() -> dict[str, str]:
    """`f^-1` is the inverse function of these (sin^-1 is asin): the table's entries
    say their inverse (gradcalc/engine/table.py)."""
    return derived("inverses", lambda: {n: p.facts.inverse for p in PRIMITIVES.values()
                                        if p.facts.inverse for n in p.names})


_LOG_BASE = re.compile(r"log_(\d+|[A-Za-z])")


def record(p: Any, kind: str, first: int, last: int, read: str, other: str | None) -> None:
    p.traps.append(Trap(kind, p.text[p.starts[first]:p.ends[last]], read, other,
                        p.at(p.starts[first]), p.starts[first], p.ends[last]))


def span(p: Any, first: int, last: int) -> str:
    return p.text[p.starts[first]:p.ends[last]]


# --------------------------------------------------------------------------- bare arguments


def factor_end(p: Any, k: int) -> int | None:
    """The last token of the factor that starts at k (with its index and power), or None."""
    if p.kind(k) == tokenize.NUMBER or p.is_value(k) and not p.s(k).startswith("log_"):
        end = k
        while p.s(end + 1) == "[" and end + 1 in p.match:
            end = p.match[end + 1]
    elif p.s(k) == "(" and k in p.match:
        end = p.match[k]
    else:
        return None
    if p.s(end + 1) == "**":
        j = end + 2
        if p.s(j) in ("-", "+"):
            j += 1
        if p.s(j) == "(" and j in p.match:
            return p.match[j]
        if p.kind(j) == tokenize.NUMBER or p.is_value(j):
            return j
    return end


def argument(p: Any, j: int) -> tuple[int, list[int]] | None:
    """A bare argument starting at token j: (its last token, its factors' first tokens)."""
    firsts: list[int] = []
    k, end = j, None
    while True:
        if firsts and p.s(k) == "e" and p.s(k + 1) == "**":
            break  # `cos x e^(sin x)`: e^ starts a new factor, as after a power
        last = factor_end(p, k)
        if last is None:
            break
        firsts.append(k)
        end = last
        k = last + 1
        if p.s(k) == "(" and (p.starts[k] > p.ends[last] or p.is_value(last)):
            break  # `sin x (x+1)`, `cos x(x+1)`: a bracket after a name is a product outside
    return None if end is None else (end, firsts)


def bare_call(p: Any, i: int, name: str, start: int | None = None,
              close: str = "") -> bool:
    """`name ARG` with ARG bare after token i: `name(` ... `)`; False if no argument. A
    sign before it belongs to it (`sin -x*3` is sin(-x)·3: recorded)."""
    sign = signed(p, i)
    found = argument(p, i + 1 + sign)
    if found is None:
        return False
    end, firsts = found
    head = p.starts[i] if start is None else start
    p.edit(head, p.ends[i], f"{name}(", head)
    p.edit(p.ends[end], p.ends[end], ")" + close, p.ends[end])
    p.no_product.add(i)
    arg = span(p, i + 1, end)
    written = p.text[head:p.ends[end]]
    if p.s(end + 1) == "(" and end + 1 in p.match:
        p.argument_ends.add(end)  # the bracket after it is a factor: the pass adds `*`
        if p.starts[end + 1] == p.ends[end] and p.is_value(end):
            group = span(p, end + 1, p.match[end + 1])
            p.traps.append(Trap("function argument", p.text[head:p.ends[p.match[end + 1]]],
                                f"{name}({arg}){close}*{group}",
                                f"{name}({arg}*{group}){close}", p.at(head), head,
                                p.ends[p.match[end + 1]]))
            return True
    if sign and p.s(end + 1) in ("*", "/") and argument(p, end + 2) is not None:
        last = argument(p, end + 2)[0]  # type: ignore[index]
        p.traps.append(Trap("function argument", p.text[head:p.ends[last]],
                            f"{name}({arg}){close}{span(p, end + 1, last)}",
                            f"{name}({span(p, i + 1, last)}){close}", p.at(head), head,
                            p.ends[last]))
    elif len(firsts) > 1:
        first_end = firsts[1] - 1
        names = all(p.is_name(k) for k in firsts)  # sin x y, sin xy: the peers differ
        p.traps.append(Trap("product argument" if names else "function argument", written,
                            f"{name}({arg}){close}",
                            f"{name}({span(p, i + 1, first_end)}){close}*"
                            f"{span(p, firsts[1], end)}", p.at(head), head, p.ends[end]))
    elif p.s(end + 1) == "/" and (p.kind(end + 2) == tokenize.NUMBER or p.is_value(end + 2)):
        p.traps.append(Trap("function argument", f"{written}/{p.s(end + 2)}",
                            f"{name}({arg}){close}/{p.s(end + 2)}",
                            f"{name}({arg}/{p.s(end + 2)}){close}", p.at(head), head,
                            p.ends[end + 2]))
    elif p.s(factor_end_base(p, i + 1) + 1) == "**":
        base = factor_end_base(p, i + 1)
        p.traps.append(Trap("function argument", written, f"{name}({arg}){close}",
                            f"{name}({span(p, i + 1, base)}){close}"
                            f"{p.text[p.ends[base]:p.ends[end]]}", p.at(head), head,
                            p.ends[end]))
    return True


def bracket_argument(p: Any, i: int) -> bool:
    """`ln [u-2]^2` (a book's square brackets after a function's name): ln((u-2)^2), its
    power inside as `ln x^2`'s is (recorded: ln(u-2)^2 is the other reading)."""
    k = i + 1
    if p.s(k) != "[" or k not in p.match:
        return False
    close = end = p.match[k]
    if p.s(close + 1) == "**":
        j = close + 2 + (p.s(close + 2) in ("-", "+"))
        end = p.match[j] if p.s(j) == "(" and j in p.match else j
    name, inner = p.spelled(i), span(p, k + 1, close - 1) if close > k + 1 else ""
    power = p.text[p.ends[close]:p.ends[end]]
    p.edit(p.starts[i], p.ends[i], f"{name}(", p.starts[i])
    p.edit(p.starts[k], p.ends[k], "(", p.starts[k])
    p.edit(p.starts[close], p.ends[close], ")", p.starts[close])
    p.edit(p.ends[end], p.ends[end], ")", p.ends[end])
    p.no_product.add(i)
    p.no_product.add(end)
    record(p, "bracket argument", i, end, f"{name}(({inner}){power})",
           f"{name}({inner}){power}" if power else None)
    return True


def bare_chain(p: Any, i: int) -> bool:
    """`ln ln x` (from `\\ln\\ln x`): ln(ln(x)), link by link: this function applied to
    the next, closed after the bare argument that ends the chain; False without one.
    Only logs chain so (books' `\\ln\\ln x`): `sin cos x` stays an error."""
    if p.spelled(i) != "log":
        return False
    k = i + 1
    while p.is_function(k) and p.spelled(k) == "log":
        k += 1
    found = argument(p, k)
    if found is None or k == i + 1:
        return False
    end = found[0]
    p.edit(p.starts[i], p.ends[i], p.spelled(i), p.starts[i])
    p.edit(p.ends[i], p.starts[i + 1], "(", p.ends[i])
    p.edit(p.ends[end], p.ends[end], ")", p.ends[end])
    p.no_product.add(i)
    return True


def signed(p: Any, i: int) -> bool:
    """Whether a function's name at token i is followed by `-` and a bare factor, with
    no space after the sign (`sin -x`, not `sin - x`)."""
    return (p.s(i + 1) == "-" and i + 2 < len(p.starts) and p.ends[i + 1] == p.starts[i + 2]
            and p.starts[i + 1] > p.ends[i] and factor_end(p, i + 2) is not None)


def call_argument(p: Any, i: int) -> bool:
    """`ln abs(x)` (from `lnabs(x)`), `sin cos(x)`: a function applied to a call of
    another, ln(abs(x)); `ln ln ln(x)` (from `lnlnln(x)`) link by link, each closed
    after the call that ends the chain; False when the chain ends in no call."""
    k = i + 1
    m = k
    while p.s(m + 1) != "(" and p.is_function(m + 1):
        m += 1
    if p.s(m + 1) != "(" or m + 1 not in p.match:
        return False
    last = p.match[m + 1]
    p.edit(p.ends[i], p.starts[k], "(", p.ends[i])
    p.edit(p.ends[last], p.ends[last], ")", p.ends[last])
    p.no_product.add(i)
    if p.s(i) in ("ln", "log") and p.s(i) != p.spelled(i):
        p.edit(p.starts[i], p.ends[i], p.spelled(i))
    return True


def run_end(p: Any, k: int) -> int | None:
    """The last token of the factors written side by side from token k (`2x`, `x y`,
    `πr^3`, `x(x+1)`, `√x`): what a divisor before them may be meant to hold."""
    end = None
    while True:
        if p.is_root(k):
            nxt = k + 1
            last = p.match.get(nxt) if p.s(nxt) == "(" else factor_end(p, nxt)
        else:
            last = factor_end(p, k)
        if last is None:
            return end
        end = last
        k = last + 1
        if not (p.is_value(k) or p.kind(k) == tokenize.NUMBER and p.s(k - 1) == ")"
                or p.s(k) == "(" or p.is_root(k)):
            return end


def variable_then_bracket(p: Any, left: int, right: int) -> bool:
    """`r(2s^2 + 3t^3)`, `y(3 - x ln y)`: a variable the caller named, before a bracket, is
    a product (WeBWorK's reading: a variable is no function); recorded, with no other
    reading (gradcalc has no functions of the user's)."""
    name = p.s(left)
    if name not in p.variables or len(name) > 1 or name in p.functions or right not in p.match:
        return False  # one letter only: `open(...)` is no product, whatever it names
    close = p.match[right]
    if p.s(close + 1) == "=" and (left == 0 or p.kind(left - 1) in (
            tokenize.NEWLINE, tokenize.NL) or p.s(left - 1) == ";"):
        return False  # `f(x) = ...`: a definition
    record(p, "variable then parenthesis", left, close,
           f"{p.s(left)}*{span(p, right, close)}", None)
    return True


def run_start(p: Any, k: int) -> int | None:
    """The first token of the factors written side by side that end at token k (`2 x` in
    `2 x / 5 y`, `x^2` in `x^2/2x`): what a quotient's numerator is."""
    start = None
    while k >= 0:
        if p.s(k) == ")" and k in p.closers:
            k = p.closers[k]
            if p.is_function(k - 1) or p.is_root(k - 1):
                k -= 1
        elif not (p.kind(k) == tokenize.NUMBER or p.is_value(k)):
            return start
        if p.s(k - 1) == "**":
            k -= 2  # a power: its base is the factor
            continue
        start = k
        k -= 1
        if not (p.kind(k) == tokenize.NUMBER or p.is_value(k) or p.s(k) == ")"):
            return start
    return start


def factor_end_base(p: Any, k: int) -> int:
    """The last token of a factor's base (before its power)."""
    end = k
    if p.s(k) == "(" and k in p.match:
        return p.match[k]
    while p.s(end + 1) == "[" and end + 1 in p.match:
        end = p.match[end + 1]
    return end


# --------------------------------------------------------------------------- powers


def function_power(p: Any, i: int, word: str) -> bool:
    """`sin**2 x`, `sin**-1 x`, `sin**-1(x)`, `sin**(-1)(x)` after token i (a function).
    True if handled here; the pass handles `sin**2(x)` itself."""
    j = i + 2
    inverse = None
    if p.s(j) == "-" and p.s(j + 1) == "1" and p.kind(j + 1) == tokenize.NUMBER:
        inverse = j + 1
    elif (p.s(j) == "(" and p.s(j + 1) == "-" and p.s(j + 2) == "1"
          and p.s(j + 3) == ")"):
        inverse = j + 3
    if inverse is not None:
        name = inverses().get(word)
        if name is None or name not in p.functions:
            raise p.error(i, f"{word}^-1 is ambiguous: write {word}(x)^-1 or 1/{word}(x)")
        p.no_product.add(inverse)
        if p.s(inverse + 1) == "(":
            p.edit(p.starts[i], p.ends[inverse], name)
            close = p.match.get(inverse + 1, inverse + 1)
            other = f"1/{word}{span(p, inverse + 1, close)}"
            record(p, "inverse function", i, close, f"{name}{span(p, inverse + 1, close)}",
                   other)
            return True
        if _called(p, i, inverse, word, name):
            return True
        if not bare_call(p, inverse, name, start=p.starts[i]):
            raise p.error(i, f"{word}^-1 needs what it applies to: write {name}(x)")
        p.traps[-1:] = [t for t in p.traps[-1:] if t.kind != "function argument"]
        end = argument(p, inverse + 1)[0]  # type: ignore[index]
        arg = span(p, inverse + 1, end)
        record(p, "inverse function", i, end, f"{name}({arg})", f"1/{word}({arg})")
        return True
    if p.s(j) in ("-", "+"):
        raise p.error(i, f"{word}^{p.s(j)}{p.s(j + 1)} x is ambiguous: write "
                      f"{word}(x)^{p.s(j)}{p.s(j + 1)}")
    last = _exponent_end(p, j)
    if last is None or p.s(last + 1) == "(":
        return False
    found = argument(p, last + 1)
    if found is None:
        return False
    end = found[0]
    power = span(p, j, last)
    p.edit(p.starts[i], p.ends[last], f"({p.spelled(i)}(", p.starts[i])
    p.edit(p.ends[end], p.ends[end], f")**{power})", p.starts[j])
    p.no_product.add(last)
    arg = span(p, last + 1, end)
    record(p, "function power", i, end, f"{word}({arg})**{power}", None)
    return True


def _exponent_end(p: Any, j: int) -> int | None:
    """The last token of a function's power starting at token j: a number, a name
    (`sin^n x`) or a bracket (`cos^(7/2) x`); None for anything else."""
    if p.kind(j) == tokenize.NUMBER or p.is_value(j):
        return j
    if p.s(j) == "(" and j in p.match:
        return p.match[j]
    return None


def _called(p: Any, i: int, inverse: int, word: str, name: str) -> bool:
    """`tan^-1 sqrt(x)` (from `\\tan^{-1}\\sqrt x`): the inverse applied to a call."""
    k = inverse + 1
    if not p.is_function(k) or p.s(k + 1) != "(" or k + 1 not in p.match:
        return False
    close = p.match[k + 1]
    p.edit(p.starts[i], p.ends[inverse], f"{name}(", p.starts[i])
    p.edit(p.ends[close], p.ends[close], ")", p.ends[close])
    p.no_product.add(inverse)
    arg = span(p, k, close)
    record(p, "inverse function", i, close, f"{name}({arg})", f"1/{word}({arg})")
    return True


# --------------------------------------------------------------------------- names


def log_base(p: Any, i: int) -> None:
    """`log_2 x`, `log_2(x)`, `log_(10)(x)`: log(x, base)."""
    word = p.s(i)
    m = _LOG_BASE.fullmatch(word)
    if m:
        base, last = m[1], i
    elif word == "log_" and p.s(i + 1) == "(" and i + 1 in p.match:
        last = p.match[i + 1]
        base = span(p, i + 2, last - 1) if last > i + 2 else ""
        if not base:
            return
    else:
        return
    if "log" not in p.functions or (word in p.assigned):
        return
    point = p.s(last + 1)
    if m and m[1].isdigit() and point.startswith(".") and p.kind(last + 1) == tokenize.NUMBER \
            and p.starts[last + 1] == p.ends[last] and point[1:].isdigit():
        base, last = f"{m[1]}{point}", last + 1  # `log_2.5x`: the base is 2.5
        rest = argument(p, last + 1)
        if rest is None:
            return
        old = (f"log({point}*{span(p, last + 1, rest[0])}, {m[1]})" if
               p.is_value(last + 1) and p.starts[last + 1] == p.ends[last] else None)
        _based(p, i, last, base)
        p.traps[-1] = replace(p.traps[-1], other=old)
        return
    _based(p, i, last, base)


def _based(p: Any, i: int, last: int, base: str) -> None:
    """`log_BASE ARG` from token i, the base ending at token `last`."""
    p.no_product.add(last)
    if p.s(last + 1) == "(" and last + 1 in p.match:
        close = p.match[last + 1]
        p.edit(p.starts[i], p.ends[last], "log")
        p.edit(p.starts[close], p.starts[close], f", {base}")
        record(p, "log base", i, close, f"log({span(p, last + 2, close - 1)}, {base})", None)
    elif bare_call(p, last, "log", start=p.starts[i], close=""):
        edit = p.edits[-1]
        edit.text = f", {base})"
        end = argument(p, last + 1)[0]  # type: ignore[index]
        p.traps[-1:] = [t for t in p.traps[-1:] if t.kind != "function argument"]
        record(p, "log base", i, end, f"log({span(p, last + 1, end)}, {base})", None)


def log_ten(p: Any, i: int) -> None:
    """`log(x)`, `log x`: the natural log, as in calculus books and gradcalc; recorded,
    the other reading being the log to base 10 (what a problem set may mean by log)."""
    if "log10" not in p.functions or p.s(i) in p.assigned:
        return
    if p.s(i + 1) == "(" and i + 1 in p.match:
        close = p.match[i + 1]
        if any(p.s(k) == "," for k in range(i + 2, close)):
            return
        arg = span(p, i + 2, close - 1) if close > i + 2 else ""
    else:
        found = argument(p, i + 1)
        if found is None:
            return
        close = found[0]
        arg = span(p, i + 1, close)
    if arg:
        record(p, "log base", i, close, f"log({arg})", f"log10({arg})")


def split(p: Any, i: int) -> None:
    """`xcos(x)` -> x*cos(x); `xe**x` -> x*e**x (token i a name that is no function)."""
    word = p.s(i)
    if word in p.assigned or word in p.given or len(word) < 2:
        return  # a name the text assigns or the caller gives a value is never split
    if p.s(i + 1) == "(":
        tail = max((f for f in p.functions if word.endswith(f) and len(f) < len(word)),
                   key=len, default=None)
        if tail is None:
            return
    elif p.s(i + 1) == "**" and word.endswith("e") and len(word) == 2 and word[0].isalpha():
        tail = "e"
    else:
        return
    head = word[: -len(tail)]
    if (not head.isidentifier() and not head.isdigit()) or head in ("a", "ar", "arc") \
            or word in SPELLINGS:
        return  # `arsech(x)` is an inverse's name, not ar*sech(x): the error says so
    if head in ("ln", "log") and tail != "e" and i + 1 in p.match:
        return _composed(p, i, head, tail)
    p.edit(p.starts[i], p.ends[i], f"{head}*{tail}")
    p.no_product.add(i)  # `2xcos(x)`: the call stays a call
    if tail == "e":
        end = i + 3 if p.s(i + 2) in ("-", "+") else i + 2
        end = p.match.get(end, end)
    else:
        end = p.match.get(i + 1, i + 1)
    record(p, "split name", i, end, f"{head}*{tail}{p.text[p.ends[i]:p.ends[end]]}", None)


def _composed(p: Any, i: int, head: str, tail: str) -> None:
    """`lnarccos(x)` in a program: ln(arccos(x)), a log of a call, never ln·arccos(x)."""
    close = p.match[i + 1]
    p.edit(p.starts[i], p.ends[i], f"log({tail}")
    p.edit(p.ends[close], p.ends[close], ")")
    p.no_product.add(i)
    record(p, "split name", i, close, f"log({tail}{span(p, i + 1, close)})", None)


def assigned_names(p: Any) -> frozenset[str]:
    """Names the text assigns (`name =`, `for name`): never split or read as a log."""
    out = set()
    for k in range(len(p.toks)):
        if p.kind(k) == tokenize.NAME and (
                p.s(k + 1) == "=" or p.s(k - 1) == "for"):
            out.add(p.s(k))
    return frozenset(out)


# --------------------------------------------------------------------------- after a bare power


def new_factor(p: Any, left: int, right: int) -> bool:
    """Whether the name at `right`, written at once after the bare number exponent ending
    at `left`, starts a new factor: a function's name or `e^` after any power (`x^2e^x`,
    `x^3ln x`), any other name after a power of a variable or a bracket (`x^2y`). After a
    power of `e` or of a number, a variable stays ambiguous (`e^2x` is meant as e^(2x) by
    most who type it, and read as e²·x by WeBWorK and STACK)."""
    if p.kind(left) != tokenize.NUMBER or not p.is_name(right) or not p.s(right).isalpha():
        return False
    if p.is_function(right) or p.s(right) == "e" and p.s(right + 1) == "**":
        return True
    power = left - 1 if p.s(left - 1) == "**" else left - 2
    base = p.s(power - 1)
    return p.is_value(right) and p.kind(power - 1) != tokenize.NUMBER and base != "e"


def _factor_last(p: Any, k: int) -> int:
    """The last token of the factor starting at name k (a call, a bare call, a power)."""
    if p.is_function(k):
        if p.s(k + 1) == "(" and k + 1 in p.match:
            return int(p.match[k + 1])
        found = argument(p, k + 1)
        return found[0] if found else k
    return factor_end(p, k) or k


def power_then_factor(p: Any, left: int, right: int) -> None:
    """`x**2e**x`, `x**3ln x`, `x**2y`: the power, then a new factor (recorded: the other
    reading puts the factor in the exponent)."""
    power = left - 1 if p.s(left - 1) == "**" else left - 2
    base = power - 1
    if p.s(base) == ")" and base in p.closers:
        base = p.closers[base]
    last = _factor_last(p, right)
    b, e, f = span(p, base, power - 1), span(p, power + 1, left), span(p, right, last)
    record(p, "power then factor", base, last, f"{b}**{e}*{f}", f"{b}**({e}*{f})")


def radicand_then_bracket(p: Any, left: int, right: int) -> None:
    """`√x(x+1)`: √x times the bracket (recorded: the other reading takes the root of the
    product)."""
    root, close = left - 1, p.match[right]
    x, g = p.s(left), span(p, right, close)
    record(p, "root then parenthesis", root, close, f"√{x}*{g}", f"√({x}*{g})")


def applied_name(p: Any, i: int) -> None:
    """`sint` as sin(t), for a name the caller listed (it knows t is a variable and sint is
    none): recorded, with no other reading (the name `sint` has no value)."""
    call = applied(p.s(i))
    if call is None:
        return
    name, letter = call
    name = "log" if name == "ln" and "log" in p.functions else name
    p.edit(p.starts[i], p.ends[i], f"{name}({letter})")
    record(p, "split name", i, i, f"{name}({letter})", None)
