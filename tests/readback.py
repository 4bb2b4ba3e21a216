"""Every printed line of a worked solution read back and checked: the plain lines of
`derive --plain` and the rows of `derive --latex`, each equation in them read with
gradcalc's own reader (student notation or LaTeX) and checked true at fixed points, with
sympy taking every `d/dx(...)`, `∂/∂x(...)` and the derivative of every `∫ g du`.

What a line claims: a chain of `=` (each side equal to the next), the running total (`;
= after` in plain, `&= after` in LaTeX: equal to the row before), an equation (implicit
differentiation, `⇒`: true on the curve with y' its slope), the equations a step's note
states (u = x^2 and du = 2x dx, x = 2sin(θ), the right triangle, A = 1/3), the value at
a point (`at (x, y) = (1, 2): ...`, `f'(2)`, `≈ 1.9726` to its digits). Rows with an
integral still to do are equal as antiderivatives: their derivatives are. A substitution
variable (u, w, t, θ) is put in as what its step says it stands for (u = 2θ, θ =
asin(x/2); x = 2sin(θ) solved for θ). Shared by tests/render/test_printed_lines.py and
`python bench/solutions.py --readback`; no random draws, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.problem import read_side
from gradcalc.homework.solutions.rule_names import RULES
from gradcalc.language.ir import walk
from gradcalc.language.program import Name

#: the fixed values every variable is given in turn (the first few that make a line's
#: sides real and finite are used)
VALUES = (0.7, 1.3, -0.6, 2.4, 0.35, -1.7, 3.1, 1.9, -2.6, 5.2, 0.15, -4.3, 2.05, -0.3,
          7.5, 4.4, 0.08, -0.17, 0.23, 11.3)
#: how many points decide a line, and the fewest that may
ENOUGH, FEWEST = 4, 2
YP, YPP = proof.symbol("yprime"), proof.symbol("ysecond")
_RULE_NAMES = sorted((r.name for r in RULES.values()), key=len, reverse=True)
#: rules whose note says what a variable of the rows stands for (u = 2θ, x = 2sin(θ))
SUBSTITUTING = frozenset({"substitution", "trig-substitution", "back-substitution",
                          "combined"})


class Unread(Exception):
    """A side that does not read as a formula; its message says why."""


@dataclass
class Finding:
    """One printed line: true, false or unread, and why (the side or equation that was
    false, or what could not be read)."""

    line: str
    status: str
    why: str = ""


@dataclass
class Context:
    """What the lines before have said: the function, its variables, the implicit
    equation, what each substitution variable stands for, the point."""

    variables: tuple[str, ...] = ("x",)
    function: sp.Expr | None = None
    equation: sp.Expr | None = None  # implicit: left − right
    slope: sp.Expr | None = None
    second: sp.Expr | None = None
    stands: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    point: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    integrals: dict[sp.Symbol, tuple[sp.Expr, sp.Symbol]] = field(default_factory=dict)
    #: the claim being judged is between rows of an antiderivative (equal up to a
    #: constant: their derivatives are equal)
    antiderivatives: bool = False
    #: each trigonometric substitution: (x, its value in θ, θ)
    angles: list[tuple[sp.Expr, sp.Expr, sp.Symbol]] = field(default_factory=list)
    #: reads a number of a label (f'(π/4)) in the document's notation
    read: Callable[[str], sp.Expr] | None = None

    @property
    def x(self) -> sp.Symbol:
        return proof.symbol(self.variables[0])


# ------------------------------------------------------------------ reading one side


def split_top(text: str, sep: str) -> list[str]:
    """`text` split at `sep` where it stands outside brackets (LaTeX's too)."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        c = text[i]
        depth += (c in "([{") - (c in ")]}")
        i += 1
    return [*out, text[start:]]


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """The index of the `closing` that matches the `opening` at `start`."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith(opening, i):
            depth += 1
            i += len(opening)
            continue
        if text.startswith(closing, i):
            depth -= 1
            if depth == 0:
                return i
            i += len(closing)
            continue
        i += 1
    raise Unread(f"unbalanced {opening}")


@dataclass
class Reader:
    """Reads a side in one notation (plain or LaTeX) into sympy, `d/dx(...)`, `∂/∂x(...)`
    and `∫ g du` taken apart first and put back as stand-in names."""

    latex: bool
    ctx: Context
    kept: dict[str, sp.Expr] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ctx.read = self._formula

    def side(self, text: str) -> sp.Expr:
        text = text.strip().replace("₀", "0")
        text = re.sub(r"\s*\+ C$", "", re.sub(r"_\{(\d)\}", r"\1", text))
        if not text:
            raise Unread("an empty side")
        label = self.label(text)
        if label is not None:
            return label
        text = self._constructs(text)
        text = self._primes(text)
        if self.latex:  # a list; π times a bracket, not a function π
            text = text.replace("\\left[", "[").replace("\\right]", "]")
            text = text.replace("\\pi \\left(", "\\pi \\cdot \\left(")
        return self._formula(text)

    def _stand_in(self, value: sp.Expr) -> str:
        name = "KEPT" + "Q" * (len(self.kept) + 1)
        self.kept[name] = value
        return rf" \left({name}\right) " if self.latex else f"({name})"

    def _formula(self, text: str) -> sp.Expr:
        try:
            side = read_side(text, "function", 1)
            names = tuple(sorted({n.id for n in walk(side.program) if isinstance(n, Name)}
                                 - {"e", "pi"}))
            exprs = proof.side_exprs(side, names, dict.fromkeys(names, 0.5))
        except (GradcalcError, ValueError, TypeError, IndexError, AttributeError) as exc:
            raise Unread(f"not read as a formula: {text.strip()} "
                         f"({getattr(exc, 'message', exc)})") from None
        kept = {proof.symbol(k): v for k, v in self.kept.items()}
        values = [sp.sympify(e).xreplace(kept) for e in exprs]
        return values[0] if len(values) == 1 else sp.Matrix(values)

    # -- d/dx(...), ∂/∂x(...), ∫ g du, y' and y''

    def _constructs(self, text: str) -> str:
        forms = (self._latex_forms if self.latex else self._plain_forms)()
        changed = True
        while changed:
            changed = False
            for pattern, opening, closing, make in forms:
                m = re.search(pattern, text)
                if m is None:
                    continue
                if opening is None:  # an integral: up to its differential
                    end, by, after = self._integral_end(text, m.end())
                    inner = text[m.end():end]
                    text = text[:m.start()] + self._stand_in(make(inner, by)) + text[after:]
                else:
                    close = _closing(text, m.end() - len(opening), opening, closing)
                    inner = text[m.end():close]
                    text = (text[:m.start()] + self._stand_in(make(inner, m[1]))
                            + text[close + len(closing):])
                changed = True
                break
        return text

    def _plain_forms(self) -> list[tuple[str, str | None, str, Callable]]:
        return [(r"d/d(θ|\w)\(", "(", ")", self._total),
                (r"∂/∂(\w)\(", "(", ")", self._partial),
                (r"∫ ", None, "", self._integral)]

    def _latex_forms(self) -> list[tuple[str, str | None, str, Callable]]:
        return [(r"\\frac\{d\}\{d ?(\\theta|\w)\}\\left\(", r"\left(", r"\right)",
                 self._total),
                (r"\\frac\{\\partial\}\{\\partial (\w)\}\\left\(", r"\left(", r"\right)",
                 self._partial),
                (r"\\int ", None, "", self._integral)]

    def _integral_end(self, text: str, start: int) -> tuple[int, str, int]:
        """Where an integrand that starts at `start` ends: at its differential (` dx`,
        `\\, d\\theta`) outside brackets."""
        pattern = (re.compile(r"\\, d(\\theta|[A-Za-z])(?![A-Za-z])") if self.latex
                   else re.compile(r" d(θ|[A-Za-z])(?![\w(])"))
        depth = 0
        for i in range(start, len(text)):
            c = text[i]
            depth += (c in "([{") - (c in ")]}")
            if depth == 0:
                m = pattern.match(text, i)
                if m:
                    return i, m[1].replace("\\theta", "θ"), m.end()
        if self.latex and text[start:].startswith("d"):
            m = re.match(r"d(\\theta|[A-Za-z])", text[start:])
            if m:
                return start, m[1].replace("\\theta", "θ"), start + m.end()
        raise Unread("an integral without its differential")

    def _inner(self, inner: str) -> sp.Expr:
        return Reader(self.latex, self.ctx, self.kept).side(inner)

    def _total(self, inner: str, by: str) -> sp.Expr:
        return total_derivative(self._inner(inner), proof.symbol(by), self.ctx)

    def _partial(self, inner: str, by: str) -> sp.Expr:
        return diff(self._inner(inner), proof.symbol(by))

    def _integral(self, inner: str, by: str) -> sp.Expr:
        body = self._inner(inner) if inner.strip() else sp.Integer(1)
        name = proof.symbol(f"integral{len(self.ctx.integrals)}")
        self.ctx.integrals[name] = (body, proof.symbol(by))
        return name

    def _primes(self, text: str) -> str:
        for primed, value in (("y''", YPP), ("y'", YP)):
            while primed in text:
                text = text.replace(primed, self._stand_in(value), 1)
        return text

    # -- what a heading or label names: f'(x), f'(2), ∂f/∂x, f_xy, dy/dx, ∫ f(x) dx

    def label(self, text: str) -> sp.Expr | None:
        """The value a label names (None: the text is no label)."""
        ctx = self.ctx
        text = plain_label(text) if self.latex else text
        if ctx.function is not None:
            value = _function_label(text, ctx)
            if value is not None:
                return value
        if text in ("dy/dx", "y'"):
            return YP
        if text in ("d^2y/dx^2", "y''", "d/dx(y')"):
            return YPP
        if text == "F'(x)" or re.fullmatch(r"F'\(\w\)", text):
            if ctx.function is not None:
                return ctx.function
        m = re.fullmatch(r"∫ f\(\w\) d(\w)", text)
        if m and ctx.function is not None:
            return self._make_integral(ctx.function, m[1])
        return None

    def _make_integral(self, body: sp.Expr, by: str) -> sp.Expr:
        name = proof.symbol(f"integral{len(self.ctx.integrals)}")
        self.ctx.integrals[name] = (body, proof.symbol(by))
        return name


_LATEX_LABELS = (
    (r"\\frac\{\\partial f\}\{\\partial (\w)\}", r"∂f/∂\1"),
    (r"\\frac\{\\partial\^\{?2\}? f\}\{\\partial (\w)\^\{?2\}?\}", r"∂^2f/∂\1^2"),
    (r"f_\{(\w+)\}", r"f_\1"), (r"\\frac\{dy\}\{dx\}", "dy/dx"),
    (r"\\frac\{d\^\{?2\}?y\}\{dx\^\{?2\}?\}", "d^2y/dx^2"), (r"\\nabla f", "∇f"),
    (r"\\int f\((\w)\)\\, d(\w)", r"∫ f(\1) d\2"), (r"f\^\{\((\d+)\)\}", r"f^(\1)"),
    (r"\\frac\{d\}\{dx\}\(y'\)", "d/dx(y')"))


def plain_label(tex: str) -> str:
    """A LaTeX label in the plain notation of `_function_label`."""
    tex = tex.strip()
    for pattern, plain in _LATEX_LABELS:
        tex = re.sub(pattern, plain, tex)
    return tex


def _function_label(text: str, ctx: Context) -> sp.Expr | None:
    """f(x), f'(x), f''(2), f^(4)(x), ∂f/∂x, ∂^2f/∂x^2, f_xy, ∇f: from the function."""
    f, names = ctx.function, ctx.variables
    m = re.fullmatch(r"f('*|\^\((\d+)\))\(([^()]*)\)", text)
    if m:
        order = int(m[2]) if m[2] else len(m[1])
        value = diff(f, ctx.x, order) if order else f
        args = [a.strip() for a in m[3].split(",")]
        if args == list(names):
            return value
        if len(args) == len(names) and ctx.read is not None:
            at = {proof.symbol(n): ctx.read(a) for n, a in zip(names, args)}
            return value.xreplace(at)
        return None
    m = re.fullmatch(r"∂f/∂(\w)", text)
    if m:
        return diff(f, proof.symbol(m[1]))
    m = re.fullmatch(r"∂\^?2f/∂(\w)\^?2", text)
    if m:
        return diff(f, proof.symbol(m[1]), 2)
    m = re.fullmatch(r"f_(\w+)", text)
    if m and all(c in names for c in m[1]):
        value = f
        for c in m[1]:
            value = diff(value, proof.symbol(c))
        return value
    if text == "∇f":
        return sp.Matrix([diff(f, proof.symbol(n)) for n in names])
    return None


def diff(e: sp.Expr, by: sp.Symbol, order: int = 1) -> sp.Expr:
    """sympy's derivative, that of sign(u) 0 (where it is defined: the real roots'
    sign(u)·|u|^(1/5))."""
    out = sp.diff(e, by, order)
    return out.replace(lambda d: isinstance(d, sp.Derivative) and isinstance(d.expr, sp.sign),
                       lambda d: sp.Integer(0))


def total_derivative(e: sp.Expr, by: sp.Symbol, ctx: Context) -> sp.Expr:
    """d/dx of `e`; in implicit differentiation y is a function of x (and y' too)."""
    out = diff(e, by)
    if ctx.equation is not None and by == ctx.x:
        y = proof.symbol(ctx.variables[1])
        out += diff(e, y) * YP + diff(e, YP) * YPP
    return out


def _is_words(text: str) -> bool:
    """Whether `text` is words rather than a formula (a heading such as `d/dx of both
    sides`, `\\text{solve for } y'`)."""
    from gradcalc.engine.ops import FUNCTIONS

    if "\\text{" in text:
        return True
    return any(w not in FUNCTIONS and w not in ("ln", "KEPT") and not w.startswith("KEPT")
               for w in re.findall(r"(?<![\\A-Za-z])[A-Za-z]{3,}", text))


# ------------------------------------------------------------------ deciding a claim


def _resolved(e: sp.Expr, ctx: Context) -> sp.Expr:
    """`e` with each substitution variable put in as what it stands for."""
    for _ in range(4):
        e = e.xreplace(ctx.stands)
    return e


def _differentiated(e: sp.Expr, by: sp.Symbol, ctx: Context) -> sp.Expr:
    """d/d(by) of a side whose integrals still to do are names: each integral's
    derivative is its integrand times the derivative of its variable."""
    out = diff(e, by)
    for name in e.free_symbols & set(ctx.integrals):
        body, var = ctx.integrals[name]
        inner = _resolved(var, ctx)
        out += sp.diff(e, name) * _resolved(body, ctx).xreplace({var: inner}) * sp.diff(
            inner, by)
    return out


def _numeric(e: sp.Expr, symbols: list[sp.Symbol]) -> Callable[[dict], complex | None]:
    """`e` as a function of a point, in mpmath (complex where a root or a logarithm of a
    negative number makes it so); None where it is not a finite real number."""
    try:
        f = sp.lambdify(symbols, e, modules="mpmath", cse=True)
    except (TypeError, NameError, SyntaxError, KeyError, ValueError, NotImplementedError):
        return lambda point: _substituted(e, point)

    def at(point: dict[sp.Symbol, float]) -> complex | None:
        try:
            return _real(complex(f(*(point[s] for s in symbols))))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError, NameError,
                AttributeError):
            return _substituted(e, point)

    return at


