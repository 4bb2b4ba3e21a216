"""Text hygiene: what characters a program may contain, normalisation, safe quoting, positions.

Every text gradcalc reads (programs, answers, --at values, option names) passes through
`normalize` first: NFKC, web and homework symbols to ASCII operators, and a refusal of
invisible, control and lookalike characters, so what a person sees is what runs.

Names are ASCII, plus the Greek letters that cannot be mistaken for a Latin one
(`GREEK_NAMES`); `√` is kept for the notation pass (gradcalc/language/notation.py).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_right

from gradcalc.errors import GradcalcError, ParseError
from gradcalc.language.program import Pos

# --------------------------------------------------------------------------- safe quoting

_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'"}


def escape(text: str, quotes: bool = True) -> str:
    """`text` with non-printable characters escaped (and quotes/backslashes if `quotes`)."""
    out = []
    for ch in text:
        if ch in _SHORT_ESCAPES and (quotes or ch not in "'\\"):
            out.append(_SHORT_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)


def quote(text: str, limit: int = 40) -> str:
    """A repr-like, single-quoted snippet of user text that is safe to print.

    Non-printable characters (controls, ESC, bidi, zero-width) become \\uXXXX escapes;
    text longer than `limit` characters is cut and ends in '...'.
    """
    cut = text[:limit]
    return "'" + escape(cut) + ("..." if len(text) > limit else "") + "'"


def codepoint(ch: str, brackets: bool = True) -> str:
    """'U+202E (RIGHT-TO-LEFT OVERRIDE)' for a character."""
    name = unicodedata.name(ch, "")
    if not name:
        return f"U+{ord(ch):04X}"
    return f"U+{ord(ch):04X} ({name})" if brackets else f"U+{ord(ch):04X}, {name}"


# --------------------------------------------------------------------------- positions


class LineIndex:
    """Offsets -> 1-based (line, column) in one text; '\\r\\n', '\\r' and '\\n' end lines."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def pos(self, index: int) -> Pos:
        line = bisect_right(self.starts, index)
        return Pos(line, index - self.starts[line - 1] + 1)

    def offset(self, line: int, col: int) -> int:
        """Offset of 0-based `col` on 1-based `line` (clamped to the text)."""
        line = min(max(line, 1), len(self.starts))
        return self.starts[line - 1] + max(col, 0)

    def segment(self, text: str, node: ast.AST) -> str:
        """The source of an ast node of `text` (ASCII code, so byte columns are characters);
        unlike ast.get_source_segment, it does not re-split the text on every call."""
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None) or node.col_offset
        return text[self.offset(node.lineno, node.col_offset) : self.offset(end_line, end_col)]


class Where:
    """Maps positions in the parsed text (normalised and rewritten) back to the user's."""

    def __init__(self, original: str, parsed: str, origin: list[int]) -> None:
        self.original = LineIndex(original)
        self.parsed_lines = LineIndex(parsed)
        self.parsed = parsed
        self.origin = origin  # len(parsed) + 1 entries: parsed offset -> original offset

    def offset(self, line: int, col: int) -> int:
        return min(self.parsed_lines.offset(line, col), len(self.parsed))

    def at(self, offset: int) -> Pos:
        return self.original.pos(self.origin[min(max(offset, 0), len(self.parsed))])

    def of(self, node: ast.AST) -> Pos:
        return self.at(self.offset(node.lineno, node.col_offset))

    def line(self, parsed_line: int) -> int:
        return self.at(self.offset(parsed_line, 0)).line


# --------------------------------------------------------------------------- normalisation

SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿⁱ", "0123456789+-()ni", strict=True))
_REPLACE = {
    "^": "**",
    #: what math editors paste: a bullet or a modifier circumflex for `*` and `^`
    "ˆ": "**", "˄": "**", "‸": "**",
    **dict.fromkeys("×·⋅∙∗•", "*"),
    **dict.fromkeys("÷∕⁄", "/"),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d", "-"),
    #: look-alikes that fonts and math editors paste: U+2052 (a commercial minus), a
    #: turned v for a caret, ornamental and white parentheses
    "\u2052": "-", "\u028c": "**",
    **dict.fromkeys("\u2768\u276a\u27ee\u2985\ufd3e", "("),
    **dict.fromkeys("\u2769\u276b\u27ef\u2986\ufd3f", ")"),
}
_BAD_CATEGORIES = {"Cc": "control", "Cf": "invisible formatting", "Cs": "surrogate",
                   "Zl": "line separator", "Zp": "paragraph separator"}
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = set("\u200b\u200c\u200d\u2060\ufeff")


def _bad_char(ch: str) -> str | None:
    """Why `ch` may not appear anywhere in a program (None if it may)."""
    if ch in "\n\t\r":
        return None
    if ch == "\0":
        return "NUL character"
    if ch in _BIDI:
        return "bidirectional control character"
    if ch in _ZERO_WIDTH:
        return "zero-width character"
    category = _BAD_CATEGORIES.get(unicodedata.category(ch))
    return f"{category} character" if category else None


