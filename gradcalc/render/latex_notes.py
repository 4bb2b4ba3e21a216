"""A step's note in a LaTeX document: the equations it states (u = x^2, du = 2x dx; x =
2 sin θ; the right triangle's ratios; the cover-up's coefficients; the tabular method's
table) as math, the words between them as text.

A note is printed text in the student's notation (`x = 2sin(θ), dx = 2cos(θ) dθ`); each
side of each of its equations is read back with gradcalc's own reader and printed as
LaTeX. A note with an equation that does not read is left out of the document (the rule's
name still says what the step did): nothing is ever printed as math that was not read as
math.
"""

from __future__ import annotations

import re

from gradcalc.errors import GradcalcError

#: the rules whose notes state the method's own equations (u and du, the triangle, the
#: table, the coefficients, the standard form), rendered in the document
STATED = frozenset({"substitution", "back-substitution", "trig-substitution", "parts", "combined",
                    "tabular-parts", "cyclic-parts", "partial-fractions", "integral-table",
                    "integral-reciprocal", "log-differentiation", "point-slope", "put-in"})
#: what separates a note's clauses (outside brackets), the coarsest first
_SEPARATORS = ("; ", ", then ", ", ", ": ", " so ", " and ", " gives ")
#: characters of printed notes and rule names, as LaTeX's text mode takes them
_TEXT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
         "#": r"\#", "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\~{}", "|": r"$|$",
         "−": "-", "×": r"$\times$", "·": r"$\cdot$", "θ": r"$\theta$", "φ": r"$\varphi$",
         "√": r"$\surd$", "∫": r"$\int$", "²": r"$^2$", "₀": r"$_0$", "⇒": r"$\Rightarrow$",
         "≠": r"$\neq$", "≈": r"$\approx$", "π": r"$\pi$", "∂": r"$\partial$",
         "∇": r"$\nabla$", "′": "'"}
