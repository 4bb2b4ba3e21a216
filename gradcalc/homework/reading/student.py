"""Formulas in the notation students type: `^`, `ln`, `e^x`, `√`, `|x|`, `π`, `3x`.

Two printers share one set of habits. `formula` prints a sympy expression (the true
derivative a wrong answer is shown), after `simplest` has looked, within counted work, for
its shortest form; `latex` is the same expression for a page. `expression` prints a side
as gradcalc read it (the IR, before sympy touches it), so that "read as" shows the
grouping the parser chose: a quotient that is a factor keeps its parentheses,
`(1/2)·x`, where sympy would say `x/2`.

A product is written the way it is typed: a number before a letter, root or parenthesis
is juxtaposed (`3x`, `2√x`, `4(x + 1)`), every other factor is joined by `·`
(`2x·e^(2x)`, `x·sin(x)`). Everything printed can be typed back as an answer.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import cache
from typing import Any

import sympy as sp
from sympy.printing.str import StrPrinter

from gradcalc.homework import real_roots
from gradcalc.language.program import (
    EULER,
    Binary,
    BoolOp,
    Call,
    Compare,
    ListLit,
    Name,
    Not,
    Num,
    Unary,
)
from gradcalc.language.unparse import unparse
from gradcalc.verify import counted

#: function names printed another way than the table's
SPELLED = {"log": "ln"}
#: the Python calls one rewriting of `simplest` may make (counted work,
#: `gradcalc.verify.counted.decide`), never time, so that the form chosen is the same on a
#: busy machine, in every process of --jobs, and when a verdict is replayed (one made at
#: most about 280,000 on the problem set of bench/problems, counted in its process)
SIMPLIFY_CALLS = 4_000_000
#: the largest expression (sympy's count_ops) that factor, together, cancel and logcombine
#: are tried on, and the largest trigsimp is tried on (it is the slowest route)
MAX_REWRITE_OPS = 40
MAX_TRIGSIMP_OPS = 16


def _juxtaposes(left: str, right: str) -> bool:
    """Whether `left right` can be written without `·` (a number before a letter, a root,
    an absolute value or a parenthesis: `3x`, `2√x`, `4(x + 1)`)."""
    return (left.lstrip("-").replace(".", "").isdigit() and bool(right)
            and (right[0].isalpha() or right[0] in "(√|π"))


@cache
def bars_read() -> bool:
    """Whether the language reads `|x|` (then absolute values print that way, else as
    abs(x): what is printed must read back)."""
    from gradcalc.language.parse import parse

    try:
        parse("|x|")
    except Exception:  # noqa: BLE001 - not read: print abs(x)
        return False
    return True


def join_product(parts: list[str]) -> str:
    out = parts[0] if parts else "1"
    for prev, part in zip(parts, parts[1:], strict=False):
        out += part if _juxtaposes(prev, part) else "·" + part
    return out


# --------------------------------------------------------------------------- sympy


class StudentPrinter(StrPrinter):
    """sympy's text in the student's notation (see the module's docstring)."""

    def __init__(self, euler: str = "e", bars: bool = True) -> None:
        super().__init__({"order": None})
        self.euler = euler
        self.bars = bars  # absolute values as |x| (where the language reads them)

    # atoms
    def _print_Exp1(self, e: Any) -> str:
        return self.euler

    def _print_Pi(self, e: Any) -> str:
        return "π"

    def _print_Float(self, e: Any) -> str:
        return f"{float(e):.15g}"

    def _print_ImaginaryUnit(self, e: Any) -> str:
        return "i"

    # functions
    def _print_Abs(self, e: Any) -> str:
        inner = self._print(e.args[0])
        return f"|{inner}|" if self.bars and bars_read() else f"abs({inner})"

    def _print_log(self, e: Any) -> str:
        return f"ln({self._print(e.args[0])})"

    def _print_exp(self, e: Any) -> str:
        return self._power(self.euler, e.args[0])

    def _print_Equality(self, e: Any) -> str:
        return f"{self._print(e.lhs)} == {self._print(e.rhs)}"

    def _print_Unequality(self, e: Any) -> str:
        return f"{self._print(e.lhs)} != {self._print(e.rhs)}"

    def _print_Function(self, e: Any) -> str:
        name = SPELLED.get(e.func.__name__, e.func.__name__)
        return f"{name}({', '.join(self._print(a) for a in e.args)})"

    def _print_Piecewise(self, e: Any) -> str:
        # a case whose value is undefined (zoo where x = 0) is a point where there is no
        # derivative: left out, the other formula is typed back without sympy's zoo
        defined = [(v, c) for v, c in e.args if not v.has(sp.zoo, sp.nan, sp.oo, -sp.oo)]
        *cases, (last, cond) = defined or e.args
        text = self._print(last) if cond is sp.true or len(defined) < len(e.args) \
            else "nan"
        for value, cond in reversed(cases):  # a case of (a or b): where(a, v, where(b, v, ...))
            for one in reversed(cond.args if isinstance(cond, sp.Or) else (cond,)):
                text = f"where({self._print(one)}, {self._print(value)}, {text})"
        return text

    # powers and products
    def _base(self, b: Any) -> str:
        text = self._print(b)
        simple = (b.is_Symbol or (b.is_Integer and b >= 0) or b in (sp.E, sp.pi)
                  or isinstance(b, (sp.Function, sp.Abs)) and not isinstance(b, sp.exp))
        return text if simple else f"({text})"  # (e^u)^v: e^u^v is e^(u^v)

    def _power(self, base: str, x: Any) -> str:
        text = self._print(x)
        simple = x.is_Symbol or (x.is_Integer and x >= 0) or x in (sp.E, sp.pi)
        return f"{base}^{text}" if simple else f"{base}^({text})"

    def _root(self, b: Any) -> str:
        text = self._print(b)
        # e^u is a Function to sympy, but √e^u would read as (√e)^u: it is bracketed
        simple = b.is_Symbol or (b.is_Integer and b >= 0) or (
            isinstance(b, sp.Function) and not isinstance(b, sp.exp))
        return f"√{text}" if simple else f"√({text})"

    def _print_Pow(self, e: Any) -> str:
        b, x = e.as_base_exp()
        if x == sp.S.Half:
            return self._root(b)
        if x.is_Rational and x.is_negative:
            return f"1/{self._factor(b ** -x)}"
        if b == sp.E:
            return self._power(self.euler, x)
        return self._power(self._base(b), x)

    def _factor(self, f: Any) -> str:
        text = self._print(f)
        if f.is_Add or (f.is_Mul and not _single(f)) or (f.is_Rational and not f.is_Integer):
            return f"({text})"
        return text

    def _print_Mul(self, e: Any) -> str:
        coeff, rest = e.as_coeff_Mul()
        if coeff.is_negative:
            inner = self._print_Mul(-e) if (-e).is_Mul else self._print(-e)
            if (-e).is_Add:
                inner = f"({inner})"
            return "-" + inner
        numer: list[Any] = []
        denom: list[Any] = []
        if coeff.is_Rational:
            if coeff.p != 1:
                numer.append(sp.Integer(coeff.p))
            if coeff.q != 1:
                denom.append(sp.Integer(coeff.q))
        elif coeff != 1:
            numer.append(coeff)
        for f in sp.Mul.make_args(rest):
            b, x = f.as_base_exp()
            if x.is_Rational and x.is_negative:
                denom.append(b ** -x)
            else:
                numer.append(f)
        numer.sort(key=lambda f: not f.is_number)  # constants first: ln(3)·e^x, √2·x
        top = join_product([self._factor(f) for f in numer]) if numer else "1"
        if not denom:
            return top
        bottom = join_product([self._factor(f) for f in denom])
        if len(denom) > 1:
            bottom = f"({bottom})"
        return f"{top}/{bottom}"

    def _print_Rational(self, e: Any) -> str:
        return f"{e.p}/{e.q}" if e.q != 1 else str(e.p)


def _single(f: Any) -> bool:
    return not f.is_Mul


def formula(expr: Any, inputs: tuple[str, ...] = ()) -> str:
    """An expression in the student's notation (`E` for Euler's number when `e` is an
    input); absolute values as |x| when there is one, as abs(x) when there are several
    (`|x| + x + 2|x|` can pair its bars two ways)."""
    euler = "E" if EULER in inputs else "e"
    text = StudentPrinter(euler).doprint(expr)
    return text if text.count("|") <= 2 else StudentPrinter(euler, bars=False).doprint(expr)


def grid(exprs: list[Any], shape: tuple[int, ...], inputs: tuple[str, ...]
         ) -> tuple[str, str]:
    """Derivative entries (row-major) as (text, LaTeX), each entry in its shortest form
    found (`simplest`)."""
    best = [simplest(e, inputs) for e in exprs]
    items = [formula(e, inputs) for e in best]
    tex = [latex(e) for e in best]
    if not shape:
        return items[0], tex[0]
    if len(shape) == 1:
        return ("[" + ", ".join(items) + "]",
                r"\begin{pmatrix}" + r" \\ ".join(tex) + r"\end{pmatrix}")
    n = shape[1]
    rows = [items[i * n:(i + 1) * n] for i in range(shape[0])]
    texrows = [" & ".join(tex[i * n:(i + 1) * n]) for i in range(shape[0])]
    return ("[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]",
            r"\begin{pmatrix}" + r" \\ ".join(texrows) + r"\end{pmatrix}")


#: a substitution's angle (a trig substitution's θ) as LaTeX writes it
GREEK = {"θ": r"\theta", "φ": r"\varphi"}


def latex(expr: Any) -> str:
    """The expression as LaTeX (ln for the natural log, a Greek angle by its command)."""
    greek = {s: GREEK[s.name] for s in getattr(expr, "free_symbols", ()) if s.name in GREEK}
    return sp.latex(expr, ln_notation=True, symbol_names=greek)


def simplest(expr: Any, inputs: tuple[str, ...] = ()) -> Any:
    """The shortest printed form among the expression and its rewritings (together and
    cancel where there are fractions, factor, trigsimp where a trig identity may apply,
    logcombine where there are several logs), tried in that order on expressions up to a
    size, each within `SIMPLIFY_CALLS` counted calls: the result depends on the
    expression alone, never on the machine's speed or load. The expression itself when
    nothing shorter is found. (sympy's `simplify` is left out: it alone often takes
    longer.)"""
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    expr = real_roots.as_written(expr)
    best, best_len = expr, len(formula(expr, inputs))
    seen = {expr}  # a rewriting already printed cannot be shorter: not printed again
    for candidate in _rewritings(expr):
        if candidate in seen:
            continue
        seen.add(candidate)
        if candidate.has(sp.nan, sp.zoo, sp.oo) and not expr.has(sp.nan, sp.zoo):
            continue
        size = len(formula(candidate, inputs))
        if size < best_len:
            best, best_len = candidate, size
    return best


def _routes(expr: Any) -> list[Any]:
    """The rewritings worth trying on `expr`, by its size and what it holds."""
    ops = sp.count_ops(expr)
    if ops > MAX_REWRITE_OPS:
        return []
    routes: list[Any] = [sp.factor]
    if any(p.exp.is_negative for p in expr.atoms(sp.Pow)):  # fractions to combine
        routes[:0] = [sp.together, sp.cancel]
    if ops <= MAX_TRIGSIMP_OPS and _trig_identity_possible(expr):
        routes.append(sp.trigsimp)
    if len(expr.atoms(sp.log)) > 1:
        routes.append(_logs_combined)
    return routes


def _rewritings(expr: Any) -> Iterator[Any]:
    """What each route makes of `expr` within its counted calls (a route sympy cannot
    take, or that runs past its count, gives nothing)."""
    for route in _routes(expr):
        try:
            done = counted.decide(route, expr, calls=SIMPLIFY_CALLS)
            if not done.over:
                yield real_roots.as_written(done.result)
        except Exception:  # noqa: BLE001 - a route sympy cannot take is skipped
            continue


def _logs_combined(expr: Any) -> Any:
    return sp.logcombine(expr, force=True)


_TRIG = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)