def _substituted(e: sp.Expr, point: dict[sp.Symbol, float]) -> complex | None:
    try:
        return _real(complex(e.evalf(subs={s: sp.Float(v) for s, v in point.items()})))
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def _real(value: complex) -> complex | None:
    if value != value or abs(value) == float("inf") or abs(value.imag) > 1e-9 * (
            1 + abs(value.real)):
        return None
    return value


def _points(symbols: list[sp.Symbol]) -> list[dict[sp.Symbol, float]]:
    return [{s: VALUES[(k + 3 * j) % len(VALUES)] for j, s in enumerate(symbols)}
            for k in range(len(VALUES))]


def agree_at(a: sp.Expr, b: sp.Expr, points: list[dict[sp.Symbol, float]],
             tolerance: float = 1e-8) -> bool | None:
    """Whether a and b agree at the first points where both are real and finite (None:
    too few such points to tell)."""
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        if not (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)) or (
                a.shape != b.shape):
            return False
        verdicts = [agree_at(p, q, points, tolerance) for p, q in zip(a, b)]
        return None if None in verdicts else all(verdicts)
    symbols = sorted(set(points[0]) if points else set(), key=lambda s: s.name)
    f, g = _numeric(sp.sympify(a), symbols), _numeric(sp.sympify(b), symbols)
    used = 0
    for point in points:
        p, q = f(point), g(point)
        if p is None or q is None:
            continue
        if abs(p - q) > tolerance * (1 + abs(p) + abs(q)):
            return False
        used += 1
        if used == ENOUGH:
            break
    return True if used >= FEWEST or (used and not points[1:]) else None


