"""The LaTeX that math editors emit, translated into the language's text.

A single left-to-right scan (no recursion, no regular expression over the whole text), so
its cost is linear in the text and its output at most a few times longer; what it emits is
then read by the same notation pass, ast whitelist and limits as anything typed. Braces
become parentheses here (`x^{2}`, `e^{2x}`, `log_{10}`), so this runs on any text with a
backslash or a brace.

Read: `\\frac{a}{b}` (and `\\dfrac`, `\\tfrac`, `\\frac12`), `\\sqrt{..}`, `\\sqrt[n]{..}`
(`cbrt` for n = 3), the functions `\\sin \\cos \\tan \\sec \\csc \\cot`, their `\\arc..`
inverses and hyperbolic forms, `\\ln \\log \\exp`, `\\operatorname{name}`, `\\mathrm{..}`,
`\\cdot \\times \\div`, `\\left( \\right)` (and `\\left| \\right|`, `\\left.`), `\\pi` and the
Greek letters (`\\theta` is θ; letters that pass for Latin ones are spelled: `\\rho` is
rho), and the spacing commands `\\, \\; \\! \\quad`. Any other command is an error that
names it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from gradcalc.engine.primitive import PRIMITIVES, derived
from gradcalc.errors import ParseError
from gradcalc.language.program import Pos
from gradcalc.language.tex import instead
from gradcalc.language.text import GREEK_LOOKALIKES, GREEK_NAMES, escape


def _functions() -> frozenset[str]:
    """The commands that read as a function (\\sin, \\arcsin, \\ln): the table's entries
    say theirs (gradcalc/engine/table.py)."""
    return derived("tex", lambda: frozenset(
        c for p in PRIMITIVES.values() for c in p.facts.tex))


_OPERATORS = {"cdot": "*", "times": "*", "div": "/", "ast": "*"}
_SPACES = frozenset({",", ";", "!", ":", " ", "quad", "qquad"})
_DROPPED = frozenset({"left", "right", "displaystyle", "big", "Big", "bigg", "Bigg"})
_WRAPPERS = frozenset({"operatorname", "mathrm", "text", "mathit", "textrm"})
_FRACTIONS = frozenset({"frac", "dfrac", "tfrac"})


def _greek() -> dict[str, str]:
    names: dict[str, str] = {}
    for ch in GREEK_NAMES:
        word = unicodedata.name(ch).split()[-1].lower()
        names[word.capitalize() if ch.isupper() else word] = ch
    for ch, (_, word) in GREEK_LOOKALIKES.items():
        if ch.islower() and ch != "ς":
            names.setdefault(word, word)  # spelled, as the lookalike rule asks
    names.update({"varepsilon": "ε", "epsilon": "ε", "vartheta": "θ", "varphi": "φ",
                  "lambda": "λ", "varpi": "π", "pi": "pi"})
    return names


_GREEK = _greek()


#: what a `{` opens: (text at the open, text at the close, the group that must follow)
Group = tuple[str, str, "Group | None"]
_PLAIN: Group = ("(", ")", None)
_FRACTION: Group = ("((", ")/", ("(", "))", None))


def _displays(text: str) -> set[int]:
    """The offsets of the braces that hold a `:`, `,` or `for` at their own level: Python's
    set and dict displays, left as they are (the whitelist names them), not grouping."""
    found: set[int] = set()
    stack: list[int] = []
    for k, ch in enumerate(text):
        if ch in "([{":
            stack.append(k)
        elif ch in ")]}":
            if stack:
                stack.pop()
        elif stack and text[stack[-1]] == "{" and (
                ch in ":," or text.startswith(" for ", k)):
            found.add(stack[-1])
    return found


def _line_end(text: str, k: int) -> int:
    end = text.find("\n", k)
    return len(text) if end < 0 else end


def translate(text: str, at: Callable[[int], Pos]) -> tuple[str, list[int]]:
    """`text` with its LaTeX and braces in the language's notation, and per output
    character (plus an end entry) its offset in `text`."""
    return _Scan(text, at).run()


class _Scan:
    def __init__(self, text: str, at: Callable[[int], Pos]) -> None:
        self.text, self.at = text, at
        self.out: list[str] = []
        self.origin: list[int] = []
        #: open groups: (text at the close, the group that must follow)
        self.open: list[tuple[str, Group | None, int]] = []
        #: what the next `{` opens (queued by \frac, \sqrt[n], \operatorname)
        self.pending: Group | None = None
        #: a root's index being read: (offset of \sqrt, saved output, saved origin)
        self.index: tuple[int, list[str], list[int]] | None = None
        self.displays = _displays(text)
        self.unpaired: dict[str, int] = {}
        self.line_end = -1

    def partner(self, k: int) -> int:
        """The offset of the quote that closes the one at k on its line, or -1 (each
        line is searched at most once per quote character: linear however many quotes)."""
        ch = self.text[k]
        if self.unpaired.get(ch, -1) >= k:
            return -1
        if self.line_end < k:
            self.line_end = _line_end(self.text, k)
        end = self.line_end
        found = self.text.find(ch, k + 1, end)
        if found < 0:
            self.unpaired[ch] = end
        return found

    def emit(self, s: str, origin: int) -> None:
        self.out.append(s)
        self.origin.extend([origin] * len(s))

    def last(self) -> str:
        for piece in reversed(self.out):
            if piece:
                return piece[-1]
        return ""

    def word(self, w: str, k: int, nxt: int) -> None:
        """Emit a word, spaced from the letters and digits around it."""
        if self.last().isalnum() or self.last() == "_":
            self.emit(" ", k)
        self.emit(w, k)
        if nxt < len(self.text) and (self.text[nxt].isalnum() or self.text[nxt] == "\\"):
            self.emit(" ", k)

    def error(self, k: int, message: str) -> ParseError:
        return ParseError(f"{escape(message, quotes=False)} (at "
                          f"{self.at(min(k, len(self.text)))})")

    def run(self) -> tuple[str, list[int]]:
        text, n, k = self.text, len(self.text), 0
        while k < n:
            ch = text[k]
            if ch == "\\":
                k = self.command(k)
                continue
            if ch == "{":
                group, self.pending = self.pending or _PLAIN, None
                if group is _PLAIN and k in self.displays:
                    group = ("{", "}", None)  # a set or dict display: the whitelist's error
                if not group[0] and (self.last().isalnum() or self.last() == "_"):
                    self.emit(" ", k)
                self.emit(group[0], k)
                self.open.append((group[1], group[2], k))
            elif ch == "}":
                if not self.open:
                    raise self.error(k, "'}' closes no '{'")
                close, then, _ = self.open.pop()
                self.emit(close, k)
                if then is not None:
                    self.pending = then
                    k = self.expect_group(k + 1, "\\frac needs {numerator}{denominator}")
                    continue
            elif ch == "]" and self.index is not None:
                self.end_index(k)
            elif ch in "'\"" and self.partner(k) > k:
                end = self.partner(k)
                for j in range(k, end + 1):  # a string literal: the whitelist refuses it
                    self.emit(text[j], j)
                k = end
            else:
                self.emit(ch, k)
            k += 1
        if self.index is not None:
            raise self.error(self.index[0], "\\sqrt[ is not closed by ]")
        if self.open:
            raise self.error(self.open[-1][2], "this '{' is not closed")
        return "".join(self.out), [*self.origin, n]

    def skip_spaces(self, k: int) -> int:
        while k < len(self.text) and self.text[k] == " ":
            k += 1
        return k

    def expect_group(self, k: int, message: str) -> int:
        """The next non-space character must open a group; the offset of that `{`."""
        k = self.skip_spaces(k)
        if k >= len(self.text) or self.text[k] != "{":
            raise self.error(k, message)
        return k

    def command(self, k: int) -> int:
        text, n = self.text, len(self.text)
        j = k + 1
        while j < n and text[j].isalpha():
            j += 1
        if j == k + 1:
            j = min(k + 2, n)  # a one-character command: \, \; \{ \}
        name = text[k + 1 : j]
        if name in _SPACES:
            self.emit(" ", k)
        elif name in ("{", "}"):
            self.emit("(" if name == "{" else ")", k)
        elif name == "|":
            self.emit("|", k)
        elif name in _DROPPED:
            if j < n and text[j] == ".":
                j += 1  # \left. \right.
        elif name in _OPERATORS:
            self.emit(_OPERATORS[name], k)
        elif name in _functions() or name in _GREEK:
            self.word(name if name in _functions() else _GREEK[name], k, j)
        elif name in _WRAPPERS:
            self.pending = ("", " ", None)  # the group's text as it is: \operatorname{sech}
            return self.expect_group(j, f"\\{name} needs {{...}}")
        elif name in _FRACTIONS:
            return self.fraction(k, j)
        elif name == "sqrt":
            return self.root(k, j)
        else:
            raise self.error(k, f"the LaTeX command \\{name} is not one gradcalc reads "
                             f"({instead(name)})")
        return j

    def single(self, j: int) -> tuple[str, int, int] | None:
        """A one-character argument at j (after spaces): (it, its offset, the next)."""
        j = self.skip_spaces(j)
        if j < len(self.text) and self.text[j].isalnum():
            return self.text[j], j, j + 1
        return None

    def fraction(self, k: int, j: int) -> int:
        one = self.single(j)
        if one is None:
            self.pending = _FRACTION
            return self.expect_group(j, "\\frac needs {numerator}{denominator}")
        two = self.single(one[2])  # \frac12, \frac1x: one character each
        if two is None:
            raise self.error(k, "\\frac needs a numerator and a denominator")
        for piece, at in (("((", k), (one[0], one[1]), (")/(", k), (two[0], two[1]),
                          ("))", k)):
            self.emit(piece, at)
        return two[2]

    def root(self, k: int, j: int) -> int:
        if j < len(self.text) and self.text[j] == "[":
            if self.index is not None:
                raise self.error(k, "a root's index cannot hold another root's index")
            self.index = (k, self.out, self.origin)
            self.out, self.origin = [], []
            return j + 1
        one = self.single(j)
        self.word("sqrt", k, j)
        if one is not None:  # \sqrt x, \sqrt2
            for piece, at in (("(", k), (one[0], one[1]), (")", k)):
                self.emit(piece, at)
            return one[2]
        return self.expect_group(j, "\\sqrt needs {...}")

    def end_index(self, k: int) -> None:
        assert self.index is not None
        at, out, origin = self.index
        index, self.index = "".join(self.out).strip(), None
        self.out, self.origin = out, origin
        self.expect_group(k + 1, "\\sqrt[n] needs {...}")
        if index in ("", "2", "3"):
            self.word("cbrt" if index == "3" else "sqrt", at, k + 1)
        elif not all(c.isalnum() or c in " +-*/().θ" for c in index):
            raise self.error(at, f"the root's index {index!r} is not a number or a name")
        else:
            self.pending = ("((", f")**(1/({index})))", None)