def _trig_identity_possible(expr: Any) -> bool:
    """Whether trigsimp may find something (a trig function squared, or two trig
    functions of one argument in one product): it is the slowest route, and usually
    finds nothing."""
    if any(p.base.func in _TRIG and p.exp.is_Integer and abs(p.exp) >= 2
           for p in expr.atoms(sp.Pow)):
        return True
    for m in expr.atoms(sp.Mul):
        args = [f.as_base_exp()[0].args[0] for f in m.args
                if f.as_base_exp()[0].func in _TRIG]
        if len(args) != len(set(args)):
            return True
    return False


# --------------------------------------------------------------------------- the IR

_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2, "**": 4}
_UNARY = 3


def _number(v: float) -> str:
    if v == int(v) and abs(v) < 1e16:
        return str(int(v))
    for const, name in ((math.pi, "π"), (math.e, "e")):
        for k in (1, 2, 3, 4, 6):
            if v == const / k:
                return name if k == 1 else f"{name}/{k}"
            if v == const * k:
                return f"{k}{name}"
    text = repr(v)
    if len(text) <= 8:
        return text
    from gradcalc.homework.exact import exact_number

    near = exact_number(v)
    return text if isinstance(near, sp.Float) else formula(near)


def _prec(e: Any) -> int:
    if isinstance(e, Binary):
        return _PREC[e.op]
    if isinstance(e, Unary):
        return _UNARY
    if isinstance(e, (Compare, BoolOp, Not)):
        return 0
    if isinstance(e, Num) and (e.value < 0 or "/" in _number(e.value)):
        return 2
    return 9


