"""Parser errors in a student's words: Python's own phrasing ("invalid syntax", "Maybe you
meant '=='", "unterminated string literal") replaced by what to write instead.

The language's parser reports what Python's parser found; a homework answer is not a
program, so `check` says it in terms of the formula: a parenthesis never closed, an '='
where none is read, a quote mark that is not a prime before '='.
"""

from __future__ import annotations

import re

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
