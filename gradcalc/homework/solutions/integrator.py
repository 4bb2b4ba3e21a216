"""The steps of an antiderivative written out from its rule tree, one step per rule:
substitution names its u (and writes the integral in u, then substitutes back), parts its
u and dv (with du and v), partial fractions and trig identities rewrite the integrand,
table integrals finish a part (∫ 1/u du is ln|u|).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Any

import sympy as sp

from gradcalc.backends.symbolic import as_expr
from gradcalc.homework.reading.student import formula, latex
from gradcalc.homework.solutions import states
from gradcalc.homework.solutions.final_form import grouped_arguments
from gradcalc.homework.solutions.integral_search import budget, chosen, sympy_steps
from gradcalc.homework.solutions.rational_integrands import (
    completed_square,
    cover_up,
    perfect_power,
)
from gradcalc.homework.solutions.rule_names import pair_free_of
from gradcalc.homework.solutions.states import Term, Todo, leaf, pending, product, total
from gradcalc.homework.solutions.trig_powers import (
    cos_double_angle,
    cos_squares,
    product_to_sum,
    split_fraction,
)
from gradcalc.homework.solutions.trig_substitution import d_theta, square_completed_in_root

#: names a substitution's variable is given, in turn
NAMES = ("u", "w", "t", "s", "z")
#: names a trig substitution's angle is given, in turn
THETAS = ("θ", "φ")
#: table integrals: sympy's rule -> what it says
TABLE = {"SinRule": "∫ sin(u) du = −cos(u)", "CosRule": "∫ cos(u) du = sin(u)",
         "SecTanRule": "∫ sec(u)·tan(u) du = sec(u)", "CscCotRule": "∫ csc(u)·cot(u) du = −csc(u)",
         "Sec2Rule": "∫ sec(u)^2 du = tan(u)", "Csc2Rule": "∫ csc(u)^2 du = −cot(u)",
         "SinhRule": "∫ sinh(u) du = cosh(u)", "CoshRule": "∫ cosh(u) du = sinh(u)",
         "ArctanRule": "∫ 1/(u^2 + a^2) du = (1/a)·atan(u/a)",
         "ArcsinRule": "∫ 1/√(1 − u^2) du = asin(u)",
         "ArcsinhRule": "∫ 1/√(u^2 + 1) du = asinh(u)"}



class Integrator:
    """The steps of one antiderivative: each rule's part of the state rewritten."""

    def __init__(self, x: Any) -> None:
        self.x = x
        self.names: dict[Any, Any] = {}  # sympy's dummy -> the shown variable
        self.taken: set[str] = {x.name}
        self.triangles: dict[Any, Any] = {}  # θ shown -> its TrigSubRule

    def name(self, dummy: Any, names: tuple[str, ...] = NAMES) -> Any:
        if dummy not in self.names:
            more = (f"u{k}" for k in itertools.count(1))  # past the letters
            free = next(n for n in itertools.chain(names, more) if n not in self.taken)
            self.taken.add(free)
            self.names[dummy] = sp.Symbol(free, real=True)
        return self.names[dummy]

    def shown(self, e: Any) -> Any:
        return as_expr(e).xreplace(self.names)

    def todo(self, rule: Any, by: Any, to_x: Any, integrand: Any = None) -> Term:
        """∫ of the rule's integrand (or `integrand`: what a constant multiple leaves,
        which sympy's substep may state without its constant) still to do."""
        while type(rule).__name__ == "AlternativeRule":
            rule = chosen(rule)
        f = self.shown(rule.integrand if integrand is None else integrand)
        return pending(Todo("int", formula(f), latex(f), f, by, payload=rule, to_x=to_x))

    def rewrite(self, todo: Todo, alone: bool = True) -> tuple[str, Term, str]:
        """(the rule's id, what ∫ becomes, a note). An integral beside others (not
        `alone`) that is routine, term by term, is done in one step (`at_once`)."""
        rule, by, to_x = todo.payload, todo.by, todo.to_x
        name = type(rule).__name__
        if not alone and name in ROUTINE_WRAPPERS and routine(rule):
            return self.at_once(rule, by)
        if name == "ConstantRule":
            return "integral-constant", leaf(self.shown(rule.integrand) * by), ""
        if name == "PowerRule":
            return "integral-power", leaf(self.shown(rule.eval())), ""
        if name == "ReciprocalRule":
            return ("integral-reciprocal", leaf(sp.log(sp.Abs(self.shown(rule.base)))),
                    "∫ 1/u du = ln|u|")
        if name == "ExpRule":
            return "integral-exponential", leaf(self.shown(rule.eval())), ""
        if name == "ConstantTimesRule":
            return ("integral-constant-multiple", product(
                leaf(self.shown(rule.constant)),
                self.todo(rule.substep, by, to_x, rule.other)), "")
        if name == "AddRule":
            return "integral-sum", total([self._signed(r, by, to_x)
                                          for r in rule.substeps]), ""
        if name == "URule":
            return self._substitution(rule, by, to_x)
        if name == "PartsRule":
            return self._parts(rule, by, to_x)
        if name == "TabularPartsRule":
            return self._tabular(rule, by)
        if name == "TrigSubRule":
            return self._trig_substitution(rule, by, to_x)
        if name in ("RewriteRule", "CompleteSquareRule"):
            return self._rewritten(rule, by, to_x)
        if name == "SecReductionRule":
            return ("reduction", total([
                (1, leaf(self.shown(rule.first))),
                (1, product(leaf(rule.factor), self.todo(rule.substep, by, to_x)))]),
                rule.formula)
        if name == "PowerReductionRule":
            return ("trig-identity", product(leaf(rule.coefficient),
                                              self.todo(rule.substep, by, to_x)),
                    self._power_reduction(rule))
        if name == "CyclicPartsRule":
            return "cyclic-parts", leaf(self.shown(rule.eval())), self._cyclic(rule, by)
        if name in TABLE:
            return "integral-table", leaf(self.shown(rule.eval())), TABLE[name]
        return "integral", leaf(barred_logs(self.shown(rule.eval()))), ""

    def _signed(self, rule: Any, by: Any, to_x: Any) -> tuple[int, Term]:
        """A sum's term as a textbook writes it: ∫ -u^4/2 du as − ∫ u^4/2 du, the
        constant's minus taken out of the integral into the sum's sign."""
        folded = sign_taken_out(rule)
        if folded is None:
            return 1, self.todo(rule, by, to_x)
        return -1, self.todo(folded[0], by, to_x, folded[1])

    def at_once(self, rule: Any, by: Any) -> tuple[str, Term, str]:
        """A routine integral (`routine`) in one step, as a textbook does it beside
        others: ∫ (cos(4x) + 1) dx = sin(4x)/4 + x, term by term; ∫ cos(4x) dx =
        sin(4x)/4 (u = 4x, du = 4 dx); ∫ -u^2/2 du = -u^3/6."""
        value = leaf(grouped_arguments(self.shown(rule.eval())))
        rule = _unwrapped(rule)
        name = type(rule).__name__
        if name == "AddRule":
            return "integral-sum", value, "term by term"
        said, own = [], _table_letter({by.name} | {
            s.name for s in self.shown(rule.integrand).free_symbols})
        while name in ROUTINE_WRAPPERS:
            if name == "URule":  # the table's own u (w where the step is in u)
                g = self.shown(rule.u_func)
                said.append(f"{own} = {formula(g)}, d{own} = {_times_d(sp.diff(g, by), by)}")
            rule = _unwrapped(rule.substep)
            name = type(rule).__name__
        kind, _, note = self.rewrite(Todo("int", "", "", rule.integrand, by, payload=rule))
        return kind, value, ", ".join(([_in_letter(note, own)] if note else []) + said)

    def _substitution(self, rule: Any, by: Any, to_x: Any) -> tuple[str, Term, str]:
        u = self.name(rule.u_var)
        g = self.shown(rule.u_func)
        inner_to_x = g.xreplace({by: to_x}) if to_x is not None else g
        du = sp.diff(g, by)
        inner = self.todo(rule.substep, u, inner_to_x)
        if du == 1:  # a shift, u = x + c: the inner rule's result, written in x at once
            assert inner.todo is not None
            kind, result, note = self.rewrite(inner.todo)
            if result.kind == "leaf":
                if kind == "cyclic-parts":  # the note in x too, as the step is
                    note = self._shift_written_in_x(rule, inner.todo.payload, by)
                return kind, leaf(grouped_arguments(result.value.xreplace({u: g}))), note
        said = f"d{u} = {_times_d(du, by)}"
        return "substitution", states.substituted(u, g, inner), f"{u} = {formula(g)}, {said}"

    def _shift_written_in_x(self, shift: Any, cyclic: Any, by: Any) -> str:
        """Repeated parts' note under a shift u = x + c (du = dx) written in x, as its
        step is: I = ∫ e^(x + 1)·sin(x + 1) dx; by parts with u = sin(x + 1), …"""
        named = self.names[shift.u_var]
        self.names[shift.u_var] = self.shown(shift.u_func)
        try:
            return self._cyclic(cyclic, by)
        finally:
            self.names[shift.u_var] = named

    def _tabular(self, rule: Any, by: Any) -> tuple[str, Term, str]:
        """The table of u's derivatives and dv's antiderivatives, its diagonals summed."""
        table = "; ".join(f"{'+' if sign > 0 else '-'} | {formula(self.shown(d))} | "
                          f"{formula(self.shown(anti))}" for sign, d, anti in rule.rows)
        result = total([(sign, leaf(self.shown(term))) for sign, term in rule.terms])
        return ("tabular-parts", result,
                f"sign | u = {formula(self.shown(rule.rows[0][1]))} and its derivatives | "
                f"dv = {_times_d(self.shown(rule.rows[0][2]), by)} and its antiderivatives:"
                f" {table}; each sign times u's row times dv's next row")

    def _trig_substitution(self, rule: Any, by: Any, to_x: Any) -> tuple[str, Term, str]:
        """∫ f dx = ∫ g(θ) dθ with x = k·sin θ (tan, sec): the root and dx in θ said."""
        theta = self.name(rule.theta, THETAS)
        func, (root, in_theta) = self.shown(rule.func), map(self.shown, rule.root)
        inverse = self.shown(rule.branch)
        self.triangles[theta] = rule
        inner = self.todo(rule.substep, theta, inverse.xreplace({by: to_x})
                          if to_x is not None else inverse)
        dx = self.shown(d_theta(rule.func, rule.theta))
        note = (f"{by} = {formula(func)}, d{by} = {_times_d(dx, theta)}, "
                f"{formula(root)} = {formula(in_theta)}")
        return "trig-substitution", states.substituted(theta, inverse, inner), note

    def back_substituted(self, node: Term) -> tuple[Any, str]:
        """A substitution's result written back in its variable, and what is said: u by
        its expression, θ by the right triangle's ratios."""
        value = states.to_sympy(node.args[0], no_todo_left)
        rule = self.triangles.get(node.var)
        if rule is None:
            return value.xreplace({node.var: node.expr}), f"{node.var} = {formula(node.expr)}"
        theta, by = node.var, self.shown(rule.variable)
        in_x = self.shown(rule.back(value.xreplace({theta: rule.theta})))
        opposite, adjacent, hypotenuse = map(self.shown, rule.sides)
        ratios = sorted({type(f) for f in sp.expand_trig(value).atoms(sp.Function)
                         if f.args == (theta,) and f.func(rule.theta) in rule.triangle},
                        key=lambda f: f.__name__)
        ratio = {f: formula(self.shown(rule.triangle[f(rule.theta)])) for f in ratios}
        said = "".join(f"{f.__name__}({theta}) = {text}, " for f, text in ratio.items())
        said = _multiple_angles(value, theta) + said
        if value.has(theta) and not value.xreplace({f: sp.Integer(0) for f in value.atoms(
                sp.Function)}).has(theta):
            said = said.removesuffix(", ")
        else:
            said += f"{theta} = {formula(self.shown(rule.inverse))}"
        return in_x, (f"{by} = {formula(self.shown(rule.func))}: the right triangle with "
                      f"opposite side {formula(opposite)}, adjacent side {formula(adjacent)}"
                      f" and hypotenuse {formula(hypotenuse)} gives {said}")

    def _power_reduction(self, rule: Any) -> str:
        """sin² = (1 − cos(2a))/2 and cos² = (1 + cos(2a))/2 put in, multiplied out."""
        f, a = self.shown(rule.integrand), self.shown(rule.arg)
        c = formula(sp.cos(2 * a))
        halves = [(f"((1 {sign} {c})/2)^{k}" if k > 1 else f"((1 {sign} {c})/2)")
                  for sign, k in (("-", rule.powers[0] // 2), ("+", rule.powers[1] // 2))
                  if k]
        if len(halves) == 1 and halves[0].endswith(")/2)"):
            halves = [halves[0][1:-1]]  # (1 + cos(2x))/2 alone
        own = f.as_independent(self.shown(rule.variable), as_Add=False)[0]
        said = {1: "", -1: "-"}.get(own, f"{formula(own)}·") + "·".join(halves)
        multiplied = formula(self.shown(rule.substep.integrand))
        return (f"{formula(f)} = {said} = {_coefficient(rule.coefficient)}({multiplied})")

    def _cyclic(self, rule: Any, by: Any) -> str:
        """Parts, again and again, until ∫ f comes back as c·I: the equation for I and
        its solution, I = ∫ f d(by)."""
        said, terms, sign = [], [], 1
        first, second = self.pair(rule.integrand, by)
        for p in rule.parts_rules:
            u, dv = self.shown(p.u), self.shown(p.dv)
            said.append(f"{first} = {formula(u)}, d{second} = {_times_d(dv, by)}")
            terms.append(sign * u * self.shown(p.v_step.eval()))
            sign = -sign
        c = self.shown(rule.coefficient)
        rest = formula(sp.Add(*terms))
        back = f"{'+' if c > 0 else '-'} {_coefficient(abs(c))}I"
        return (f"I = ∫ {formula(self.shown(rule.integrand))} d{by}; by parts with "
                f"{', then '.join(said)}: I = {rest} {back}, so "
                f"{_coefficient(1 - c)}I = {rest}")

    def _parts(self, rule: Any, by: Any, to_x: Any) -> tuple[str, Term, str]:
        u, dv = self.shown(rule.u), self.shown(rule.dv)
        v = self.shown(rule.v_step.eval())
        du = sp.diff(u, by)
        second = rule.second_step
        if second is None:
            with budget():
                second = sympy_steps(v * du, by)
        sign, rest = -1, self.todo(second, by, to_x)
        folded = sign_taken_out(second)
        if folded is not None:  # u·v + ∫ cos(x) dx, not u·v - ∫ -cos(x) dx
            sign, rest = 1, self.todo(folded[0], by, to_x, folded[1])
        du = min((du, sp.factor(du)), key=sp.count_ops)  # (x + 1)·e^x, not x·e^x + e^x
        first, second = self.pair(rule.integrand, by)
        return ("parts", total([(1, leaf(u * v)), (sign, rest)]),
                f"{first} = {formula(u)}, d{second} = {_times_d(dv, by)}: "
                f"d{first} = {_times_d(du, by)}, {second} = {formula(v)}")

    def pair(self, integrand: Any, by: Any) -> tuple[str, str]:
        """The names parts gives its u and v: p and q where the integral is in u or v
        (after a substitution), as the product rule names its parts."""
        return pair_free_of({by.name} | {s.name for s in self.shown(integrand).free_symbols})

    def _rewritten(self, rule: Any, by: Any, to_x: Any) -> tuple[str, Term, str]:
        f, g = self.shown(rule.integrand), self.shown(rule.rewritten)
        kind = "rewrite"
        if type(rule).__name__ == "CompleteSquareRule" or g in (
                completed_square(f, by), square_completed_in_root(f, by)):
            kind = "complete-square"
        elif product_to_sum(f, by) == g:
            kind = "product-to-sum"
        elif g == perfect_power(f, by):
            kind = "factor"
        elif f.is_polynomial(by) and g == sp.expand(f):
            kind = "expand"
        elif f.is_rational_function(by) and g.is_Add:
            kind = "partial-fractions"
        elif g == split_fraction(f, by):
            kind = "split-fraction"
        elif f.has(sp.sin, sp.cos, sp.tan, sp.sec, sp.csc, sp.cot):
            kind = "trig-identity"
        elif f.has(sp.sinh, sp.cosh, sp.tanh):
            kind = "hyperbolic-identity"
        note = f"{formula(f)} = {formula(g)}"
        if g == cos_double_angle(f, by):  # (1 − tan²)/sec² = cos² − sin² = cos(2x)
            note = f"{formula(f)} = {_squares(*cos_squares(f, by))} = {formula(g)}"
        if kind == "partial-fractions":
            note = cover_up(f, by) or note
        return kind, self.todo(rule.substep, by, to_x), note



#: the rules a routine integral's leaf may be wrapped in
ROUTINE_WRAPPERS = frozenset({"ConstantTimesRule", "URule", "AddRule"})
#: the rules that finish a routine integral (∫ 1/u du = ln|u| has a step of its own)
ROUTINE_LEAVES = frozenset({"ConstantRule", "PowerRule", "ExpRule", *TABLE})


def _unwrapped(rule: Any) -> Any:
    while type(rule).__name__ == "AlternativeRule":
        rule = chosen(rule)
    return rule


def sign_taken_out(rule: Any) -> tuple[Any, Any] | None:
    """(the rule, its integrand) for ∫ c·g when `rule` is ∫ −c·g (c > 0), the constant
    ∫ −c or a power reduction of ∫ −c·cos(2x)^2: the minus taken out of the integral, as
    a textbook folds it into the sign before it (parts' v·du = −cos(x): u·v + ∫ cos(x)
    dx; a sum's − ∫ 1/2 du); None when the rule does not start with a negative constant."""
    rule = _unwrapped(rule)
    name = type(rule).__name__
    if name == "ConstantRule" and as_expr(rule.integrand).is_negative:
        return dataclasses.replace(rule, integrand=-rule.integrand), -rule.integrand
    if name == "PowerReductionRule" and as_expr(rule.coefficient).is_negative:
        return (dataclasses.replace(rule, integrand=-rule.integrand,
                                    coefficient=-rule.coefficient), -rule.integrand)
    if name != "ConstantTimesRule" or not as_expr(rule.constant).is_negative:
        return None
    if rule.constant == -1:
        return rule.substep, rule.other
    return (dataclasses.replace(rule, integrand=-rule.integrand, constant=-rule.constant),
            -rule.integrand)


def routine(rule: Any) -> bool:
    """Whether an integral is routine: a power, a constant, an exponential or a table
    integral, times a constant, of a linear u = a·x + b, or a sum of such (no
    substitution that is not linear, no logarithm)."""
    rule = _unwrapped(rule)
    name = type(rule).__name__
    if name in ROUTINE_LEAVES:
        return True
    if name == "ConstantTimesRule":
        return routine(rule.substep)
    if name == "URule":
        g = rule.u_func
        return g.is_polynomial(rule.variable) and sp.degree(g, rule.variable) == 1 and \
            routine(rule.substep)
    return name == "AddRule" and all(routine(r) for r in rule.substeps)


#: the trig functions whose multiple angles a trig substitution writes out
TRIG = (sp.sin, sp.cos, sp.tan, sp.sec, sp.csc, sp.cot)


def _multiple_angles(value: Any, theta: Any) -> str:
    """`sin(2θ) = 2cos(θ)·sin(θ), `: each trig function of a multiple of θ in `value`
    expanded, in the order of their texts (the same on every run; a log or a bar around
    θ's functions is no angle of its own)."""
    angles = {formula(f): formula(sp.expand_trig(f)) for f in value.atoms(*TRIG)
              if f.has(theta) and f.args != (theta,)}
    return "".join(f"{f} = {g}, " for f, g in sorted(angles.items()) if f != g)


def _table_letter(used: set[str]) -> str:
    """The letter a table integral is stated in: u, or the first of `NAMES` the step
    does not use (∫ cos(w) dw = sin(w), w = 2u where the step is in u, never u = 2u)."""
    return next(n for n in NAMES if n not in used)


def _in_letter(note: str, letter: str) -> str:
    """A table's note (∫ cos(u) du = sin(u)) stated in `letter` instead of u."""
    return re.sub(r"(?<![A-Za-z])(d?)u(?![A-Za-z])", rf"\g<1>{letter}", note)


def _squares(c: Any, squares: Any) -> str:
    """c·(cos^2(a) − sin^2(a)) with its terms in that order."""
    cos2, minus_sin2 = squares.args
    text = f"{formula(cos2)} - {formula(-minus_sin2)}"
    return text if c == 1 else f"{formula(c)}·({text})"


def _coefficient(c: Any) -> str:
    """A number before I: '' for 1, `2·`, `(9/4)·`."""
    if c == 1:
        return ""
    return f"{formula(c)}·" if c.is_Integer else f"({formula(c)})·"


def _times_d(e: Any, by: Any) -> str:
    """e·d(by) as a textbook writes it: `dx`, `2x dx`, `(2x + 4) dx`, `-dx`."""
    if e == 1:
        return f"d{by}"
    if e == -1:
        return f"-d{by}"
    text = formula(e)
    return f"({text}) d{by}" if e.is_Add else f"{text} d{by}"


def no_todo_left(todo: Todo) -> Any:
    """For `states.to_sympy` on a finished state: any integral still to do is an error."""
    raise ValueError("a part still to do")


def barred_logs(e: Any) -> Any:
    """Each ln(g) with g not known positive as ln|g| (the same derivative g'/g, and
    defined wherever g ≠ 0): a formula's ln(2x + 2√(x^2 + 6x) + 6) is false for x < −6."""
    return e.replace(lambda n: isinstance(n, sp.log) and not isinstance(n.args[0], sp.Abs)
                     and n.args[0].is_positive is not True,
                     lambda n: sp.log(sp.Abs(n.args[0])))