def _free(*es: sp.Expr) -> list[sp.Symbol]:
    return sorted(set().union(*(e.free_symbols for e in es)), key=lambda s: s.name)


def _curve_points(ctx: Context) -> list[dict[sp.Symbol, float]]:
    """Points of the implicit curve (its named constants at fixed values), found by
    solving for y at fixed values of x."""
    x, y = ctx.x, proof.symbol(ctx.variables[1])
    others = [s for s in _free(ctx.equation) if s not in (x, y)]
    consts = {s: VALUES[(3 * j + 1) % len(VALUES)] for j, s in enumerate(others)}
    out = []
    for x0 in VALUES:
        g = ctx.equation.xreplace({**{s: sp.Float(v) for s, v in consts.items()},
                                   x: sp.Float(x0)})
        for y0 in _real_roots(g, y):
            point = {**consts, x: x0, y: y0}
            if _substituted(ctx.slope, point) is not None:
                out.append(point)
        if len(out) >= ENOUGH:
            break
    return out


def _real_roots(g: sp.Expr, y: sp.Symbol) -> list[float]:
    try:
        poly = sp.Poly(g, y)
        return [float(r) for r in poly.nroots() if abs(sp.im(r)) < 1e-12][:2]
    except (sp.PolynomialError, sp.polys.polyerrors.PolynomialError, TypeError,
            sp.polys.polyerrors.GeneratorsNeeded):
        pass
    for start in (1.0, -1.0, 2.5):
        try:
            return [float(sp.nsolve(g, y, start))]
        except (ValueError, TypeError, ZeroDivisionError):
            continue
    return []


