"""An antiderivative worked out step by step: the rule tree (`integral_rules.steps`: the
textbook's rewritings, sympy's manual integration within a counted budget, the searches
of its own), its steps written out (`integrator.Integrator`), then the result simplified,
`+ C`, and the check "differentiate back". Each step is verified by derivatives (two
antiderivatives are equal up to a constant exactly when their derivatives are equal), at
sampled points on the tape.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from gradcalc.homework.reading.student import formula, latex
from gradcalc.homework.real_roots import as_written
from gradcalc.homework.solutions import (
    final_form,
    integral_rules,
    integral_search,
    states,
    sympy_antiderivative,
)
from gradcalc.homework.solutions.integral_search import unknown
from gradcalc.homework.solutions.integrator import Integrator, no_todo_left
from gradcalc.homework.solutions.rational_integrands import partial_fractions
from gradcalc.homework.solutions.states import Term, Todo, leaf, pending, total
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


def steps_of(f: Any, x: Any, limits: Any, arguments: tuple[Any, ...] = ()) -> Any:
    """The rule tree for ∫ f dx (`integral_rules.steps`: the textbook's rewritings,
    sympy's rules within a counted budget, a substitution search); past the budget, a
    substitution (or parts) tried before sympy's rules, within a budget of its own;
    Unsupported when none is found (or f is too large). A rational function is first
    written as partial fractions (sympy's `apart`), the way it is taught; a linear
    argument as the student wrote it (`arguments`: 4 − x) is u = 4 − x first."""
    if sp.count_ops(f) > MAX_INTEGRAND_OPS:
        raise Unsupported("an integrand this large")
    try:
        with integral_search.budget():
            rule = integral_rules.as_written(f, x, arguments) or _rule_tree(f, x)
    except integral_search.OverBudget:
        rule = _substitution_first(f, x)
    if rule is None or unknown(rule):
        raise Unsupported("no antiderivative by the rules")
    return rule


def _rule_tree(f: Any, x: Any) -> Any:
    """The rule tree, a rational function first written as partial fractions."""
    from sympy.integrals.manualintegrate import RewriteRule

    fractions = partial_fractions(f, x)
    if fractions is None:
        return integral_rules.steps(f, x)
    inner = integral_rules.steps(fractions, x)
    return None if inner is None else RewriteRule(f, x, fractions, inner)


def _substitution_first(f: Any, x: Any) -> Any:
    """`integral_rules.substitution_first` within a budget of its own."""
    try:
        with integral_search.budget():
            return integral_rules.substitution_first(f, x)
    except integral_search.OverBudget:
        raise Unsupported(f"sympy's rules took more than {integral_search.MAX_RULE_CALLS} "
                          "searches") from None


def worked(f: Any, x: Any, checker: Checker, constant: Any, limits: Any,
           arguments: tuple[Any, ...] = ()) -> tuple[list[Part], Any, int]:
    """The parts of ∫ f dx (the integral, then the check), the antiderivative (without
    + C), and the steps merged."""
    # x^(2/3), not |x|^(2/3): see real_roots
    rule = steps_of(as_written(f), x, limits, arguments)
    maker = Integrator(x)
    start = maker.todo(rule, x, None)
    raws, pieces, state = _walked(maker, start)
    value = states.to_sympy(state, no_todo_left)
    final = final_form.final(value)
    said, said_latex = final_form.shown(final), final_form.shown_latex(final)
    answer = leaf(final, said, said_latex)
    if said != states.text(state) and final != value:
        before = shown((state,))
        raws.append(Raw("simplify", before[0], f"{before[0]} = {said}",
                        f"{before[1]} = {said_latex}", (state,), (answer,), "derivative"))
    with_c = total([(1, answer), (1, leaf(constant))])
    first = shown((start,))
    raws.append(Raw("constant-of-integration", said,
                    f"{first[0]} = {states.text(with_c)}",
                    f"{first[1]} = {states.latex(with_c)}", (answer,), (with_c,),
                    "derivative", "every antiderivative of f differs by a constant"))
    steps, complete = chain(raws, checker)
    merged = sum(len(s.merged) for s in steps)
    title, tex = f"∫ f({x}) d{x}", rf"\int f({latex(x)})\, d{latex(x)}"
    start_text = shown((start,))
    parts = [Part(title, tex, start_text[0], start_text[1], states.text(with_c),
                  states.latex(with_c), tuple(steps))]
    if not complete:  # none shown: the note says so, and no step claims to be merged
        return [Part(title, tex, start_text[0], start_text[1], "", "", ())], None, 0
    back = replace(from_sympy(final, (x,)), text=said, latex=said_latex)
    todo = Todo("d", back.text, back.latex, final, x, payload=back)
    written = as_written(f)  # checked as f itself, printed with roots as books write them
    check = Raw("differentiate-back", said,
                f"{states.text(pending(todo))} = {formula(written)}",
                f"{states.latex(pending(todo))} = {latex(written)}", (pending(todo),),
                (leaf(f, formula(written), latex(written)),), "value")
    checked, _ = chain([check], checker)
    parts.append(Part(f"F'({x})", f"F'({latex(x)})", states.text(pending(todo)),
                      states.latex(pending(todo)), formula(written), latex(written),
                      tuple(checked)))
    path = Path(x, value, tuple(pieces) if merged == 0 else ())
    return parts, (final, path) if complete else None, merged


def _walked(maker: Integrator, start: Term) -> tuple[list[Raw], list[Piece], Term]:
    """The steps from ∫ f dx to its antiderivative: each substitution whose integral is
    done written back at once (so a row holds one substitution's variable at a time),
    else the first integral still to do worked out by its rule."""
    state, raws, pieces = start, [], []
    while True:
        node = next(states.substitutions(state), None)
        if node is not None:
            raws.append(_back_substituted(maker, state, node))
        else:
            todo = states.first_todo(state)
            if todo is None:
                return raws, pieces, state
            kind, result, note = maker.rewrite(todo, _alone(state))
            if states.done(result):
                pieces.append(_piece(len(raws), state, todo, result))
            here = pending(todo)
            raws.append(Raw(kind, todo.text, f"{states.text(here)} = {states.text(result)}",
                            f"{states.latex(here)} = {states.latex(result)}", (state,),
                            (states.replaced(state, todo, result),), "derivative", note))
        state = raws[-1].after[0]
        if len(raws) > MAX_STEPS:
            raise Unsupported("too many steps")


def _alone(state: Term) -> bool:
    """Whether the state is one integral still to do (times constants, in a
    substitution), no sum beside it."""
    return state.kind != "sum" and len(state.args) <= 1 and (
        not state.args or _alone(state.args[0])) or (
        state.kind == "product" and sum(a.kind != "leaf" for a in state.args) == 1
        and all(_alone(a) for a in state.args if a.kind != "leaf"))


def _back_substituted(maker: Integrator, state: Term, node: Term) -> Raw:
    """The step writing a finished substitution back in the variable it stands for."""
    value, said = maker.back_substituted(node)
    back = leaf(value)
    return Raw("back-substitution", said, f"{states.text(node.args[0])} = {states.text(back)}",
               f"{states.latex(node.args[0])} = {states.latex(back)}", (state,),
               (states.replaced_node(state, node, back),), "derivative", said)


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
    return Piece(index + 1, states.to_sympy(result, no_todo_left), todo.by, todo.to_x,
                 sp.diff(expr, mark))


def solution(problem: str, problem_latex: str, f: Any, x: Any, checker: Checker,
             constant: Any, limits: Any, arguments: tuple[Any, ...] = ()) -> Solution:
    """The worked solution of ∫ f dx (`arguments`: linear arguments as the student wrote
    them, for a substitution's u); where the rules give no steps, sympy's verified
    antiderivative, said plainly to have none."""
    out = Solution("antiderivative", problem, problem_latex)
    try:
        parts, final, merged = worked(f, x, checker, constant, limits, arguments)
    except integral_search.OverBudget:
        return unworked(out, f"sympy's rules took more than {integral_search.MAX_RULE_CALLS} "
                        "searches", f, x, checker, constant)
    except (Unsupported, ValueError, TypeError, AttributeError, NotImplementedError) as exc:
        return unworked(out, str(exc), f, x, checker, constant)
    if final is None:
        return unworked(out, "the steps found could not all be verified", f, x, checker,
                        constant)
    final, out.path = final
    out.parts, out.merged, out.points = parts, merged, checker.count
    out.answer = f"∫ f({x}) d{x} = {final_form.shown(final)} + {constant}"
    out.answer_latex = (rf"\int f({latex(x)})\, d{latex(x)} = {final_form.shown_latex(final)}"
                        f" + {latex(constant)}")
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
    out.answer_latex = (rf"\int f({latex(x)})\, d{latex(x)} = {final_form.shown_latex(final)}"
                        f" + {latex(constant)}")
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
