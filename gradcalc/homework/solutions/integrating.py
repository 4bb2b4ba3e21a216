"""An antiderivative worked out step by step: the rule tree sympy's manual integration
gives (`sympy.integrals.manualintegrate.integral_steps`), one step per rule.

Substitution names its u (and writes the integral in u, then substitutes back), parts its
u and dv (with du and v), partial fractions and trig identities rewrite the integrand,
table integrals finish a part (∫ 1/u du is ln|u|); where sympy offers alternatives, the
shortest is shown. Then the result simplified, `+ C`, and the check "differentiate back".
Each step is verified by derivatives (two antiderivatives are equal up to a constant
exactly when their derivatives are equal), at sampled points on the tape.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from gradcalc.backends.symbolic import as_expr
from gradcalc.homework.reading.student import formula, latex
from gradcalc.homework.solutions import (
    final_form,
    integral_rules,
    states,
    sympy_antiderivative,
)
from gradcalc.homework.solutions.integral_rules import _chosen, _unknown
from gradcalc.homework.solutions.states import Term, Todo, leaf, pending, product, total
from gradcalc.homework.solutions.subexpressions import Unsupported, from_sympy
from gradcalc.homework.solutions.verified import (
    MAX_STEPS,
    Checker,
    Raw,
    chain,
    shown,
)
from gradcalc.homework.solutions.worked import Part, Solution

#: the largest integrand (sympy's count_ops) handed to manual integration
MAX_INTEGRAND_OPS = 40
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
         "ArcsinRule": "∫ 1/√(1 − u^2) du = asin(u)"}


def steps_of(f: Any, x: Any, limits: Any) -> Any:
    """The rule tree for ∫ f dx (`integral_rules.steps`: the textbook's rewritings,
    sympy's rules within a counted budget, a substitution search); Unsupported when it
    has none (or f is too large). A rational function is first written as partial
    fractions (sympy's `apart`), the way it is taught."""
    from sympy.integrals.manualintegrate import RewriteRule

    if sp.count_ops(f) > MAX_INTEGRAND_OPS:
        raise Unsupported("an integrand this large")
    try:
        with integral_rules.budget():
            fractions = _partial_fractions(f, x)
            if fractions is not None:
                inner = integral_rules.steps(fractions, x)
                rule = None if inner is None else RewriteRule(f, x, fractions, inner)
            else:
                rule = integral_rules.steps(f, x)
    except integral_rules.OverBudget:
        raise Unsupported(f"sympy's rules took more than {integral_rules.MAX_RULE_CALLS} "
                          "searches") from None
    if rule is None or _unknown(rule):
        raise Unsupported("no antiderivative by the rules")
    return rule


def _partial_fractions(f: Any, x: Any) -> Any:
    """f as partial fractions, when f is a rational function with a denominator of degree
    2 or more that they change; else None."""
    if not f.is_rational_function(x):
        return None
    bottom = sp.denom(sp.together(f))
    if sp.degree(bottom, x) < 2:
        return None
    fractions = sp.apart(f, x)
    return fractions if fractions.is_Add and fractions != f else None


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
            rule = _chosen(rule)
        f = self.shown(rule.integrand if integrand is None else integrand)
        return pending(Todo("int", formula(f), latex(f), f, by, payload=rule, to_x=to_x))

    def rewrite(self, todo: Todo) -> tuple[str, Term, str]:
        """(the rule's id, what ∫ becomes, a note)."""
        rule, by, to_x = todo.payload, todo.by, todo.to_x
        name = type(rule).__name__
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
            return "integral-sum", total([(1, self.todo(r, by, to_x))
                                          for r in rule.substeps]), ""
        if name == "URule":
            return self._substitution(rule, by, to_x)
        if name == "PartsRule":
            return self._parts(rule, by, to_x)
        if name == "TabularPartsRule":
            return self._tabular(rule, by)
        if name == "TrigSubRule":
            return self._trig_substitution(rule, by, to_x)
        if name == "RewriteRule":
            return self._rewritten(rule, by, to_x)
        if name == "SecReductionRule":
            n = rule.power
            return ("reduction", total([
                (1, leaf(self.shown(rule.first))),
                (1, product(leaf(rule.factor), self.todo(rule.substep, by, to_x)))]),
                f"∫ sec^n(u) du = sec^(n−2)(u)·tan(u)/(n − 1) + ((n − 2)/(n − 1))·∫ "
                f"sec^(n−2)(u) du, n = {n}")
        if name == "CyclicPartsRule":
            return "cyclic-parts", leaf(self.shown(rule.eval())), self._cyclic(rule, by)
        if name in TABLE:
            return "integral-table", leaf(self.shown(rule.eval())), TABLE[name]
        return "integral", leaf(self.shown(rule.eval())), ""

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
                return kind, leaf(result.value.xreplace({u: g})), note
        said = f"d{u} = {_times_d(du, by)}"
        return "substitution", states.substituted(u, g, inner), f"{u} = {formula(g)}, {said}"

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
        dx = self.shown(integral_rules.d_theta(rule.func, rule.theta))
        note = (f"{by} = {formula(func)}, d{by} = {_times_d(dx, theta)}, "
                f"{formula(root)} = {formula(in_theta)}")
        return "trig-substitution", states.substituted(theta, inverse, inner), note

    def back_substituted(self, node: Term) -> tuple[Any, str]:
        """A substitution's result written back in its variable, and what is said: u by
        its expression, θ by the right triangle's ratios."""
        value = states.to_sympy(node.args[0], _none)
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
        angles = {f: sp.expand_trig(f) for f in value.atoms(sp.Function)
                  if f.has(theta) and f.args != (theta,)}
        said = "".join(f"{formula(f)} = {formula(g)}, " for f, g in angles.items()) + said
        if value.has(theta) and not value.xreplace({f: sp.Integer(0) for f in value.atoms(
                sp.Function)}).has(theta):
            said = said.removesuffix(", ")
        else:
            said += f"{theta} = {formula(self.shown(rule.inverse))}"
        return in_x, (f"{by} = {formula(self.shown(rule.func))}: the right triangle with "
                      f"opposite side {formula(opposite)}, adjacent side {formula(adjacent)}"
                      f" and hypotenuse {formula(hypotenuse)} gives {said}")

    def _cyclic(self, rule: Any, by: Any) -> str:
        """Parts, again and again, until ∫ f comes back as c·I: the equation for I and
        its solution, I = ∫ f d(by)."""
        said, terms, sign = [], [], 1
        for p in rule.parts_rules:
            u, dv = self.shown(p.u), self.shown(p.dv)
            said.append(f"u = {formula(u)}, dv = {_times_d(dv, by)}")
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
            with integral_rules.budget():
                second = integral_rules.sympy_steps(v * du, by)
        rest = self.todo(second, by, to_x)
        return ("parts", total([(1, leaf(u * v)), (-1, rest)]),
                f"u = {formula(u)}, dv = {_times_d(dv, by)}: du = {_times_d(du, by)}, "
                f"v = {formula(v)}")

    def _rewritten(self, rule: Any, by: Any, to_x: Any) -> tuple[str, Term, str]:
        f, g = self.shown(rule.integrand), self.shown(rule.rewritten)
        kind = "rewrite"
        if integral_rules.completed_square(f, by) == g:
            kind = "complete-square"
        elif integral_rules.product_to_sum(f, by) == g:
            kind = "product-to-sum"
        elif f.is_rational_function(by) and g.is_Add:
            kind = "partial-fractions"
        elif f.has(sp.sin, sp.cos, sp.tan, sp.sec, sp.csc, sp.cot):
            kind = "trig-identity"
        note = f"{formula(f)} = {formula(g)}"
        if kind == "partial-fractions":
            note = cover_up(f, by) or note
        return kind, self.todo(rule.substep, by, to_x), note


def cover_up(f: Any, x: Any) -> str:
    """How the coefficients of p/q's partial fractions are found, when q is a product of
    distinct linear factors and p of lower degree (the cover-up method: A = p(r)/q_r(r),
    q_r being q without the factor x − r); '' otherwise."""
    top, bottom = sp.fraction(sp.together(f))
    if not bottom.is_polynomial(x) or sp.degree(top, x) >= sp.degree(bottom, x):
        return ""
    factors = sp.factor_list(bottom, x)[1]
    if any(m != 1 or sp.degree(p, x) != 1 for p, m in factors):
        return ""
    letters = "ABCDEFGH"[:len(factors)]
    if len(letters) < len(factors):
        return ""
    fractions, found = [], []
    for letter, (p, _) in zip(letters, factors, strict=True):
        root = sp.solve(p, x)[0]
        others = sp.cancel(bottom / p)
        value = sp.cancel(top.subs(x, root) / others.subs(x, root))
        fractions.append(f"{letter}/({formula(p)})")
        found.append(f"{letter} = {formula(value)} (at {x} = {formula(root)})")
    return (f"{formula(f)} = {' + '.join(fractions)}; cover-up: " + ", ".join(found))


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


def worked(f: Any, x: Any, checker: Checker, constant: Any, limits: Any
           ) -> tuple[list[Part], Any, int]:
    """The parts of ∫ f dx (the integral, then the check), the antiderivative (without
    + C), and the steps merged."""
    rule = steps_of(f, x, limits)
    maker = Integrator(x)
    state = maker.todo(rule, x, None)
    start = state
    raws: list[Raw] = []
    pieces: list[Piece] = []
    while True:
        todo = states.first_todo(state)
        if todo is not None:
            kind, result, note = maker.rewrite(todo)
            if states.done(result):
                pieces.append(_piece(len(raws), state, todo, result))
            here = pending(todo)
            raws.append(Raw(kind, todo.text, f"{states.text(here)} = {states.text(result)}",
                            f"{states.latex(here)} = {states.latex(result)}", (state,),
                            (states.replaced(state, todo, result),), "derivative", note))
        else:
            node = next(states.substitutions(state), None)
            if node is None:
                break
            value, said = maker.back_substituted(node)
            back = leaf(value)
            raws.append(Raw("back-substitution", said,
                            f"{states.text(node.args[0])} = {states.text(back)}",
                            f"{states.latex(node.args[0])} = {states.latex(back)}",
                            (state,), (states.replaced_node(state, node, back),),
                            "derivative", said))
        state = raws[-1].after[0]
        if len(raws) > MAX_STEPS:
            raise Unsupported("too many steps")
    value = states.to_sympy(state, _none)
    final = final_form.final(value)
    said = final_form.shown(final)
    if said != states.text(state) and final != value:
        before = shown((state,))
        raws.append(Raw("simplify", before[0], f"{before[0]} = {said}",
                        f"{before[1]} = {latex(final)}", (state,), (leaf(final, said),),
                        "derivative"))
    with_c = total([(1, leaf(final, said)), (1, leaf(constant))])
    first = shown((start,))
    raws.append(Raw("constant-of-integration", said,
                    f"{first[0]} = {states.text(with_c)}",
                    f"{first[1]} = {states.latex(with_c)}", (leaf(final, said),), (with_c,),
                    "derivative", "every antiderivative of f differs by a constant"))
    steps, complete = chain(raws, checker)
    merged = sum(len(s.merged) for s in steps)
    title, tex = f"∫ f({x}) d{x}", rf"\int f({latex(x)})\, d{latex(x)}"
    start_text = shown((start,))
    parts = [Part(title, tex, start_text[0], start_text[1], states.text(with_c),
                  states.latex(with_c), tuple(steps))]
    if not complete:  # none shown: the note says so, and no step claims to be merged
        return [Part(title, tex, start_text[0], start_text[1], "", "", ())], None, 0
    back = replace(from_sympy(final, (x,)), text=said)
    todo = Todo("d", back.text, back.latex, final, x, payload=back)
    check = Raw("differentiate-back", said,
                f"{states.text(pending(todo))} = {formula(f)}",
                f"{states.latex(pending(todo))} = {latex(f)}", (pending(todo),), (leaf(f),),
                "value")
    checked, _ = chain([check], checker)
    parts.append(Part(f"F'({x})", f"F'({latex(x)})", states.text(pending(todo)),
                      states.latex(pending(todo)), formula(f), latex(f), tuple(checked)))
    path = Path(x, value, tuple(pieces) if merged == 0 else ())
    return parts, (final, path) if complete else None, merged


@dataclass(frozen=True)
class Piece:
    """One integral the steps worked out: step `step` (from 1) gave `value` (in `by`,
    which stands for `to_x`), which enters the antiderivative times `factor`."""

    step: int
    value: Any
    by: Any
    to_x: Any
    factor: Any

    @property
    def in_x(self) -> Any:
        return self.value if self.to_x is None else self.value.xreplace({self.by: self.to_x})


@dataclass(frozen=True)
class Path:
    """What placing a wrong antiderivative's departure needs: the variable, the
    antiderivative as the steps left it, and its pieces (none when steps were merged)."""

    x: Any
    value: Any
    pieces: tuple[Piece, ...]


def _piece(index: int, state: Term, todo: Todo, result: Term) -> Piece:
    """The piece step `index + 1` works out, with the factor it enters the state by."""
    mark = sp.Dummy("p")
    expr = states.to_sympy(state, lambda td: mark if td is todo else sp.Integer(0))
    return Piece(index + 1, states.to_sympy(result, _none), todo.by, todo.to_x,
                 sp.diff(expr, mark))


def _none(todo: Todo) -> Any:
    raise ValueError("a part still to do")


def solution(problem: str, problem_latex: str, f: Any, x: Any, checker: Checker,
             constant: Any, limits: Any) -> Solution:
    """The worked solution of ∫ f dx; where the rules give no steps, sympy's verified
    antiderivative, said plainly to have none."""
    out = Solution("antiderivative", problem, problem_latex)
    try:
        parts, final, merged = worked(f, x, checker, constant, limits)
    except integral_rules.OverBudget:
        return unworked(out, f"sympy's rules took more than {integral_rules.MAX_RULE_CALLS} "
                        "searches", f, x, checker, constant)
    except (Unsupported, ValueError, TypeError, AttributeError, NotImplementedError) as exc:
        return unworked(out, str(exc), f, x, checker, constant)
    if final is None:
        return unworked(out, "the steps found could not all be verified", f, x, checker,
                        constant)
    final, out.path = final
    out.parts, out.merged, out.points = parts, merged, checker.count
    out.answer = f"∫ f({x}) d{x} = {final_form.shown(final)} + {constant}"
    out.answer_latex = rf"\int f({latex(x)})\, d{latex(x)} = {latex(final)} + {latex(constant)}"
    return out


def unworked(out: Solution, why: str, f: Any, x: Any, checker: Checker,
             constant: Any) -> Solution:
    """No worked steps, and why; sympy's antiderivative when it has one that
    differentiates back to f (by sympy, and on the tape too where the tape can run it),
    as the answer with no steps."""
    F, why_not = sympy_antiderivative.antiderivative(f, x)
    if F is None:
        out.note = f"no worked steps found ({why}); no antiderivative from sympy ({why_not})"
        return out
    final = final_form.final(F)
    said = final_form.shown(final)
    out.note = (f"no worked steps found ({why}); sympy's antiderivative, verified by "
                f"differentiating it back{_on_the_tape(final, f, x, checker)}")
    out.answer = f"∫ f({x}) d{x} = {said} + {constant}"
    out.answer_latex = rf"\int f({latex(x)})\, d{latex(x)} = {latex(final)} + {latex(constant)}"
    return out


def _on_the_tape(F: Any, f: Any, x: Any, checker: Checker) -> str:
    """' and at N points on the tape' when F' = f holds there ('' when the tape has no
    name for one of F's functions, such as Si)."""
    try:
        back = from_sympy(F, (x,))
    except Unsupported:
        return ""
    todo = Todo("d", back.text, back.latex, F, x, payload=back)
    ok, _, used = checker.holds(Raw("differentiate-back", "", "", "", (pending(todo),),
                                    (leaf(f),), "value"))
    return f" (by sympy, and at {used} points on the tape)" if ok else " (by sympy)"
