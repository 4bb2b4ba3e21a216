"""Formulas for a page: presentation MathML (which a browser draws by itself: Chromium,
Firefox, Safari) and LaTeX, from sympy's printers, the same for every page gradcalc
writes (the students' sheets, the teacher's copy, the class report).

Three habits of a book on top of sympy's: ln for log and the other functions by their
names in the table of primitives; Euler's number as the letter e; and a constant power
of e kept where the formula has it, e^{-6} x, not moved under a fraction bar as x/e^6
(a variant's e^c is a constant of the problem, and reads as one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.entities import html5
from string import ascii_lowercase
from typing import Any

from gradcalc.engine.primitive import PRIMITIVES, derived

_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML = frozenset({"lt", "gt", "amp", "quot", "apos"})
#: as a book writes them: Euler's e as the letter, the imaginary unit as i
_PLAIN = {"&ExponentialE;": "e", "&ImaginaryI;": "i"}
#: the names a constant power of e stands under while sympy prints (sorted first, like
#: a coefficient; letters only, so no subscript is made of them)
_STAND_INS = tuple(f"EEE{c}" for c in ascii_lowercase)
#: the names of a constant of integration, written last in a sum
_CONSTANTS = frozenset({"C", "K"})


def _numeric(markup: str) -> str:
    """MathML with HTML's named characters as numbers (&InvisibleTimes; -> &#x2062;), so
    that any reader of the page decodes it."""
    def code(m: re.Match) -> str:
        name = m[1]
        if name in _XML or f"{name};" not in html5:
            return m[0]
        return "".join(f"&#x{ord(c):x};" for c in html5[f"{name};"])

    return _ENTITY.sub(code, markup)


def _written() -> dict[str, str]:
    """sympy's MathML name of a function -> its name in a book (<mi>ln</mi> for log)."""
    return derived("mathml names", lambda: {
        f"<mi>{p.name}</mi>": f"<mi>{p.facts.written}</mi>"
        for p in PRIMITIVES.values() if p.facts.written})


def _stood_in(formula: Any, constants: Iterable[str] = ()) -> tuple[Any, dict[str, Any]]:
    """The formula with each constant power of e (exp(-6), or exp(c) of a parameter c
    named in `constants`) replaced by a stand-in name, and the exponent each stands for."""
    import sympy as sp

    if not isinstance(formula, sp.Basic):
        return formula, {}
    known = set(constants)
    powers = sorted((p for p in formula.atoms(sp.exp)
                     if {s.name for s in p.args[0].free_symbols} <= known),
                    key=sp.default_sort_key)[:len(_STAND_INS)]
    names = dict(zip(_STAND_INS, powers, strict=False))
    if not names:
        return formula, {}
    return (formula.xreplace({p: sp.Symbol(n) for n, p in names.items()}),
            {n: p.args[0] for n, p in names.items()})


def _integration_constant(formula: Any) -> tuple[Any, str]:
    """An antiderivative's `+ C` apart from the rest (a book writes it last; sympy's
    order puts it first), or (formula, '')."""
    import sympy as sp

    if not isinstance(formula, sp.Add):
        return formula, ""
    for term in formula.args:
        if term.is_Symbol and term.name in _CONSTANTS:
            return formula - term, term.name
    return formula, ""


def mathml(formula: Any, constants: Iterable[str] = ()) -> str:
    """A formula's presentation MathML (without the <math> element): an expression, a
    list of them (a vector, nested for a matrix) or an equation (left, right);
    `constants`: the names of parameters (a power of e of them stays in place too)."""
    from sympy.printing.mathml import mathml as printed

    if isinstance(formula, tuple):
        return f"{mathml(formula[0], constants)}<mo>=</mo>{mathml(formula[1], constants)}"
    if isinstance(formula, list):
        inner = "<mo>,</mo>".join(mathml(f, constants) for f in formula)
        return f"<mrow><mo>[</mo>{inner}<mo>]</mo></mrow>"
    rest, constant = _integration_constant(formula)
    if constant:
        return f"<mrow>{mathml(rest, constants)}<mo>+</mo><mi>{constant}</mi></mrow>"
    formula, powers = _stood_in(formula, constants)
    # a template's terms by degree, as a key writes them: (x^2 + a)^n, not (a + x^2)^n
    order = {"order": "grlex"} if constants else {}
    markup = printed(formula, printer="presentation", **order)
    for named, plain in {**_written(), **_PLAIN}.items():
        markup = markup.replace(named, plain)
    for name, exponent in powers.items():
        markup = markup.replace(f"<mi>{name}</mi>",
                                f"<msup><mi>e</mi>{mathml(exponent)}</msup>")
    return _numeric(markup)


def latex(formula: Any) -> str:
    """The formula as LaTeX (ln for log, a constant power of e where it stands)."""
    from gradcalc.homework.reading.student import latex as printed

    if isinstance(formula, tuple):
        return f"{latex(formula[0])} = {latex(formula[1])}"
    if isinstance(formula, list):
        return r"\left[" + ", ".join(latex(f) for f in formula) + r"\right]"
    rest, constant = _integration_constant(formula)
    if constant:
        return f"{latex(rest)} + {constant}"
    formula, powers = _stood_in(formula)
    text = printed(formula)
    for name, exponent in powers.items():
        text = text.replace(name, f"e^{{{printed(exponent)}}}")
    return text


#: a function's name as read: f(x), f'(x), F(x, y)
_LABEL = re.compile(r"^([^\W\d]\w*)('*)\((.*)\)$")


def label_mathml(label: str) -> str:
    """What a formula is called, before its `=`: `f(x)`, `f'(x)` as MathML; any other
    label (`∇f`, `dy/dx`) as text; '' for none."""
    from html import escape

    if not label:
        return ""
    m = _LABEL.match(label)
    if not m:
        return f"<mtext>{escape(label)}</mtext><mo>=</mo>"
    args = "<mo>,</mo>".join(f"<mi>{escape(a.strip())}</mi>" for a in m[3].split(","))
    primes = "<mo>&#x2032;</mo>" * len(m[2])
    return (f"<mi>{escape(m[1])}</mi>{primes}<mrow><mo>(</mo>{args}<mo>)</mo></mrow>"
            "<mo>=</mo>")


def math_or_code(formula: Any, text: str, label: str = "", block: bool = False,
                 constants: Iterable[str] = ()) -> str:
    """A formula as a <math> element (after its label), or, where there is no formula,
    its text as code; `constants` as for `mathml`."""
    from html import escape

    if formula is None:
        return f"<code>{escape(f'{label} = {text}' if label else text)}</code>"
    display = ' display="block"' if block else ""
    return f"<math{display}>{label_mathml(label)}{mathml(formula, constants)}</math>"
