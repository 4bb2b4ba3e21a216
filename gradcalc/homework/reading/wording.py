"""Parser errors in a student's words: Python's own phrasing ("invalid syntax", "Maybe you
meant '=='", "unterminated string literal") replaced by what to write instead.

The language's parser reports what Python's parser found; a homework answer is not a
program, so `check` says it in terms of the formula: a parenthesis never closed, an '='
where none is read, a quote mark that is not a prime before '='.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from gradcalc.errors import GradcalcError

_SYNTAX = re.compile(r"syntax error at (?P<pos>line \d+, column \d+): (?P<msg>.*)$", re.S)

#: (pattern in Python's message, what to say instead; {pos} is where)
_PLAIN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), s) for p, s in (
        (r"unterminated (triple-quoted )?string literal",
         "a quote mark at {pos} cannot be read: a prime is read only in a prefix before "
         "'=', as in f'(x) = 2x or y' = 2x"),
        (r"Maybe you meant '==' |cannot assign to",
         "'=' cannot be read at {pos}: write the formula alone (2x), or after a prefix such "
         "as f'(x) =, dy/dx = or ∂f/∂x ="),
        (r"^'(?P<b>[(\[{])' was never closed",
         "a '{b}' at {pos} is never closed"),
        (r"^unmatched '(?P<b>[)\]}])'",
         "a '{b}' at {pos} has nothing to close"),
        (r"^closing parenthesis '(?P<b>.)' does not match opening parenthesis '(?P<a>.)'",
         "'{b}' at {pos} closes a '{a}'"),
        (r"^invalid decimal literal",
         "a number runs into letters at {pos}: write 2x or 2*x, and decimals as 0.5"),
        (r"^unexpected indent|^unindent does not match",
         "remove the spaces before the formula (at {pos})"),
        (r"^(unexpected EOF|incomplete input)",
         "the formula ends too early at {pos}: an operator or a parenthesis is missing "
         "its other side"),
        (r"^invalid syntax",
         "cannot read the formula at {pos}: an operator, a number or a parenthesis is "
         "missing or extra there"),
    ))


def plain(message: str) -> str:
    """`message` with Python's parser phrasing replaced (unchanged if it has none)."""
    m = _SYNTAX.search(message)
    if not m:
        return message
    for pattern, said in _PLAIN:
        found = pattern.search(m["msg"])
        if found:
            return message[: m.start()] + said.format(pos=m["pos"], **found.groupdict())
    return message


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
#: words that are math in a formula (functions spelled out, constants)
_MATH_WORDS = frozenset({"pi", "ln", "log", "exp", "sqrt", "abs", "and", "or", "not", "if",
                         "else", "for", "in", "while", "sign"})


def prose(text: str, names: Collection[str] = (), functions: Collection[str] = ()) -> bool:
    """Whether `text` is words, not a formula ("I don't know", "no idea", "?"): a word
    with an apostrophe inside, two words of two letters or more that are no name the
    problem has nor a function, or no letter or digit at all."""
    if not text.strip() or any(c in text for c in "()[]{}^*/=_|√<>+-.@"):
        return False  # empty (the parser says so), or written as math
    if not any(c.isalnum() for c in text):
        return True
    words = _WORD.findall(text)
    if any("'" in w or "’" in w for w in words):
        return True
    from gradcalc.language.glued import readings

    plain = [w for w in words if len(w) > 1 and w not in names and w not in functions
             and w.lower() not in _MATH_WORDS and not readings(w, functions, names)]
    return len(plain) >= 2 and len(plain) * 2 >= len(words)


def not_a_formula(what: str, text: str) -> str:
    """The message for an answer written in words."""
    from gradcalc.language.text import escape

    shown = escape(" ".join(text.split())[:60], quotes=False)
    return (f"the {what} is words, not a formula: \"{shown}\"; "
            "write it as a formula, such as 2x or 3x^2·sin(x)")


def refuse_words(what: str, text: str, names: Collection[str] = (),
                 functions: Collection[str] = ()) -> None:
    """Stop with the plain message when `text` is words (`prose`), before a kind reads
    its words as names (`no idea` as the constants no and idea)."""
    if prose(text, names, functions):
        raise GradcalcError(not_a_formula(what, text), kind="parse")