def equal(a: sp.Expr, b: sp.Expr, ctx: Context, tolerance: float = 1e-8) -> bool | None:
    """Whether two sides read back are equal: as antiderivatives (their derivatives)
    where an integral is still to do, on the curve with y' its slope in implicit
    differentiation, else at fixed points (None: no point decides)."""
    a, b = _resolved(a, ctx), _resolved(b, ctx)
    names = set(ctx.integrals)
    if ctx.antiderivatives or (a.free_symbols | b.free_symbols) & names:
        by = _integration_variable(a, b, ctx)
        a, b = _differentiated(a, by, ctx), _differentiated(b, by, ctx)
    if ctx.slope is not None:
        put = {YPP: ctx.second, YP: ctx.slope}
        a, b = a.xreplace(put), b.xreplace(put)
    if ctx.point:
        a, b = a.xreplace(ctx.point), b.xreplace(ctx.point)
    verdict = agree_at(a, b, _kept(_points(_free(a, b)), ctx), tolerance)
    if verdict is False and ctx.equation is not None and not ctx.point:
        return agree_at(a, b, _curve_points(ctx), tolerance)
    return verdict


def _kept(points: list[dict[sp.Symbol, float]], ctx: Context) -> list[dict]:
    """The points where each trigonometric substitution holds as books take it: x =
    g(θ) with θ between −π/2 and π/2 (x = 2sec(θ) for x ≥ 2 only)."""
    if not ctx.angles:
        return points
    checks = []
    symbols = sorted(set(points[0]) if points else set(), key=lambda s: s.name)
    for variable, value, angle in ctx.angles:
        off, theta = _resolved(variable - value, ctx), _resolved(angle, ctx)
        if not (off.free_symbols | theta.free_symbols) <= set(symbols):
            continue  # a line in other variables (a table's ∫ sec(u)^2 du)
        checks.append((_numeric(off, symbols), _numeric(theta, symbols)))
    return [p for p in points if all(
        (d := off(p)) is not None and abs(d) < 1e-9 and (t := theta(p)) is not None
        and abs(t.real) <= 1.5707963268 for off, theta in checks)]


def _integration_variable(a: sp.Expr, b: sp.Expr, ctx: Context) -> sp.Symbol:
    """x, unless the sides are in another variable alone (a table's ∫ cos(u) du)."""
    used = a.free_symbols | b.free_symbols
    inner = {ctx.integrals[n][1] for n in used & set(ctx.integrals)}
    if ctx.x in used or any(_resolved(v, ctx).has(ctx.x) for v in inner):
        return ctx.x
    return next(iter(sorted(inner, key=lambda s: s.name)), ctx.x)


# ------------------------------------------------------------------ claims of a line


@dataclass
class Claim:
    """A chain of sides, each equal (`=`) or close to its printed digits (`≈`) to the
    one before."""

    sides: list[str]
    relations: list[str]
    #: what a note's own names stand for while this claim is judged (parts' u and v)
    defined: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    #: rows of an antiderivative: equal up to a constant
    antiderivatives: bool = False


def chain(text: str, latex: bool) -> Claim:
    """`A = B ≈ 1.97` as a claim."""
    approx = " \\approx " if latex else " ≈ "
    sides, relations = [], []
    for piece in split_top(text, " = "):
        for j, part in enumerate(split_top(piece, approx)):
            sides.append(part)
            relations.append("≈" if j else "=")
    return Claim(sides, relations[1:])


def _digits_tolerance(text: str) -> float:
    """Half a unit in the last printed digit of a decimal (1.9726: 0.00005)."""
    m = re.fullmatch(r"\s*-?\d+(?:\.(\d+))?(?:e([+-]?\d+))?\s*", text.replace("·10^", "e"))
    if m is None:
        return 1e-8
    return 0.51 * 10.0 ** (-(len(m[1] or "")) + int(m[2] or 0))


