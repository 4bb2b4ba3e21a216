"""LaTeX as books and answer keys type it, rewritten into the LaTeX that latex.py reads.

TeX's own rules, which math editors never need but books use: an argument of `\\frac`,
`\\sqrt`, `^` or `_` is one token or a braced group (`\\frac1{x}`, `\\frac{e^t}t`,
`\\sqrt[4]x`, `e^\\pi`); plain TeX's `\\root 3 \\of x`; the sizes `\\big`, `\\Big`,
`\\bigg`, `\\Bigg` and their l/r/m forms; `\\left`/`\\right` with every delimiter (a pair
of bars is an absolute value: `\\left|a\\left|b\\right|c\\right|` pairs as written); a
thousands separator `1{,}100`; a log's base spaced (`log _ 2 x`); and the wrappers
`$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`. Each is an edit of the text (an
insertion or a replacement), found in one left-to-right scan, so the cost is linear and
every character keeps its offset in the text typed, for errors.
"""

from __future__ import annotations

import re

#: the commands whose arguments follow TeX's rules: how many arguments each takes
_ARGUMENTS = {"frac": 2, "dfrac": 2, "tfrac": 2, "cfrac": 2, "sqrt": 1}
_SIZES = re.compile(r"(?:big|Big|bigg|Bigg)([lrm]?)")
#: a delimiter after \left (or \bigl): the text it opens with
_OPENING = {"(": "(", "[": "(", "\\{": "(", "\\lbrace": "(", "\\lbrack": "(",
            "\\langle": "(", "|": " abs(", "\\vert": " abs(", "\\lvert": " abs(", ".": ""}
_CLOSING = {")": ")", "]": ")", "\\}": ")", "\\rbrace": ")", "\\rbrack": ")",
            "\\rangle": ")", "|": ")", "\\vert": ")", "\\rvert": ")", ".": ""}
_ALONE = {"\\lvert": " abs(", "\\rvert": ")", "\\lbrack": "(", "\\rbrack": ")",
          "\\lbrace": "(", "\\rbrace": ")", "\\vert": "|"}
#: `log _ 2 x`, `log_ 2 x`: a log's base written with spaces
SPACED_BASE = re.compile(r"(?<![A-Za-z_])log(?:\s+_\s*|_\s+)")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))

#: commands gradcalc does not read that books use, and what to write instead
INSTEAD = {
    "int": "gradcalc reads \\int f\\,dx only as an --antiderivative's function or an "
           "answer's prefix (\\int f\\,dx =); write the antiderivative itself",
    "partial": "write the partial derivative itself; ∂f/∂x = is read as a prefix",
    "dv": "write the derivative itself (d/dx = is read as a prefix)",
    "pdv": "write the partial derivative itself (∂f/∂x = is read as a prefix)",
    "over": "write \\frac{a}{b}",
    "tg": "write \\tan", "ctg": "write \\cot", "cotg": "write \\cot", "arctg": "write \\arctan",
    "arcctg": "write \\arccot", "cosec": "write \\csc", "sen": "write \\sin",
    "sech": "write \\operatorname{sech}", "csch": "write \\operatorname{csch}",
    "arcsec": "write \\sec^{-1}", "arccsc": "write \\csc^{-1}", "arccot": "write \\cot^{-1}",
    "sgn": "write \\operatorname{sign}", "abs": "write |x| or \\left|x\\right|",
    "infty": "write a number: a formula cannot hold ∞", "lim": "write the limit's value",
    "sum": "write the terms: gradcalc reads no ∑", "prod": "write the factors",
    "e": "write e", "mathbb": "write the number itself", "cdots": "write every term",
    "dots": "write every term", "ldots": "write every term",
    "le": "write <=", "leq": "write <=", "ge": "write >=", "geq": "write >=",
    "ne": "write !=", "neq": "write !=", "approx": "write the value",
    "pm": "write the two answers separately", "mp": "write the two answers separately",
}


def instead(name: str) -> str:
    """What to write instead of the command `\\name`, which gradcalc does not read."""
    return INSTEAD.get(name, "it reads \\frac, \\sqrt, \\sin and the other functions, "
                             "\\cdot, \\times, \\left, \\right, \\pi and Greek letters; "
                             "docs/language.md lists every command")


def unwrap(text: str) -> str:
    """`text` without a `$...$`, `$$...$$`, `\\(...\\)` or `\\[...\\]` around it."""
    core = text.strip()
    for opening, closing in _WRAPPERS:
        if len(core) > len(opening) + len(closing) and core.startswith(opening) \
                and core.endswith(closing):
            return core[len(opening):-len(closing)].strip()
    return text


def _token_end(text: str, k: int) -> int:
    """The end of the TeX token at k: a command `\\name`, `\\,` or one character."""
    if text[k] != "\\":
        return k + 1
    j = k + 1
    while j < len(text) and text[j].isalpha():
        j += 1
    return j if j > k + 1 else min(k + 2, len(text))


def _group_ends(text: str) -> dict[int, int | None]:
    """For each unescaped `{` of text, the offset after the `}` that closes it (None when
    none does): one pass, so that reading many nested arguments stays linear."""
    ends: dict[int, int | None] = {}
    open_at: list[int] = []
    j = 0
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "{":
            open_at.append(j)
            ends[j] = None
        elif ch == "}" and open_at:
            ends[open_at.pop()] = j + 1
        j += 1
    return ends


def _skip(text: str, k: int) -> int:
    while k < len(text) and text[k] in " \t\n":
        k += 1
    return k


