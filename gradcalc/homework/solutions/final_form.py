"""A result's final form, the simplest of its candidates by one measure.

The candidates: the result as the rules left it, the shortest printed form
`reading.student.simplest` finds, and that form tidied as a textbook writes it: a
negative coefficient taken into the one sum it multiplies (`-(cos(x) - sin(x))·e^x/2`
is `(sin(x) - cos(x))·e^x/2`), powers of e with a common base combined (`e·e^(-2t)` is
`e^(1 - 2t)`), and logarithms of products and quotients split into sums, with their bars
(`ln(√|x - 1|/√|x + 1|)` is `ln|x - 1|/2 - ln|x + 1|/2`; `split_logs`).

The measure (smaller is simpler): sympy's count of operations (an absolute value's bars
not counted), plus `NESTED_LOG` for each
logarithm whose argument is a product, quotient or root (ln of a combination reads
worse than a sum of logs), plus `SIGN` for a minus sign in front of a parenthesised sum
(`-(a - b)`); ties go to the shorter printed text, then to the earlier candidate. The
result as the rules left it is a candidate, so the final form is never longer by this
measure than the unsimplified one.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter

from gradcalc.homework.reading.student import GREEK, StudentPrinter, formula, simplest

#: the measure's extra weight of a log of a product, quotient or root
NESTED_LOG = 3
#: the measure's extra weight of a minus sign in front of a parenthesised sum
SIGN = 2
#: the largest expression (count_ops) the tidying rewritings are tried on
MAX_OPS = 80


def measure(e: Any) -> tuple[int, int]:
    """(the weighted count of operations, the printed length)."""
    if not isinstance(e, sp.Basic):
        return 0, len(str(e))
    ops = int(sp.count_ops(e)) - len(e.atoms(sp.Abs))  # |…| is notation, not work
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.log) and (node.args[0].is_Mul or node.args[0].is_Pow):
            ops += NESTED_LOG
        if node.is_Mul and node.could_extract_minus_sign() and any(
                a.is_Add for a in node.args):
            ops += SIGN
    return ops, len(formula(e))


def _sign_in(e: Any) -> Any:
    """-c·(a - b)·rest as c·(b - a)·rest (the one sum of a product takes the sign)."""
    if not e.is_Mul:
        return e
    coeff, factors = e.as_coeff_mul()
    sums = [a for a in factors if a.is_Add]
    if not (coeff.is_extended_real and coeff < 0) or len(sums) != 1:
        return e
    rest = [a for a in factors if a is not sums[0]]
    return -coeff * sp.Mul(*rest, sp.expand(-sums[0]))


def _tidied(short: Any) -> list[Any]:
    return [_sign_in(short), _sign_in(sp.powsimp(short))]


def candidates(e: Any) -> list[Any]:
    """The forms considered, the result as the rules left it first."""
    out = [e]
    if not isinstance(e, sp.Basic) or e.is_Atom or sp.count_ops(e) > MAX_OPS:
        return out
    short = simplest(e)
    out += [short, *_tidied(short), grouped_arguments(short)]
    if e.has(sp.log):
        out += [split_logs(short), split_logs(e)]
    return out


def grouped_arguments(e: Any) -> Any:
    """Each function's argument (and each factor of a product) whose terms all have one
    denominator q > 1 written over it, as books write it: atan((x + 2)/5), not
    atan(x/5 + 2/5) (kept unevaluated: sympy would spread 1/5 over the sum again)."""
    if not isinstance(e, sp.Basic):
        return e
    grouped = e.replace(lambda n: isinstance(n, sp.Function) and len(n.args) == 1
                        and not isinstance(n, (sp.Abs, sp.log))  # ln|x/2 + 1/2|, kept
                        and _over_one_denominator(n.args[0]) is not None,
                        lambda n: n.func(_over_one_denominator(n.args[0])))
    return grouped.replace(  # a factor too: 9·(x/3 - 2/3)/2 is 3(x - 2)/2
        lambda n: n.is_Mul and any(_over_one_denominator(a) is not None for a in n.args),
        lambda n: sp.Mul(*(_over_one_denominator(a) or a for a in n.args)))


def _over_one_denominator(arg: Any) -> Any:
    """a/q·x + b/q as (a·x + b)/q, unevaluated; None for a sum of other terms."""
    if not arg.is_Add:
        return None
    denominators = {t.as_coeff_Mul()[0].q for t in arg.args}
    if len(denominators) != 1 or 1 in denominators:
        return None
    q = denominators.pop()
    return sp.Mul(sp.Rational(1, q), sp.Add(*(q * t for t in arg.args)), evaluate=False)


def split_logs(e: Any) -> Any:
    """Each ln|b₁^k₁·b₂^k₂·…| as k₁·ln|b₁| + k₂·ln|b₂| + … (bars dropped only on a
    positive factor); a log without bars is split only where that keeps its value (every
    factor positive, or an even power): `ln(x^2/(x - 3)^2)` is `2ln|x| − 2ln|x − 3|`,
    never `2ln(x) − 2ln(x − 3)` (sympy's forced expansion), false for negative x."""
    return e.replace(lambda n: isinstance(n, sp.log), _split_log)


def _split_log(node: Any) -> Any:
    inner = node.args[0]
    bars = isinstance(inner, sp.Abs)
    inner = inner.args[0] if bars else inner
    terms = []
    for factor in sp.Mul.make_args(inner):
        base, k = factor.as_base_exp()
        if base.is_positive or isinstance(base, sp.Abs):
            terms.append(k * sp.log(base))
        elif bars or (k.is_integer and k.is_even):
            terms.append(k * sp.log(sp.Abs(base)))
        else:
            return node
    return sp.Add(*terms)


def final(e: Any) -> Any:
    """The simplest candidate by `measure` (the first of the simplest), each also with
    its reciprocals of cos and sin as sec and csc (`in_secants`)."""
    forms = _with_secants(candidates(e))
    return min(forms, key=lambda f: (measure(f), forms.index(f)))


def tidy(short: Any) -> Any:
    """A shortest form (a derivative's, as `check` prints it) or its tidied form (or
    either with sec and csc for 1/cos and 1/sin), the simpler by `measure`."""
    if not isinstance(short, sp.Basic) or short.is_Atom or sp.count_ops(short) > MAX_OPS:
        return short
    forms = _with_secants([short, *_tidied(short)])
    return min(forms, key=lambda f: (measure(f), forms.index(f)))


def _with_secants(forms: list[Any]) -> list[Any]:
    return forms + [g for g in map(in_secants, forms) if g not in forms]


def in_secants(e: Any) -> Any:
    """1/cos(u)^n as sec(u)^n and 1/sin(u)^n as csc(u)^n, as textbooks write them
    (d/dx ln(sec(x) + tan(x)) is sec(x), not 1/cos(x))."""
    if not isinstance(e, sp.Basic):
        return e
    flipped = {sp.cos: sp.sec, sp.sin: sp.csc}
    return e.replace(
        lambda n: n.is_Pow and n.exp.is_negative and n.base.func in flipped,
        lambda n: flipped[n.base.func](*n.base.args) ** -n.exp)


def shown(e: Any) -> str:
    """The student's notation, with |…| for every absolute value when each is the whole
    argument of a function (`ln(|x - 1|)/2 - ln(|x + 1|)/2`: bars that cannot pair up
    two ways), as the steps print them; else as `formula` prints it; a rational factor
    of a term before a named function written first (`coefficient_first`)."""
    if not isinstance(e, sp.Basic):
        return formula(e)
    inside = [n for n in sp.preorder_traversal(e) if isinstance(n, sp.Function)
              and len(n.args) == 1 and isinstance(n.args[0], sp.Abs)]
    text = AnswerPrinter().doprint(e)
    if (len(inside) == len(e.atoms(sp.Abs)) and inside) or text.count("|") <= 2:
        return text
    return AnswerPrinter(bars=False).doprint(e)


def shown_latex(e: Any) -> str:
    """The LaTeX of `shown`: `\\frac{1}{5} \\operatorname{atan}{…}`, not atan(…) over 5."""
    greek = {s: GREEK[s.name] for s in getattr(e, "free_symbols", ()) if s.name in GREEK}
    return AnswerLatexPrinter({"ln_notation": True, "symbol_names": greek}).doprint(e)


def coefficient_first(term: Any) -> tuple[Any, Any] | None:
    """(c, rest) for a term c·rest that books write with the factor first, as the table
    writes (1/a)·atan(u/a): c a rational with a denominator, rest a function written by
    its name, or a product of such functions and powers of a variable ((1/5)·atan((x +
    2)/5), -(1/2)·x·cos(2x), (3/2)·ln(|x - 1|)). None for any other term: a power keeps
    the power rule's form (x^4/4, sin(x)^2/2, e^(3x)/3), and so does a product with one
    (sec(x)^3·tan(x)/4) or with a constant such as √3 or 1/π."""
    if not term.is_Mul:
        return None
    c, rest = term.as_coeff_Mul()
    factors = sp.Mul.make_args(rest)
    if not c.is_Rational or c.q == 1 or not any(map(_named, factors)):
        return None
    return (c, rest) if all(_named(f) or _variable_power(f) for f in factors) else None


def _named(f: Any) -> bool:
    """Whether f is a function printed by its name: sin(…), ln(…), atan(…)."""
    return isinstance(f, sp.Function) and not isinstance(f, (sp.exp, sp.Abs))


def _variable_power(f: Any) -> bool:
    """Whether f is x or x^n, n a positive integer."""
    base, n = f.as_base_exp()
    return base.is_Symbol and n.is_Integer and n > 0


def factors_first(e: Any) -> set[Any]:
    """The terms of e (and their negatives) written with their factor first: all of its
    terms with a fractional factor, when each is one `coefficient_first` takes (so that
    a line keeps one style: -cos(2x)^5/10 + cos(2x)^3/3 - cos(2x)/2 stays as it is);
    else none."""
    terms = sp.Add.make_args(e) if isinstance(e, sp.Basic) else ()
    fractions = [t for t in terms if _fraction_of(t)]
    if not all(map(coefficient_first, fractions)):
        return set()
    return {*fractions, *(-t for t in fractions)}


def _fraction_of(term: Any) -> bool:
    c = term.as_coeff_Mul()[0]
    return bool(c.is_Rational and c.q != 1)


class _TermsFirst:
    """A printer that writes the terms `factors_first` names with their factor first, at
    the top of the expression and nowhere deeper."""

    _print_level: int

    def doprint(self, expr: Any) -> str:
        self._terms = factors_first(expr)
        return super().doprint(expr)  # type: ignore[misc]

    def coefficient_first(self, e: Any) -> tuple[Any, Any] | None:
        return coefficient_first(e) if self._print_level <= 2 and e in self._terms else None


class AnswerPrinter(_TermsFirst, StudentPrinter):
    """The student's notation, a term's rational factor before a named function first."""

    def __init__(self, bars: bool = True) -> None:
        super().__init__("e", bars)

    def _print_Mul(self, e: Any) -> str:
        split = self.coefficient_first(e)
        if split is None:
            return super()._print_Mul(e)
        c, rest = split
        return f"{'-' if c < 0 else ''}({abs(c.p)}/{c.q})·{self._print(rest)}"


class AnswerLatexPrinter(_TermsFirst, LatexPrinter):
    """LaTeX, a term's rational factor before a named function first."""

    def _print_Mul(self, e: Any) -> str:
        split = self.coefficient_first(e)
        if split is None:
            return super()._print_Mul(e)
        c, rest = split
        return rf"{'- ' if c < 0 else ''}\frac{{{abs(c.p)}}}{{{c.q}}} {self._print(rest)}"