def decide(claim: Claim, reader: Reader) -> tuple[str, str]:
    """(true | false | unread | words, why) for one claim."""
    if len(claim.sides) == 2:
        differential = differential_claim(" = ".join(claim.sides), reader)
        if differential is not None:
            return differential
    values: list[sp.Expr] = []
    shown: list[str] = []
    for side in claim.sides:
        try:
            values.append(reader.side(side))
            shown.append(side)
        except Unread as exc:
            if not values and _is_words(side):
                continue  # a heading's words before the formula
            return "unread", str(exc)
    if len(values) < 2:
        return "words", ""
    relations = claim.relations[-(len(values) - 1):]
    for (a, b), (p, q), relation in zip(zip(values, values[1:]), zip(shown, shown[1:]),
                                        relations):
        tolerance = _digits_tolerance(q) if relation == "≈" else 1e-8
        verdict = equal(a, b, reader.ctx, tolerance)
        if verdict is None:
            return "unread", f"no point where both sides are real: {p} = {q}"
        if not verdict:
            return "false", f"{p} ≠ {q}"
    return "true", ""


def judged(line: str, claims: list[Claim], reader: Reader,
           point: dict[int, dict[sp.Symbol, sp.Expr]] | None = None) -> Finding | None:
    """The line's finding: false if a claim is false, unread if one does not read, true
    if every one holds; None for a line that claims no equation."""
    statuses = []
    for k, claim in enumerate(claims):
        saved, stands = reader.ctx.point, reader.ctx.stands
        if point and k in point:
            reader.ctx.point = point[k]
        reader.ctx.stands = {**stands, **claim.defined}
        reader.ctx.antiderivatives = claim.antiderivatives
        try:
            statuses.append(decide(claim, reader))
        finally:
            reader.ctx.point, reader.ctx.stands = saved, stands
    for status in ("false", "unread", "true"):
        found = [why for s, why in statuses if s == status]
        if found:
            return Finding(line, status, "; ".join(w for w in found if w))
    return None


# ------------------------------------------------------------------ a step's note


#: what separates a note's clauses (outside brackets), the coarsest first
_CLAUSES = ("; ", ", then ", ", ", ": ", " so ", " and ", " gives ")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
_DIFFERENTIAL = {False: re.compile(r"(?:(.*?) )?(-?)d(θ|[A-Za-z])"),
                 True: re.compile(r"(?:(.*?)\\, )?(-?)d(\\theta|[A-Za-z])")}


def _peeled(equation: str) -> str:
    """An equation of a note without the words before and after it (`cover-up: A =
    1/3 (at x = 1)`: `A = 1/3`)."""
    from gradcalc.engine.ops import FUNCTIONS

    def word(token: str) -> bool:
        return bool(_WORD.fullmatch(token)) and token not in FUNCTIONS and token != "ln" \
            and not re.fullmatch(r"d(θ|[A-Za-z])", token)

    tokens = split_top(equation.strip(), " ")
    while tokens and word(tokens[0]):
        tokens.pop(0)
    while tokens and (word(tokens[-1]) or tokens[-1].startswith("(at ")):
        tokens.pop()
    return " ".join(tokens)


def plain_note_equations(note: str) -> list[list[str]]:
    """The equations a plain note states, each without the words around it, in groups
    (`u = sin(x) ..., then u = cos(x) ...`: a name means one thing in each)."""
    groups = []
    for group in (g for part in split_top(note, ", then ") for g in split_top(part, " then ")):
        pieces = [group]
        for sep in _CLAUSES:
            pieces = [q for p in pieces for q in split_top(p, sep)]
        groups.append([p if _general(p) else _peeled(p) for p in pieces
                       if len(split_top(p, " = ")) > 1])
    return groups


def latex_note_equations(note: str) -> list[list[str]]:
    """The equations a LaTeX note states in math (`at $x = 1$` says where, not one), in
    groups as `plain_note_equations`."""
    return [[m[2] for m in re.finditer(r"(at )?\$(.+?)\$", group)
             if " = " in m[2] and not m[1] and not m[2].startswith("\\begin{array}")
             and "v_{k" not in m[2] and "v_1 = \\int dv" not in m[2]]
            for group in re.split(",? then ", note)]


def _general(equation: str) -> bool:
    """A rule stated in general (sin' = cos, (ln|u|)' = u'/u), not in the problem's
    variables."""
    values = re.sub(r"(?<!\w)[fF]'*\(", "(", equation.replace("y'", ""))  # f'(1), F'(x)
    return bool(re.search(r"[\w|)]'", values))


def note_claims(groups: list[list[str]] | str, rule: str, reader: Reader) -> tuple[
        list[Claim], int]:
    """A note's claims (its definitions taken out, and kept with the claims of their
    group) and the count of rules it states in general. A variable the rows use (u, θ)
    is defined for the lines after it when the step is a substitution."""
    ctx, claims, general = reader.ctx, [], 0
    if rule == "tabular-parts":
        return table_claims(groups, reader.latex), 0
    # a table's formula (∫ 1/√(1 − u^2) du = asin(u)) is in any u, not the rows' u
    defined: dict[sp.Symbol, sp.Expr] = {k: k for k in ctx.stands} if rule in (
        "integral-table", "integral-reciprocal") else {}
    for equations in groups:
        defined = dict(defined)  # a group's names, and those of the groups before it
        taken: set[sp.Symbol] = set()
        for equation in equations:
            if _general(equation):
                rule_claim = None if reader.latex else _rule_claim(equation)
                if rule_claim is None:
                    general += 1
                else:
                    claims.append(rule_claim)
                continue
            sides = split_top(equation, " = ")
            made = _definition(" = ".join(sides[:2]), reader, defined, taken, rule)
            if made is not None and len(sides) > 2:  # y₀ = f(1) = 1
                claims.append(Claim(*_sides(" = ".join(sides[1:]), reader.latex), defined))
            if made is None:
                claims.append(Claim(*_sides(equation, reader.latex), defined))
            else:
                defined[made[0]] = made[1]
                taken.add(made[0])
        if "y" in {s.name for s in defined} and ctx.equation is None:  # ln(y) = ...
            y = next(s for s in defined if s.name == "y")
            defined[YP] = sp.diff(defined[y], ctx.x)
        if rule in SUBSTITUTING:
            ctx.stands.update({k: v for k, v in defined.items() if k != YP})
    return claims, general