def normalize_with_origin(text: str) -> tuple[str, list[int]]:
    """Normalised text (BOM already stripped) and, per character plus one end entry, its
    offset in `text`."""
    lines = LineIndex(text)
    out: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        why = _bad_char(ch)
        if why:
            raise ParseError(f"{why} {codepoint(ch)} at {lines.pos(i)} is not allowed")
        if ch in SUPERSCRIPTS:
            j = i
            while j < n and text[j] in SUPERSCRIPTS:
                j += 1
            power = "".join(SUPERSCRIPTS[c] for c in text[i:j])
            rep = "**" + (power if re.fullmatch(r"[+-]?\d+", power) else f"({power})")
        elif ch == "\r":
            rep, j = "\n", i + (2 if text[i + 1 : i + 2] == "\n" else 1)
        else:
            j = i + 1
            rep = ch if ch.isascii() else unicodedata.normalize("NFKC", ch)
            rep = "".join(_REPLACE.get(c, c) for c in rep)
        out.append(rep)
        origin.extend([i] * len(rep))
        i = j
    origin.append(n)
    result = "".join(out)
    _check_ascii(result, origin, text, lines)
    return result, origin



#: Greek letters allowed in names: those whose glyph cannot pass for a Latin letter.
#: Left out (they look like Latin letters in common terminal fonts, the lookalike attack
#: the ASCII rule stops): lowercase ι κ ν ο ρ υ χ and final ς (σ's twin); uppercase
#: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ. NFKC already maps the variants ϑ ϕ ϵ ϰ ϱ ϖ µ to θ φ ε κ ρ π μ.
GREEK_NAMES = frozenset("αβγδεζηθλμξπστφψω" "ΓΔΘΛΞΠΣΦΨΩ")
#: the excluded letters, with the name to type instead
GREEK_LOOKALIKES = {
    "ι": ("i", "iota"), "κ": ("k", "kappa"), "ν": ("v", "nu"), "ο": ("o", "omicron"),
    "ρ": ("p", "rho"), "υ": ("u", "upsilon"), "χ": ("x", "chi"), "ς": ("c", "sigma"),
    **{g: (latin, name) for g, latin, name in zip(
        "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX",
        "Alpha Beta Epsilon Zeta Eta Iota Kappa Mu Nu Omicron Rho Tau Upsilon Chi".split(),
        strict=True)},
}
#: non-ASCII characters the notation pass reads (square root)
NOTATION_SYMBOLS = frozenset("√")


def _allowed(ch: str) -> bool:
    return ch.isascii() or ch in GREEK_NAMES or ch in NOTATION_SYMBOLS


def _check_ascii(result: str, origin: list[int], text: str, lines: LineIndex) -> None:
    """Outside comments, normalised text must be ASCII, Greek names or `√` (so lookalike
    names cannot exist)."""
    start = 0
    for line in result.split("\n"):
        code = line.split("#", 1)[0]
        if not code.isascii():
            bad = [k for k, c in enumerate(code) if not _allowed(c)]
            if bad:
                at = origin[start + bad[0]]
                ch = text[at]
                why = ""
                if code[bad[0]] in GREEK_LOOKALIKES:
                    latin, name = GREEK_LOOKALIKES[code[bad[0]]]
                    why = f"; it looks like Latin {latin!r}: spell the name, e.g. {name}"
                raise ParseError(
                    f"character {quote(ch)} ({codepoint(ch, brackets=False)}) at "
                    f"{lines.pos(at)} is not allowed: names and operators are ASCII "
                    "(letters, digits, '_' and + - * / ** @ ( ) [ ] , : ; = < >) or Greek "
                    f"letters that cannot pass for Latin ones{why}"
                )
        start += len(line) + 1


def normalize(text: str) -> str:
    """Program or value text as gradcalc reads it: NFKC, `x²` -> `x**2`, `×·⋅•` -> `*`,
    `÷` -> `/`, dashes, U+2212 and U+2052 -> `-`, `^`, `ˆ` and `ʌ` -> `**`, line ends ->
    '\\n' (fullwidth brackets `（ ）` are NFKC's `( )`; ornamental and white ones `❨ ❩`,
    `⟮ ⟯`, `⦅ ⦆` are brackets too).

    Raises ParseError for NUL, control, bidi, zero-width and other invisible characters,
    and for characters left outside comments that are neither ASCII nor allowed Greek
    letters nor `√`, naming them as U+XXXX.
    """
    return normalize_with_origin(text.removeprefix("\ufeff"))[0]


def option_name(text: str, option: str) -> str:
    """A name given in an option (--of, --wrt, --implicit), normalised as a program's
    names are (NFKC, so --of ｙ is y); invisible and control characters are refused."""
    try:
        return normalize(text).strip()
    except GradcalcError as exc:
        raise GradcalcError(f"{option} {quote(text)}: {exc.message}", kind="usage") from None