def _atomic(e: Any) -> bool:
    return isinstance(e, (Name, Call, ListLit)) or (isinstance(e, Num) and _prec(e) == 9)


def expression(e: Any) -> str:
    """An expression of the IR in the student's notation, grouped as it was read."""
    if isinstance(e, Num):
        return _number(e.value)
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Unary):
        inner = expression(e.operand)
        return f"{e.op}({inner})" if _prec(e.operand) <= _UNARY else f"{e.op}{inner}"
    if isinstance(e, Binary):
        return _binary(e)
    if isinstance(e, Call):
        return _call(e)
    if isinstance(e, ListLit):
        return "[" + ", ".join(expression(i) for i in e.items) + "]"
    return unparse(e).replace("**", "^")


def _wrap(e: Any, at_least: int) -> str:
    text = expression(e)
    return f"({text})" if _prec(e) < at_least else text


def _binary(e: Binary) -> str:
    if e.op == "**":
        base = expression(e.left) if _atomic(e.left) and not (
            isinstance(e.left, Call) and e.left.func == "sqrt") else \
            f"({expression(e.left)})"
        right = e.right
        exp = expression(right)
        if not (_atomic(right) and not isinstance(right, Call)):
            exp = f"({exp})"
        return f"{base}^{exp}"
    if e.op == "*":
        factors = _factors(e)
        parts = []
        for f in factors:
            # a quotient as a factor keeps its parentheses: (1/2)·x, not 1/2·x
            grouped = _prec(f) < 2 or (isinstance(f, Binary) and f.op in "*/") or (
                isinstance(f, Num) and "/" in _number(f.value))
            parts.append(f"({expression(f)})" if grouped else expression(f))
        return join_product(parts)
    p = _PREC[e.op]
    left = _wrap(e.left, p)
    right = _wrap(e.right, p + 1)
    if e.op == "/" and isinstance(e.right, Binary) and e.right.op in ("*", "/"):
        right = f"({expression(e.right)})"
    if e.op == "/":
        return f"{left}/{right}"
    return f"{left} {e.op} {right}"