def _rule_claim(equation: str) -> Claim | None:
    """A rule stated in general as an equation in z: `sin' = cos` as d/dz(sin(z)) =
    cos(z), `ln'(u) = 1/u` and `(√u)' = 1/(2√u)` as derivatives by u, and one with u' or
    v' on its right (`(c/v)' = −c·v'/v^2`) with u and v put in as z^2 + 1."""
    from gradcalc.engine.ops import FUNCTIONS

    text = equation.replace("−", "-").replace("²", "^2")
    sides = split_top(text, " = ")
    if len(sides) != 2:
        return None
    left, right = sides
    m = re.fullmatch(r"(\w+)'", left)
    if m and m[1] in FUNCTIONS:
        call = re.compile(rf"\b({'|'.join(sorted(FUNCTIONS, key=len, reverse=True))})\b")
        return Claim([f"d/dz({m[1]}(z))", call.sub(r"\1(z)", right)], ["="])
    m = re.fullmatch(r"(\w+)'\((\w)\)", left) or re.fullmatch(r"\((.+)\)'()", left)
    if m is None:
        return None
    inner = f"{m[1]}({m[2]})" if m[2] else m[1]
    if "'" not in right:
        by = m[2] or "u"
        return Claim([f"d/d{by}({inner})", right], ["="])
    put = {"u'": "(2z)", "v'": "(2z)"}
    right = re.sub(r"\b([uv])'", lambda q: put[q[0]], right)
    inner, right = (re.sub(r"\b[uv]\b", "(z^2 + 1)", t) for t in (inner, right))
    return Claim([f"d/dz({inner})", right], ["="])


def table_claims(note: list[list[str]] | str, latex: bool) -> list[Claim]:
    """The tabular method's table: each u the derivative of the one above, each v an
    antiderivative of the one above (v_1 of dv's integrand)."""
    if not isinstance(note, str):
        return []
    if latex:
        m = re.search(r"\\hline (.*) \\end\{array\}", note)
        cells = [row.split(" & ") for row in m[1].split(" \\\\ ")] if m else []
        us = [c[1].split(" = ", 1)[1] for c in cells]
        vs = [c[2].split(" = ", 1)[1] for c in cells]
        d, by = "\\frac{{d}}{{d {by}}}\\left({u}\\right)", "\\int {v}\\, d{by}"
    else:
        m = re.fullmatch(r"sign \| u = (.+) and its derivatives \| dv = (.+) and its "
                         r"antiderivatives: (.+); each sign .+", note)
        rows = [row.split(" | ") for row in m[3].split("; ")] if m else []
        us, vs = [r[1] for r in rows], [m[2], *(r[2] for r in rows[1:])] if m else []
        d, by = "d/d{by}({u})", "∫ {v} d{by}"
    if not us:
        return [Claim(["the table", "unread"], ["="])]
    g, var = _DIFFERENTIAL[latex].fullmatch(vs[0]).group(1, 3)
    var = var.replace("\\theta", "θ")
    vs[0] = g or "1"
    claims = [Claim([d.format(by=var, u=a), b], ["="]) for a, b in zip(us, us[1:])]
    return claims + [Claim([by.format(by=var, v=a), b], ["="]) for a, b in zip(vs, vs[1:])]


def _sides(equation: str, latex: bool) -> tuple[list[str], list[str]]:
    claim = chain(equation, latex)
    return claim.sides, claim.relations


def _definition(equation: str, reader: Reader, defined: dict[sp.Symbol, sp.Expr],
                taken: set[sp.Symbol], rule: str = "") -> tuple[sp.Symbol, sp.Expr] | None:
    """(name, value) when `equation` says what a new name stands for (u = x^2, A = 1/3,
    I = ∫ ..., or x = 2sin(θ) solved for a new θ); None for a claim."""
    sides = split_top(equation, " = ")
    if len(sides) != 2 or _DIFFERENTIAL[reader.latex].fullmatch(sides[0].strip()):
        return None
    try:
        left, right = reader.side(sides[0]), reader.side(sides[1])
    except Unread:
        return None
    variables = {proof.symbol(n) for n in reader.ctx.variables}
    new = right.free_symbols - variables - set(defined) - set(reader.ctx.stands) - set(
        reader.ctx.integrals)
    standing = left in reader.ctx.stands and left not in taken
    if standing and rule == "back-substitution":
        return None  # u = 2θ said again when it is put back: a claim
    if left.is_Symbol and left not in variables and left not in taken \
            and not right.has(left) and not (standing and len(new) == 1):
        return left, right
    if left.is_Symbol and (left in variables or standing) and len(new) == 1:
        (var,) = new
        angle = _inverted(left, right, var)
        if angle is not None:
            reader.ctx.angles.append((left, right, var))
            return var, angle
    return None


#: each trigonometric function's inverse on the angles books take (θ in [−π/2, π/2],
#: [0, π/2) for sec)
_INVERSES = {sp.sin: sp.asin, sp.tan: sp.atan, sp.cos: sp.acos,
             sp.sec: lambda v: sp.acos(1 / v), sp.csc: lambda v: sp.asin(1 / v),
             sp.cot: lambda v: sp.atan(1 / v)}


