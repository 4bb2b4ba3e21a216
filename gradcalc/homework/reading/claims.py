"""How an answer is written around its formula: `f'(x) =`, `dy/dx =`, `∂f/∂y =`, `∇f =`,
and vectors as `<a, b>`, `⟨a, b⟩` or `(a, b)`.

The prefix before an answer's `=` says what the student claims to have computed: a
derivative (and by which variable), a partial derivative, a gradient or a Jacobian. It
is stripped before the formula is parsed, and kept as a `Claim`, so that the problem can
take its variable from it when nothing else says which (a constant function) and refuse
it when it contradicts what is asked (`∂f/∂y =` when the check is by x). Students also
write the prefix in brackets, `(dy)/(dx) =`, or after the formula, `2x = dy/dx`: both
are read. Only whole prefixes of these shapes are taken; any other `name = ...` stays the language's
assignment, which has the same value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gradcalc.errors import GradcalcError
from gradcalc.language.tex import unwrap

_NAME = r"[A-Za-z_]\w*"
_PRIMES = r"(?:'|′|’|″)+"
#: f'(x), y', f''(x), y'(t)
_PRIME = re.compile(rf"^(?P<f>{_NAME})\s*(?P<p>{_PRIMES})\s*(?:\(\s*(?P<v>[^()]*)\))?$")
#: dy/dx, df/dx, d/dx, d/dx(...), d^2y/dx^2, and the same with ∂
_LEIBNIZ = re.compile(
    rf"^(?P<d>d|∂)(?:\^?(?P<n>\d))?\s*(?P<f>{_NAME})?\s*/\s*(?P=d)\s*(?P<v>{_NAME}?)"
    r"(?:\^?(?P<m>\d))?\s*(?P<rest>.*)$", re.S)
#: f_x, f_{x}, f_x(x, y)
_SUBSCRIPT = re.compile(rf"^(?P<f>[A-Za-z])_\{{?(?P<v>{_NAME}?)\}}?\s*(?:\([^()]*\))?$")
#: ∇f, ∇f(x, y), grad f, grad(f), nabla f
_GRADIENT = re.compile(rf"^(?:∇|grad\b|nabla\b)\s*\(?\s*(?P<f>{_NAME})?\s*\)?\s*"
                       r"(?:\([^()]*\))?$")
#: f^(4)(x), y^(4), f^{(4)}(x): the N-th derivative
_ORDERED = re.compile(rf"^(?P<f>{_NAME})\s*\^\s*\(\s*(?P<n>\d+)\s*\)\s*"
                      r"(?:\(\s*(?P<v>[^()]*)\))?$")
#: ∂^2f/∂x∂y, ∂^3f/∂x^2∂y: a mixed partial, its variables in the denominator
_MIXED = re.compile(rf"^∂\^?(?P<n>\d)\s*(?P<f>{_NAME})?\s*/\s*(?P<d>(?:∂\s*[A-Za-z]"
                    r"(?:\^?\d)?\s*){2,})$")
_DENOMINATOR = re.compile(r"∂\s*([A-Za-z])(?:\^?(\d))?")
#: ∫ f dx (from \int f\,dx): an antiderivative, by the variable after d
_INTEGRAL = re.compile(r"^\s*(?:\\int|∫)(?![A-Za-z])\s*(?P<f>.*?)\s*(?:\\[,;!:]|\\quad|\s)*"
                       r"(?:\\mathrm\{d\}|\\operatorname\{d\}|\\text\{d\}|d)\s*"
                       r"(?P<v>[A-Za-z])\s*$", re.S)
_GROUP = r"\{((?:[^{}]|\{[^{}]*\})*)\}"
#: ∫ dx/g as books write it, \int \frac{dx}{g} (or \frac{u\,dx}{g}): the d in the numerator
_DX_OVER = re.compile(r"^\s*(?:\\int|∫)(?![A-Za-z])\s*\\[dt]?frac\s*"
                      r"\{(?P<n>(?:[^{}]|\{[^{}]*\})*?)\s*(?:\\[,;!:]|\s)*"
                      r"(?:\\mathrm\{d\}|\\operatorname\{d\}|\\text\{d\}|d)\s*"
                      r"(?P<v>[A-Za-z])\s*\}\s*\{(?P<g>(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}"
                      r"\s*$", re.S)
#: LaTeX in a prefix, in the forms the patterns above read
_TEX_HEAD = ((re.compile(rf"\\[dt]?frac\s*{_GROUP}\s*{_GROUP}"), r"\1/\2"),
             (re.compile(r"\\(?:mathrm|operatorname|text)\s*\{\s*d\s*\}"), "d"),
             (re.compile(r"\\partial(?![A-Za-z])"), "∂"),
             (re.compile(r"\^\s*\{\s*((?:\\prime\s*|')+)\}"), r"\1"),
             (re.compile(r"\\prime(?![A-Za-z])"), "'"),
             (re.compile(r"\\(?:left|right)(?![A-Za-z])"), ""),
             (re.compile(r"\\[,;!: ]|\\q?quad(?![A-Za-z])"), " "),
             (re.compile(r"\^\s*\{([^{}]*)\}"), r"^\1"),
             (re.compile(r"_\s*\{([^{}]*)\}"), r"_\1"))
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾", "0123456789()")
#: J, Df, J_f, Jf(x, y)
_JACOBIAN = re.compile(rf"^(?:J|D)(?:_?\{{?(?P<f>{_NAME})\}}?)?\s*(?:\([^()]*\))?$")
#: vector brackets other than [ ]
_OPEN = {"<": ">", "⟨": "⟩", "〈": "〉", "(": ")"}
#: '=' that is not part of ==, <=, >=, !=
_EQUALS = re.compile(r"(?<![=<>!])=(?!=)")


@dataclass(frozen=True)
class Claim:
    """What the prefix says the answer is."""

    prefix: str  # as written, e.g. "∂f/∂y"
    #: the derivative the prefix names: 'derivative' | 'partial' | 'gradient' | 'jacobian'
    #: | 'antiderivative' (its form, not a kind of problem)
    form: str
    #: the variable(s) it names, if any; a mixed partial's, one per differentiation
    #: (`f_xy`: x, y; `∂²f/∂x²`: x)
    wrt: tuple[str, ...] = ()
    order: int = 1

    def describe(self) -> str:
        what = {"derivative": "a derivative", "partial": "a partial derivative",
                "gradient": "the gradient", "jacobian": "the Jacobian",
                "antiderivative": "an antiderivative"}[self.form]
        if self.order > 1:
            what = (f"{'a partial' if self.form == 'partial' else 'a'} derivative of "
                    f"order {self.order}")
        by = (f" with respect to {self.wrt[0]}" if len(set(self.wrt)) == 1 else
              f" with respect to {', '.join(self.wrt)}" if self.wrt else "")
        return f"{self.prefix} ({what}{by})"


def split_prefix(text: str) -> tuple[str, Claim | None]:
    """(the formula, the claim) of an answer; the text unchanged and None without a
    known prefix. A `$...$` or `\\(...\\)` around the whole answer goes."""
    text = unwrap(text)
    m = _EQUALS.search(text)
    if not m or "\n" in text[: m.start()] or ";" in text[: m.start()]:
        return text, None
    head, body = text[: m.start()].strip(), text[m.end():].strip()
    claim = _claim(head)
    if claim is None and len(_EQUALS.findall(text)) == 1 and "\n" not in text.strip():
        claim = _claim(body)  # the prefix written after the formula: 2x = f'(x)
        if claim is not None:
            head, body = body, head
    if claim is None:
        return text, None
    if not body.strip():
        raise GradcalcError(f"the answer is only {head} =: write the formula after the '='",
                            kind="parse")
    return body, claim


#: `(dy)/(dx)`, `(d y)/(d x)`: a Leibniz quotient with its parts in brackets
_BRACKETED = re.compile(rf"\(\s*(d|∂)(\^?\d)?\s*({_NAME})?\s*\)\s*/\s*\(\s*(d|∂)\s*({_NAME})"
                        r"(\^?\d)?\s*\)")


def integral(function: str, answer: str, wrt: list[str] | None
             ) -> tuple[str, str, list[str] | None]:
    """An antiderivative's texts as books write them: the function `\\int f\\,dx` (or
    `∫ f dx`) is f, by x unless `wrt` says; the answer's `\\int f\\,dx =` prefix goes."""
    m = _integrand(unwrap(function))
    if m is not None:
        function, wrt = m[0], wrt or [m[1]]
    body, claim = split_prefix(answer)
    return function, body if claim and claim.form == "antiderivative" else answer, wrt