class _Edits:
    """Insertions and replacements of one text, applied in one pass."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.group_ends = _group_ends(text)
        self.before: dict[int, list[str]] = {}
        self.replaced: dict[int, tuple[int, str]] = {}

    def insert(self, k: int, s: str) -> None:
        self.before.setdefault(k, []).append(s)

    def replace(self, start: int, end: int, s: str) -> None:
        self.replaced[start] = (end, s)

    def braced(self, k: int) -> int | None:
        """Read one argument at k (after spaces), bracing a single token; the offset
        after it, or None when there is none."""
        k = _skip(self.text, k)
        if k >= len(self.text) or self.text[k] in "}^_":
            return None
        if self.text[k] == "{":
            return self.group_ends.get(k)
        end = _token_end(self.text, k)
        self.insert(k, "{")
        self.insert(end, "}")
        return end

    def apply(self) -> tuple[str, list[int]]:
        out: list[str] = []
        origin: list[int] = []
        k, n = 0, len(self.text)
        while k <= n:
            for s in self.before.get(k, ()):
                out.append(s)
                origin.extend([min(k, n - 1) if n else 0] * len(s))
            if k == n:
                break
            if k in self.replaced:
                end, s = self.replaced[k]
                out.append(s)
                origin.extend([k] * len(s))
                k = end
                continue
            out.append(self.text[k])
            origin.append(k)
            k += 1
        return "".join(out), [*origin, n]


def books(text: str) -> tuple[str, list[int]]:
    """`text` with TeX's argument rules, sizes, delimiters, `{,}` and wrappers rewritten
    for latex.py, and per output character (plus an end entry) its offset in `text`."""
    edits = _Edits(text)
    _wrappers(text, edits)
    k, n = 0, len(text)
    while k < n:
        ch = text[k]
        if ch == "\\":
            k = _command(text, k, edits)
            continue
        if ch in "^_" and _command_argument(text, _skip(text, k + 1)):
            edits.braced(k + 1)  # e^\pi: a command as the exponent
        elif ch == "l" and (spaced := SPACED_BASE.match(text, k)):
            edits.replace(k, spaced.end(), "log_")  # log _ 2 x: the base's mark spaced
            k = spaced.end()
            continue
        elif text.startswith("{,}", k) and k and text[k - 1].isdigit() \
                and text[k + 3: k + 4].isdigit():
            edits.replace(k, k + 3, "")  # 1{,}100: a thousands separator
            k += 3
            continue
        k += 1
    out, origin = edits.apply()
    cut = len(out) - len(out.lstrip(" "))  # `\\left. x`, `\\[ x`: no indent left behind
    return out[cut:], origin[cut:]


def _command_argument(text: str, k: int) -> bool:
    """Whether a command that takes no argument starts at k (`\\pi`, `\\alpha`)."""
    return text[k:k + 1] == "\\" and text[k + 1:_token_end(text, k)] not in _ARGUMENTS


def _wrappers(text: str, edits: _Edits) -> None:
    start = _skip(text, 0)
    end = len(text.rstrip())
    for opening, closing in _WRAPPERS:
        if end - start > len(opening) + len(closing) and text.startswith(opening, start) \
                and text.endswith(closing, 0, end):
            edits.replace(start, start + len(opening), "")
            edits.replace(end - len(closing), end, "")
            return


def _command(text: str, k: int, edits: _Edits) -> int:
    """Read the command at k into edits; the offset to go on from."""
    end = _token_end(text, k)
    name = text[k + 1:end]
    size = _SIZES.fullmatch(name)
    if name in ("left", "right") or (size and size[1] in "lr" and size[1]):
        side = "left" if name == "left" or (size and size[1] == "l") else "right"
        return _delimiter(text, k, end, side, edits)
    if size:
        edits.replace(k, end, " ")  # \big( and \bigm|: the delimiter alone
        return end
    if name == "cfrac":
        edits.replace(k, end, "\\frac")
        return _arguments(text, end, 2, edits)
    if text[k:end] in _ALONE:
        edits.replace(k, end, _spaced(text, k, _ALONE[text[k:end]]))
        return end
    if name == "root":
        return _root(text, k, end, edits)
    if name in _ARGUMENTS:
        after = end
        if name == "sqrt" and _skip(text, after) < len(text) and text[_skip(text, after)] == "[":
            close = text.find("]", after)
            if close < 0:
                return end
            after = close + 1
        _arguments(text, after, _ARGUMENTS[name], edits)
    return end


def _spaced(text: str, k: int, opening: str) -> str:
    """` abs(` after a letter or digit (`x abs(y)`, not the name `xabs`), else `abs(`."""
    return opening if k and text[k - 1].isalnum() else opening.lstrip()


def _arguments(text: str, k: int, count: int, edits: _Edits) -> int:
    for _ in range(count):
        after = edits.braced(k)
        if after is None:
            break
        k = after
    return k


def _delimiter(text: str, k: int, end: int, side: str, edits: _Edits) -> int:
    """`\\left D` or `\\right D` (or `\\bigl D`, `\\Bigr D`): the bracket it is."""
    d = _skip(text, end)
    if d >= len(text):
        return end
    d_end = _token_end(text, d)
    table = _OPENING if side == "left" else _CLOSING
    delimiter = text[d:d_end]
    if delimiter not in table:
        return end  # latex.py names what it does not read
    edits.replace(k, d_end, _spaced(text, k, table[delimiter]))
    return d_end


def _root(text: str, k: int, end: int, edits: _Edits) -> int:
    """Plain TeX's `\\root 3 \\of x`: the cube root, as `\\sqrt[3]{x}`."""
    of = text.find("\\of", end)
    if of < 0 or text[of + 3: of + 4].isalpha():
        return end
    edits.replace(k, end, "\\sqrt[")
    edits.replace(of, of + 3, "]")
    edits.braced(of + 3)
    return end