def _inverted(left: sp.Expr, right: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """θ from x = g(θ): x = 2sin(θ) gives asin(x/2), x = 2sec(θ) gives acos(2/x)."""
    calls = [f for f in right.atoms(sp.Function) if f.has(var)]
    if len(calls) == 1 and type(calls[0]) in _INVERSES and calls[0].args[0] == var:
        ratio = proof.symbol("ratio")
        found = sp.solve(sp.Eq(left, right.xreplace({calls[0]: ratio})), ratio)
        if len(found) == 1:
            return _INVERSES[type(calls[0])](found[0])
    solved = sp.solve(sp.Eq(left, right), var)
    return min(solved, key=lambda e: (sp.count_ops(e), sp.default_sort_key(e))) \
        if solved else None


def differential_claim(equation: str, reader: Reader) -> tuple[str, str] | None:
    """`du = 2x dx`, `dx = 2cos(θ) dθ`: (true | false | unread, why), the derivative of
    the left variable's value against the right's; None for another equation."""
    sides = split_top(equation, " = ")
    pattern = _DIFFERENTIAL[reader.latex]
    found = [pattern.fullmatch(s.strip()) for s in sides]
    if len(sides) != 2 or not all(found) or any("∫" in s or "\\int" in s for s in sides):
        return None
    ctx = reader.ctx
    slopes = []
    for m in found:
        try:
            factor = reader.side(m[1]) if m[1] else sp.Integer(-1 if m[2] else 1)
        except Unread as exc:
            return "unread", str(exc)
        var = proof.symbol(m[3].replace("\\theta", "θ"))
        if var not in ctx.stands and var.name not in ctx.variables:
            return "words", ""  # dv = e^x dx names dv: v is said nowhere else
        slopes.append(factor * sp.diff(_resolved(var, ctx), ctx.x))
    verdict = equal(slopes[0], slopes[1], ctx)
    if verdict is None:
        return "unread", f"no point where both sides are real: {equation}"
    return ("true", "") if verdict else ("false", equation)


# ------------------------------------------------------------------ the two documents


@dataclass
class Lines:
    """The findings of one document, and the rules its notes state in general (sin' =
    cos, not checked)."""

    findings: list[Finding] = field(default_factory=list)
    general: int = 0

    def add(self, finding: Finding | None) -> None:
        if finding is not None:
            self.findings.append(finding)


def _problem(text: str, reader: Reader) -> None:
    """The problem's line: `f(x, y) = ...` (the function) or `L = R` (implicit)."""
    ctx = reader.ctx
    m = re.fullmatch(r"(?:the tangent line to )?f\(([^()]*)\) = (.*?)(?: at \w+ = \S+|,\\ "
                     r"\w+ = \S+)?", text.strip())
    if m:
        ctx.variables = tuple(v.strip() for v in m[1].split(","))
        ctx.function = reader.side(m[2])
        return
    left, right = split_top(text, " = ")
    ctx.variables = ("x", "y")
    ctx.equation = reader.side(left) - reader.side(right)
    x, y = ctx.x, proof.symbol("y")
    ctx.slope = -sp.diff(ctx.equation, x) / sp.diff(ctx.equation, y)
    ctx.second = total_derivative(ctx.slope, x, ctx).xreplace({YP: ctx.slope})


def _at(text: str, reader: Reader) -> dict[sp.Symbol, sp.Expr] | None:
    """`at (x, y) = (1, 2)` or `at x = 2` (LaTeX: `\\text{at } ...`) as values."""
    m = re.fullmatch(r"\s*(?:\\text\{at \}|at )\s*\(?([^()=]*?)\)? = \(?(.*?)\)?\s*", text)
    if m is None:
        return None
    names = [n.strip() for n in m[1].split(",")]
    values = split_top(m[2], ", ")
    if len(names) != len(values):
        return None
    return {proof.symbol(n): reader.side(v) for n, v in zip(names, values)}


def _segments(text: str, reader: Reader) -> tuple[list[Claim], dict[int, dict]]:
    """A step's equation or an answer: `at POINT: A = B = C`, `A = B ⇒ C = D`, as
    claims, with the point each one is at."""
    claims, points, point = [], {}, None
    sep = ":\\ " if reader.latex else ": "
    pending = ""
    for segment in split_top(text, sep):
        at = _at(segment, reader)
        if at is not None:
            point = at
            continue
        m = re.fullmatch(r"(.*) (at .*)", segment)
        if m and _at(m[2], reader) is not None:  # `x^2 at x = 1: 1`
            point, pending = _at(m[2], reader), m[1] + " = "
            continue
        segment, pending = pending + segment, ""
        for equation in split_top(segment, " \\Rightarrow " if reader.latex else " ⇒ "):
            if point is not None:
                points[len(claims)] = point
            claims.append(chain(equation, reader.latex))
    return claims, points


def _title(title: str, reader: Reader) -> tuple[list[str], dict | None]:
    """A heading's labels (`y'' = d/dx(y')`: both) and the point it names, without the
    words that say what is put in."""
    title = re.sub(r"\s*(\\text\{ with \} y' \\text\{ put in\}|\\text\{ on the curve\}|"
                   r" with y' put in| on the curve)$", "", title.strip())
    point = None
    m = re.fullmatch(r"(.*?) (at .*)", title)
    if m and not reader.latex and _at(m[2], reader) is not None:
        title = m[1]  # f'(x) at x = 2: the general formula comes after it
    m = re.fullmatch(r"(\\text\{at \}.*?):\\ (.*)", title)
    if m:
        point, title = _at(m[1], reader), m[2]
    return [t for t in split_top(title, " = ") if not _is_words(t)], point


class _Part:
    """A part's running total: the row each next row is equal to."""

    def __init__(self, reader: Reader, start: str) -> None:
        eq = len(split_top(start, " = ")) > 1
        self.integral = "∫" in start or "\\int" in start
        self.reader, self.running = reader, None if eq else start

    def claims(self, after: str) -> list[Claim]:
        if self.running is None:
            return [chain(after, self.reader.latex)]
        out = [Claim([self.running, after], ["="], antiderivatives=self.integral)]
        self.running = after
        return out


def _tangent(answer: str | None, reader: Reader) -> None:
    """A tangent line's rows are equations of the line: y is the answer's y = mx + b."""
    m = re.fullmatch(r"(?:answer: )?y = (.*)", (answer or "").strip())
    if m and reader.ctx.function is not None:
        reader.ctx.stands[proof.symbol("y")] = reader.side(m[1])


def check_plain(text: str) -> Lines:
    """Every line of `derive --plain` read back and judged."""
    reader, out = Reader(False, Context()), Lines()
    lines = text.splitlines()
    _problem(lines[0], reader)
    _tangent(next((t for t in lines if t.startswith("answer: y = ")), None), reader)
    part: _Part | None = None
    for line in lines[1:]:
        if line.startswith("checked: "):
            continue
        if line.startswith("answer: "):
            claims, points = _segments(line.removeprefix("answer: "), reader)
            out.add(judged(line, claims, reader, points))
        elif re.match(r"\d+\. ", line):
            out.add(_plain_step(line, part, reader, out))
        else:
            part = _plain_head(line, reader, out)
    return out


def _plain_head(line: str, reader: Reader, out: Lines) -> _Part:
    """A part's first line: `TITLE = START` or `TITLE: START`."""
    head = split_top(line, ": ")
    if len(head) == 1:
        head = split_top(line, " = ")
    title, start = head[0], (": " if ": " in line else " = ").join(head[1:])
    return _head(line, title, start, reader, out)


def _head(line: str, title: str, start: str, reader: Reader, out: Lines) -> _Part:
    part = _Part(reader, start)
    if "₀" in start or "_0" in start:
        return part  # the form a tangent line takes, y − y₀ = m(x − x₀): said in general
    labels, point = _title(title, reader)
    claim = chain(start, reader.latex) if part.running is None else Claim(
        [*labels, start], ["="] * len(labels))
    out.add(judged(line, [claim], reader, {0: point} if point else None))
    return part


def _plain_step(line: str, part: _Part | None, reader: Reader, out: Lines) -> Finding | None:
    rest = re.sub(r"^\d+\. ", "", line).split("  <- ")[0]
    name = next((n for n in _RULE_NAMES if rest.startswith(n)), "")
    rule = next((r.id for r in RULES.values() if r.name == name), "")
    rest = rest[len(name):]
    rest = re.sub(r"^ \[[^\]]*\]", "", rest)
    note = ""
    if rest.startswith(" ("):
        close = _closing(rest, 1, "(", ")")
        note, rest = rest[2:close], rest[close + 1:]
    text = rest.removeprefix(": ")
    pieces = split_top(text, "; = ")
    claims, general = note_claims(note if rule == "tabular-parts" else
                                  [] if rule == "evaluate" else  # the point, x = 1
                                  plain_note_equations(note), rule, reader)
    out.general += general
    step, points = _segments(pieces[0], reader)
    claims += step
    offset = len(claims) - len(step)
    points = {k + offset: p for k, p in points.items()}
    if part is not None:
        if len(pieces) > 1:
            claims += part.claims(pieces[1])
        elif part.running is not None and step:
            part.running = step[-1].sides[-1]
    return judged(line, claims, reader, points)


def check_latex(document: str) -> Lines:
    """Every line of `derive --latex` read back and judged: the problem, each part's
    rows (and the notes above them, and each row's own equation beside it), the answer."""
    reader, out = Reader(True, Context()), Lines()
    problem = re.search(r"\\section\*\{Worked solution\}\n\\\[ (.*) \\\]", document)
    if problem is None:
        return out
    _problem(problem[1], reader)
    answer = re.search(r"Answer: \\\[ (.*) \\\]", document)
    _tangent(answer[1] if answer else None, reader)
    for title, block in re.findall(r"\\subsection\*\{\$([^\n]*)\$\}\n\\begin\{align\*\}\n"
                                   r"(.*?)\n\\end\{align\*\}", document, re.S):
        rows = block.split(" \\\\\n")
        first = rows[0].removeprefix("& ")
        start = first.split(" &= ", 1)[-1]
        part = _head(rows[0], title if " &= " in first else "", start, reader, out)
        for row in rows[1:]:
            _latex_row(row, part, reader, out)
    answer = re.search(r"Answer: \\\[ (.*) \\\]", document)
    if answer:
        claims, points = _segments(answer[1], reader)
        out.add(judged(answer[0], claims, reader, points))
    return out


def _latex_row(row: str, part: _Part, reader: Reader, out: Lines) -> None:
    """`\\intertext{NOTE}` (a line of its own), then `&= AFTER && \\text{RULE}:\\ STEP`."""
    note = re.match(r"\\intertext\{(.*)\}\n", row)
    body = row[note.end():] if note else row
    after, _, why = body.partition(" && ")
    after = re.sub(r"^(\\Rightarrow\\ )?&=? ?", "", after)
    name = re.match(r"\\text\{(.*?)\}", why)
    rule = next((r.id for r in RULES.values() if name and _latex_text(r.name) == name[1]), "")
    if note:
        claims, general = note_claims(note[1] if rule == "tabular-parts" else
                                      latex_note_equations(note[1]), rule, reader)
        out.general += general
        out.add(judged(note[0], claims, reader))
    claims = part.claims(after)
    step = why.split(":\\ ", 1)
    points: dict[int, dict] = {}
    if len(step) > 1:
        more, points = _segments(step[1], reader)
        points = {k + len(claims): p for k, p in points.items()}
        claims += more
    out.add(judged(body, claims, reader, points))


def _latex_text(name: str) -> str:
    from gradcalc.render.latex_notes import escaped

    return escaped(name)