def _integrand(text: str) -> tuple[str, str] | None:
    """(f, x) of `\\int f\\,dx`, or of `\\int \\frac{dx}{g}` (f is 1/g); None otherwise."""
    m = _INTEGRAL.match(text)
    if m and m["f"]:
        return m["f"], m["v"]
    m = _DX_OVER.match(text)
    if m:
        return rf"\frac{{{m['n'].strip() or '1'}}}{{{m['g']}}}", m["v"]
    return None


def _plain(head: str) -> str:
    """A prefix's LaTeX in the plain forms read (`\\frac{dy}{dx}` is dy/dx, `f^{(4)}` is
    f^(4), `\\partial` is ∂), superscripts as powers (`∂²f`), and without doubled
    brackets around it (`((dy/dx))`)."""
    if "\\" in head or "{" in head:
        for pattern, plain in _TEX_HEAD:
            head = pattern.sub(plain, head)
        head = head.strip()
    if any(c in head for c in "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        head = re.sub(r"([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", r"^\1", head).translate(_SUPERSCRIPT)
    while head.startswith("(") and _grouped(head):
        head = head[1:-1].strip()
    return head


def _claim(head: str) -> Claim | None:
    integral = _integrand(head)
    if integral is not None:
        return Claim(head, "antiderivative", (integral[1],))
    plain = _plain(head)
    if plain != head:
        found = _written(plain)
        return Claim(head, found.form, found.wrt, found.order) if found else None
    return _written(head)


def _written(head: str) -> Claim | None:
    """The claim of a prefix in plain text."""
    if head.startswith("(") and _BRACKETED.match(head):
        bare = _BRACKETED.sub(lambda m: f"{m[1]}{m[2] or ''}{m[3] or ''}/{m[4]}{m[5]}"
                              f"{m[6] or ''}", head, count=1)
        found = _written(bare)
        return Claim(head, found.form, found.wrt, found.order) if found else None
    m = _PRIME.match(head)
    if m:
        order = sum(2 if c == "″" else 1 for c in m["p"])
        names = [v.strip() for v in (m["v"] or "").split(",") if v.strip()]
        return Claim(head, "derivative", tuple(names) if len(names) == 1 else (), order)
    m = _ORDERED.match(head)
    if m:
        names = [v.strip() for v in (m["v"] or "").split(",") if v.strip()]
        return Claim(head, "derivative", tuple(names) if len(names) == 1 else (), int(m["n"]))
    m = _MIXED.match(head)
    if m:
        path = tuple(v for name, power in _DENOMINATOR.findall(m["d"])
                     for v in [name] * int(power or 1))
        return Claim(head, "partial", path, len(path)) if len(path) == int(m["n"]) else None
    m = _LEIBNIZ.match(head)
    if m and (m["v"] or m["d"] == "∂") and _grouped(m["rest"]):
        order = int(m["n"] or m["m"] or 1)
        kind = "partial" if m["d"] == "∂" else "derivative"
        return Claim(head, kind, (m["v"],) if m["v"] else (), order)
    m = _SUBSCRIPT.match(head)
    if m and m["v"]:  # f_xy: a mixed partial, one letter per differentiation
        path = tuple(m["v"]) if m["v"].isalpha() and len(m["v"]) <= 4 else (m["v"],)
        return Claim(head, "partial", path, len(path))
    if _GRADIENT.match(head):
        return Claim(head, "gradient")
    if _JACOBIAN.match(head) and head not in ("D",):
        return Claim(head, "jacobian")
    return None


def _grouped(rest: str) -> bool:
    """After d/dx: nothing, or one bracketed expression (`d/dx(x^2)`, `d/dx [x^2]`)."""
    rest = rest.strip()
    if not rest:
        return True
    if rest[0] not in "([" or rest[-1] != {"(": ")", "[": "]"}[rest[0]]:
        return False
    depth = 0
    for k, ch in enumerate(rest):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and k != len(rest) - 1:
            return False
    return depth == 0


def vector(text: str) -> str:
    """`<a, b>`, `⟨a, b⟩` and `(a, b)` written as the language's list `[a, b]` (also
    nested, for a Jacobian's rows); other text unchanged."""
    body = text.strip()
    if len(body) < 2 or body[0] not in _OPEN:
        return text
    close = _match(body, 0)
    if close != len(body) - 1:
        return text
    inner = body[1:-1]
    items = _top_level_split(inner, angle=body[0] == "<")
    if len(items) < 2:
        return text
    return "[" + ", ".join(vector(i) for i in items) + "]"


def _match(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at `start` (None if unclosed)."""
    opener = text[start]
    closer = _OPEN[opener]
    depth = 0
    for k in range(start, len(text)):
        ch = text[k]
        if ch in "([{⟨〈" or (ch == "<" and opener == "<"):
            depth += 1
        elif ch in ")]}⟩〉" or (ch == ">" and opener == "<" and text[k - 1] != "-"):
            depth -= 1
            if depth == 0:
                return k if ch == closer else None
    return None


def _top_level_split(inner: str, angle: bool = False) -> list[str]:
    """Split at commas outside brackets (and outside < > inside a `<a, b>` vector)."""
    opening, closing = "([{⟨〈" + "<" * angle, ")]}⟩〉" + ">" * angle
    items, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(inner[start:k])
            start = k + 1
    items.append(inner[start:])
    return [i.strip() for i in items]