_DIFFERENTIAL = re.compile(r"(?:(.*?)\s+|(-?))d([^\W\d_]\w*)")
_PRIMED = re.compile(r"(?<![\w'])([A-Za-z])('+)")
_VALUE = re.compile(r"(?<![\w'])[fFg]'*\([\w.\-/]*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SIDE_WORD = re.compile(r"(.*\b(?:side|hypotenuse)) (.+)")


def escaped(text: str) -> str:
    """Text for LaTeX's text mode: its special characters escaped, the symbols rule
    names and notes use (θ, √, ∫, ², ·) as math."""
    return "".join(_TEXT.get(c, c) for c in text)


def note_latex(rule: str, note: str) -> str:
    """The note of a step by `rule` as text-mode LaTeX with its equations as math; ''
    when the rule's note states no equation or one of them does not read."""
    if rule not in STATED or not note:
        return ""
    if rule == "tabular-parts":
        return _table(note)
    if rule == "log-differentiation":
        return _logarithmic(note)
    try:
        said = _sentence(note)
    except _Unread:
        return ""
    return said if re.search(r"\$[^$]* = [^$]*\$", said) else ""  # an equation in it


class _Unread(Exception):
    """A piece of a note that should be a formula and does not read as one."""


def _split(text: str, sep: str) -> list[str]:
    """text split at `sep` where it stands outside brackets."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        depth += (c in "([{") - (c in ")]}")
        if depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    return [*out, text[start:]]


def _sentence(text: str, seps: tuple[str, ...] = _SEPARATORS) -> str:
    """Clauses joined by their separators, each an equation or words."""
    if not seps:
        return _clause(text)
    sep, rest = seps[0], seps[1:]
    return escaped(sep).join(_sentence(piece, rest) for piece in _split(text, sep))


def _clause(text: str) -> str:
    """`words? A = B = C words?`, the equation as math; words alone as text."""
    sides = _split(text, " = ")
    if len(sides) == 1:
        named = _SIDE_WORD.fullmatch(text)
        return f"{escaped(named[1])} ${_math(named[2])}$" if named else escaped(text)
    prose_before, first = _peel(sides[0], from_left=True)
    last, prose_after = _peel(sides[-1], from_left=False)
    middle = [_math(s) for s in sides[1:-1]]
    shown = [first, *middle, last]
    if len(set(shown)) < len(shown) and len(set(sides)) == len(sides):
        raise _Unread(text)  # read as the same, though written apart: y·(y'/y) is y'
    return f"{prose_before}${' = '.join(shown)}${prose_after}"


def _peel(side: str, from_left: bool) -> tuple[str, str]:
    """A side's words before (the first side) or after (the last side) its formula:
    (words as text, formula as math) or (formula, words), fewest words first."""
    words = _split(side, " ")
    for k in range(len(words)):
        kept = words[k:] if from_left else words[:len(words) - k]
        spoken = words[:k] if from_left else words[len(words) - k:]
        if not all(_WORD.fullmatch(w) for w in spoken) and (from_left or k > 1 or not (
                spoken[0].startswith("(") and spoken[0].endswith(")"))):
            continue  # only words are peeled off a formula (and, after it, a bracket)
        try:
            math = _math(" ".join(kept))
        except _Unread:
            continue
        said = " ".join(spoken)
        if from_left:
            return (escaped(said) + " " if said else ""), math
        return math, (" " + _words(said) if said else "")
    raise _Unread(side)


def _words(text: str) -> str:
    """Words after an equation: a bracket of them (`(at x = 1)`) read as a sentence."""
    if text.startswith("(") and text.endswith(")"):
        return f"({_sentence(text[1:-1])})"
    return escaped(text)


def _math(text: str) -> str:
    """One side of an equation as LaTeX math: ∫ g du, d/dx(g), g dx, y' or a formula."""
    text = text.replace("−", "-").replace("₀", "_0").strip()
    if text.startswith("∫ "):
        body, by = _differential(text[2:])
        return rf"\int {body}\, d{_name(by)}"
    d = re.fullmatch(r"d/d(\w+)\((.*)\)", text)
    if d:
        return rf"\frac{{d}}{{d{_name(d[1])}}}\left({_math(d[2])}\right)"
    if _DIFFERENTIAL.fullmatch(text):
        body, by = _differential(text)
        return rf"{body}\, d{_name(by)}" if body not in ("", "-") else f"{body}d{_name(by)}"
    return _formula(text)


def _differential(text: str) -> tuple[str, str]:
    """`g du` as (g's LaTeX, 'u'); `du` as ('', 'u'), `-du` as ('-', 'u')."""
    m = _DIFFERENTIAL.fullmatch(text)
    if m is None:
        raise _Unread(text)
    if m[1] is None:
        return m[2] or "", m[3]
    body = m[1][1:-1] if m[1].startswith("(") and m[1].endswith(")") else m[1]
    return _formula(body, bracketed=True), m[3]


def _name(name: str) -> str:
    return {"θ": r"\theta", "φ": r"\varphi"}.get(name, name)


def _formula(text: str, bracketed: bool = False) -> str:
    """A formula in the student's notation, read by gradcalc's reader, as LaTeX (a sum
    in brackets when `bracketed`); a variable's primes (y', y'') and a function's value
    (f(1), f'(1)) kept as written. Words (`so`, `at`) are not read as products of
    letters: every name is one letter or a function's."""
    kept: dict[str, str] = {}

    def stand_in(written: str) -> str:
        name = f"KEPT{'Q' * (len(kept) + 1)}"
        kept[name] = written
        return name

    text = _VALUE.sub(lambda m: stand_in(m[0]), text)
    text = _PRIMED.sub(lambda m: stand_in(m[0]), text)
    if not _plausible(text):
        raise _Unread(text)
    tex = _read_latex(text, bracketed)
    for name in sorted(kept, key=len, reverse=True):  # KEPTQQ before KEPTQ
        tex = tex.replace(name, kept[name])
    return tex


def _plausible(text: str) -> bool:
    """Every word of `text` a one-letter name, a function's name or a stand-in; no
    one-letter name applied to a bracket (f(1) is not f times 1 here)."""
    from gradcalc.engine.ops import FUNCTIONS

    words = re.findall(r"[^\W\d_]+", text)
    return (all(len(w) == 1 or w in FUNCTIONS or w == "ln" or w.startswith("KEPT")
                for w in words)
            and not re.search(r"(?<![^\W\d_])[^\W\d_]\(", text))


def _read_latex(text: str, bracketed: bool) -> str:
    from gradcalc.homework import proof
    from gradcalc.homework.problem import read_side
    from gradcalc.language.ir import walk
    from gradcalc.language.program import Name
    from gradcalc.render.math_markup import latex

    try:
        side = read_side(text, "note", 0)
        names = tuple(sorted({n.id for n in walk(side.program) if isinstance(n, Name)}
                             - {"e", "pi"}))
        expr = proof.side_exprs(side, names, dict.fromkeys(names, 0.5))[0]
    except (GradcalcError, ValueError, TypeError, IndexError):
        raise _Unread(text) from None
    tex = latex(expr)
    return rf"\left({tex}\right)" if bracketed and expr.is_Add else tex


def _table(note: str) -> str:
    """The tabular method's table as an array of equations: u and its derivatives (u,
    u', u'', ...) beside dv and its antiderivatives (dv, v_1, v_2, ...)."""
    m = re.fullmatch(r"sign \| u = (.+) and its derivatives \| dv = (.+) and its "
                     r"antiderivatives: (.+); (each sign .+)", note)
    if m is None:
        return ""
    try:
        by = _differential(m[2])[1]
        rows = [row.split(" | ") for row in m[3].split("; ")]
        cells = [rf"{sign} & {_derivative(k)} = {_math(u)} & "
                 rf"{_antiderivative(k, by)} = {_math(v) if k else _math(m[2])}"
                 for k, (sign, u, v) in enumerate(rows)]
    except (_Unread, ValueError):
        return ""
    head = (r"\text{sign} & u \text{ and its derivatives} & dv \text{ and its "
            r"antiderivatives} \\ \hline ")
    return (rf"the table ($v_1 = \int dv$, $v_{{k+1}} = \int v_k\, d{_name(by)}$): "
            rf"$\begin{{array}}{{c|l|l}} {head}" + r" \\ ".join(cells)
            + rf" \end{{array}}$; {escaped(m[4])}")


def _logarithmic(note: str) -> str:
    """y = u^v: ln(y) = v·ln(u), so y'/y = d/dx(v·ln(u)) and y' = y·(y'/y), with the
    last equation as written (read back, y·(y'/y) would be y' itself)."""
    m = re.fullmatch(r"(y = .+: ln\(y\) = .+, so y'/y = d/d(\w+)\(.+\)) and y' = "
                     r"y·\(y'/y\)", note)
    if m is None:
        return ""
    try:
        return _sentence(m[1]) + r" and $y' = y \cdot \frac{y'}{y}$"
    except _Unread:
        return ""


def _derivative(k: int) -> str:
    return "u" + ("'" * k if k < 4 else f"^{{({k})}}")


def _antiderivative(k: int, by: str) -> str:
    return "dv" if k == 0 else f"v_{{{k}}}"