def _factors(e: Any) -> list[Any]:
    """The factors of a product along its left spine (a right operand that is itself a
    product keeps its parentheses: that is how it was read)."""
    if isinstance(e, Binary) and e.op == "*":
        return [*_factors(e.left), e.right]
    return [e]


def _constant(e: Any) -> bool:
    """Whether an IR node is a number written with numbers only (`-6`, `1/2`)."""
    if isinstance(e, Num):
        return True
    if isinstance(e, Unary):
        return _constant(e.operand)
    return isinstance(e, Binary) and _constant(e.left) and _constant(e.right)


def _call(e: Call) -> str:
    args = [expression(a) for a in e.args]
    if e.func == "exp" and len(args) == 1 and _constant(e.args[0]):
        # a constant power of e reads as one: e^(-6), as a book prints it, not exp(-6)
        simple = isinstance(e.args[0], Num) and _prec(e.args[0]) == 9
        return f"e^{args[0]}" if simple else f"e^({args[0]})"
    if e.func == "abs" and len(args) == 1 and bars_read():
        return f"|{args[0]}|"
    if e.func == "sqrt" and len(args) == 1:
        return f"√{args[0]}" if _atomic(e.args[0]) and not isinstance(
            e.args[0], Call) else f"√({args[0]})"
    if e.func == "logb" and len(args) == 2 and isinstance(e.args[1], Num):
        return f"log_{args[1]}({args[0]})"
    return f"{SPELLED.get(e.func, e.func)}({', '.join(args)})"
