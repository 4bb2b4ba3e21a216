"""A derivative worked out step by step: the rules applied to the parts still to do,
outermost first and left to right, then the result simplified (its own step), every step
verified (`verified.chain`).

A problem of the derivative kind is one part per function entry and input (the gradient
per component, the Jacobian per entry); a higher derivative or a mixed partial is
successive differentiations, each of the last one's result; `--at` adds the value at the
point as a last step. The answer is the judge's own form of the derivative (the shortest
printed form `reading.student.simplest` finds, by size), so it reads as `check`'s
expected text does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.reading.student import formula, latex, simplest
from gradcalc.homework.real_roots import as_written, real_powers
from gradcalc.homework.solutions import final_form, states
from gradcalc.homework.solutions.derivative_rules import Rules
from gradcalc.homework.solutions.evaluating import decimal, put_in, put_in_latex, where
from gradcalc.homework.solutions.states import Term, leaf, pending
from gradcalc.homework.solutions.subexpressions import (
    Node,
    Unsupported,
    from_ir,
    from_sympy,
    inline,
)
from gradcalc.homework.solutions.verified import MAX_STEPS, Checker, Raw, chain, shown
from gradcalc.homework.solutions.worked import Part, Solution
from gradcalc.homework.true_derivative import real_diff, torch_convention
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the largest derivative (sympy's count_ops) expanded, put over one denominator and
#: factored besides the judge's `simplest` (whose rewrites stop at 40)
MAX_FACTOR_OPS = 240
#: the highest power of a sum (in a numerator) a derivative may hold to be rewritten at
#: all (its terms grow as the power's multinomial: ((2x + 1)^10 + 1)^9 is left as it is)
MAX_EXPANDED_POWER = 4


@dataclass
class Worked:
    """One part worked out: the part, its result as sympy, and the steps merged."""

    part: Part
    value: Any
    merged: int
    complete: bool


def _no_todo(todo: Any) -> Any:
    raise ValueError("a part still to do at the end of a derivative")


def rewrites(node: Node, rules: Rules) -> tuple[list[Raw], Term]:
    """The rules' steps from d/dx(node) until nothing is left to do, and the last state."""
    state = pending(states.Todo("d", node.text, node.latex, node.value, rules.x,
                                payload=node, partial=rules.partial))
    raws: list[Raw] = []
    while (todo := states.first_todo(state)) is not None:
        found = rules.rewrite(todo.payload)
        after = states.replaced(state, todo, found.result)
        here = pending(todo)
        raws.append(Raw(found.rule, todo.payload.text,
                        f"{states.text(here)} = {states.text(found.result)}",
                        f"{states.latex(here)} = {states.latex(found.result)}",
                        (state,), (after,), "value", found.note, found.also,
                        (todo.payload.text, *todo.payload.covers)))
        state = after
        if len(raws) > MAX_STEPS:
            raise Unsupported("too many steps")
    return raws, state


def work(node: Node, rules: Rules, checker: Checker, title: str, title_latex: str,
         final: Any = None) -> Worked:
    """d/dx of `node`, step by step and verified; `final`: the form the result is
    simplified to (default: the shortest printed form of sympy's derivative, or the
    rules' result when that is no longer)."""
    start = pending(states.Todo("d", node.text, node.latex, node.value, rules.x,
                                payload=node, partial=rules.partial))
    shortest = final is None
    if final is None:
        final = final_form.tidy(_shortest(_unsigned(_diff(node.value, rules))))
    try:
        raws, last = rewrites(node, rules)
        value = states.to_sympy(last, _no_todo)
        if formula(final) != states.text(last) and value != final:  # not a reordering
            before = shown((last,))
            raws.append(Raw("simplify", before[0], f"{before[0]} = {formula(final)}",
                            f"{before[1]} = {latex(final)}", (last,), (leaf(final),)))
    except (Unsupported, ValueError, TypeError):
        raws, value = [], final
    steps, complete = chain(raws, checker) if raws else ([], False)
    if complete and shortest and steps and steps[-1].rule == "simplify" and \
            len(formula(value)) <= len(formula(final)):  # verified, and no longer
        steps, final = steps[:-1], value  # the rules' own form (tan' = sec²)
    merged = sum(len(s.merged) for s in steps)
    if not complete:  # the part in one step, as sympy differentiates it
        merged = len(raws)
        one = Raw("differentiate", node.text, f"{states.text(start)} = {formula(final)}",
                  f"{states.latex(start)} = {latex(final)}", (start,), (leaf(final),))
        ok, proved, used = checker.holds(one)
        steps = chain([one], checker)[0] if ok else []
        complete = ok
    start_text = shown((start,))
    return Worked(Part(title, title_latex, start_text[0], start_text[1], formula(final),
                       latex(final), tuple(steps)), final, merged, complete)


def _easiest(value: Any, rules: Rules) -> Node:
    """The form of an earlier result the next differentiation takes: the result, or it
    expanded with its non-polynomial factors collected (x^2·(2x + 3)·e^(2x) as
    (2x^3 + 3x^2)·e^(2x)), whichever the rules finish in fewer steps (counted)."""
    on = (rules.x,)
    forms = [value]
    expanded = sp.expand(value)
    if expanded != value and sp.count_ops(expanded) <= 2 * sp.count_ops(value):
        others = [f for f in expanded.atoms(sp.Function, sp.Pow) if not f.is_polynomial(*on)]
        forms.append(sp.collect(expanded, others) if others else expanded)
    best, fewest = from_sympy(value, on), None
    for form in forms:
        node = from_sympy(form, on)
        try:
            count = len(rewrites(node, rules)[0])
        except (Unsupported, ValueError, TypeError):
            continue
        if fewest is None or count < fewest:
            best, fewest = node, count
    return best


def _shortest(d: Any) -> Any:
    """The shortest printed form of a derivative among the judge's (`simplest`) and, up
    to MAX_FACTOR_OPS, rewritings `simplest` does not try or stops trying at its size:
    expanded (1 + 3/x^(3/2), not (x^(5/2) + 3x)/x^(5/2)), over one denominator with the
    numerator expanded ((...)/(t^4 - 4)^2), cancelled, and factored (the fourth
    derivative of -3x^4/(1 - x): 72/(x - 1)^5); then written with sec and csc; but logs
    never combined into the log of a product (3^y·ln(3) + x^y·ln(x), not
    ln(3^(3^y)·x^(x^y)): the derivative as it is, then)."""
    forms = [simplest(d)]
    if sp.count_ops(d) <= MAX_FACTOR_OPS:
        forms += _rewritten(d)
    short = _secants(min(forms, key=lambda f: (len(formula(f)), forms.index(f))))
    if _logs_of_products(short) > _logs_of_products(d):
        return d
    return short


def _over_one_denominator(e: Any) -> Any:
    top, bottom = sp.fraction(sp.together(e))
    return sp.expand(top) / bottom


def _rewritten(d: Any) -> list[Any]:
    out = []
    if any(p.base.is_Add and p.exp.is_Integer and p.exp > MAX_EXPANDED_POWER
           for p in d.atoms(sp.Pow)):
        return out
    for route in (sp.expand, _over_one_denominator, sp.cancel,
                  lambda e: sp.factor(sp.together(e))):
        try:
            out.append(as_written(route(d)))
        except (sp.PolynomialError, TypeError, ValueError):  # a route sympy cannot take
            continue
    return out


def _reciprocal_trig(e: Any) -> bool:
    return bool(e.is_Pow and isinstance(e.base, (sp.sin, sp.cos)) and e.exp.is_Integer
                and e.exp < 0)


def _pair(mul: Any, plain: Any, over: Any, paired: Any) -> Any:
    """sin(u)·sec(u)^k as tan(u)·sec(u)^(k - 1) (plain sin, over sec, paired tan), and
    cos(u)·csc(u)^k as cot(u)·csc(u)^(k - 1), in one product."""
    factors = list(mul.args)
    for i, f in enumerate(factors):
        b, k = f.as_base_exp()
        if not (isinstance(b, over) and k.is_Integer and k > 0):
            continue
        j = next((j for j, g in enumerate(factors) if g == plain(b.args[0])), None)
        if j is not None:
            factors[i], factors[j] = b ** (k - 1), paired(b.args[0])
            return sp.Mul(*factors)
    return mul


def _secants(e: Any) -> Any:
    """Trig written as textbooks print it: 1/cos(u)^k as sec(u)^k, 1/sin(u)^k as
    csc(u)^k, then sin(u)·sec(u)^k as tan(u)·sec(u)^(k - 1), cos(u)·csc(u)^k as
    cot(u)·csc(u)^(k - 1); kept when at most two characters longer (5sin(x)/cos(x)^2
    is 5tan(x)·sec(x), -3/sin(x)^2 is -3csc(x)^2), and only when no other denominator
    is left beside them."""
    if isinstance(e, sp.Add):  # term by term: 2cos(x)/sin(x) + 4/x is 2cot(x) + 4/x
        return sp.Add(*[_secants(a) for a in e.args])
    powers = e.atoms(sp.Pow) if isinstance(e, sp.Basic) else set()
    if not any(_reciprocal_trig(p) for p in powers) or any(
            p.exp.is_negative and not _reciprocal_trig(p) for p in powers):
        return e  # a fraction with another denominator stays a fraction
    out = e.replace(_reciprocal_trig, lambda p: (sp.sec if isinstance(p.base, sp.cos)
                                                 else sp.csc)(p.base.args[0]) ** -p.exp)
    for plain, over, paired in ((sp.sin, sp.sec, sp.tan), (sp.cos, sp.csc, sp.cot)):
        out = out.replace(lambda m: m.is_Mul, lambda m, a=(plain, over, paired): _pair(m, *a))
    return out if len(formula(out)) <= len(formula(e)) + 2 else e


def _logs_of_products(e: Any) -> int:
    """How many logarithms of a product or a power `e` has (logcombine's, which a
    textbook leaves as a sum of logs)."""
    return sum(1 for n in sp.preorder_traversal(e)
               if isinstance(n, sp.log) and (n.args[0].is_Mul or n.args[0].is_Pow))


def _unsigned(e: Any) -> Any:
    """sign(u)/|u| as 1/u, as (ln|u|)' = u'/u is written (both undefined at u = 0; a
    sign(u) with no 1/|u| beside it, |u|'s own, stays)."""
    for s in e.atoms(sp.sign):
        bars = sp.Abs(s.args[0])
        if any(p.base == bars and p.exp.is_negative for p in e.atoms(sp.Pow)):
            e = e.xreplace({s: bars / s.args[0]})
    return e


def _diff(value: Any, rules: Rules) -> Any:
    """sympy's derivative with the tape's conventions at kinks (no DiracDelta)."""
    out = real_diff(value, rules.x)
    if rules.y is not None:
        out += real_diff(value, rules.y) * rules.slope
    return torch_convention(out)


# --------------------------------------------------------------------------- a problem


def solve_problem(problem: Any, samples: int = 8, seed: int = 0,
                  limits: Limits = DEFAULT_LIMITS) -> Solution:
    """The worked solution of a problem of the derivative kind (a `homework.problem.
    Problem`: the derivative, gradient or Jacobian, a higher derivative, a mixed partial,
    the Hessian, a value at a point)."""
    symbols = {n: proof.symbol(n) for n in problem.inputs}
    name = "f"
    args = ", ".join(problem.inputs)
    f_text = "; ".join(e.text for e in problem.function.entries) if \
        not problem.function.shape else "[" + ", ".join(e.text for e in
                                                        problem.function.entries) + "]"
    solution = Solution("derivative", f"{name}({args}) = {f_text}", "")
    several = len(problem.inputs) > 1
    answers: list[str] = []
    latexes: list[str] = []
    finals: list[tuple[str, str, Any]] = []
    for r, entry in enumerate(problem.function.entries):
        try:
            node = from_ir(inline(entry.program), symbols)
        except Unsupported as exc:
            solution.note = f"no worked steps for this function ({exc})"
            return solution
        if r == 0:
            solution.problem_latex = f"{name}({args}) = {node.latex}"
        paths = problem.paths or tuple((w,) for w in problem.wrt)
        done: dict[tuple[str, ...], Any] = {(): node.value}
        for path in paths:
            for k in range(1, len(path) + 1):
                prefix = path[:k]
                if prefix in done:
                    continue
                w = prefix[-1]
                checker = Checker(symbols, symbols[w], anchor=entry, samples=samples,
                                  seed=seed, limits=limits)
                rules = Rules(symbols[w], partial=several)
                target = node if k == 1 else _easiest(done[prefix[:-1]], rules)
                title, tex = _label(name, prefix, problem.inputs, r, problem.function.shape)
                try:
                    worked = work(target, rules, checker, title, tex)
                except (TypeError, ValueError) as exc:  # sympy on an undefined value
                    solution.note = f"no worked steps for this function ({exc})"
                    return solution
                solution.parts.append(worked.part)
                solution.merged += worked.merged
                solution.points = max(solution.points, checker.count)
                done[prefix] = worked.value
            answers.append(formula(done[path]))
            latexes.append(latex(done[path]))
            finals.append((*_label(name, path, problem.inputs, r, problem.function.shape),
                           done[path]))
    if problem.pinned:
        _at_point(solution, problem, symbols, finals, answers, latexes, samples, seed,
                  limits)
    solution.answer, solution.answer_latex = _answer(problem, name, answers, latexes)
    return solution


def _label(name: str, path: tuple[str, ...], inputs: tuple[str, ...], row: int,
           shape: tuple[int, ...]) -> tuple[str, str]:
    f = f"{name}_{row + 1}" if shape else name
    if len(inputs) == 1 and len(path) <= 3:
        primes = "'" * len(path)
        return f"{f}{primes}({inputs[0]})", f"{f}{primes}({inputs[0]})"
    if len(inputs) == 1:  # f^(4)(x), as textbooks number the higher derivatives
        n = len(path)
        return f"{f}^({n})({inputs[0]})", f"{f}^{{({n})}}({inputs[0]})"
    if len(set(path)) == 1 and len(path) > 1:
        n, w = len(path), path[0]
        return f"∂^{n}{f}/∂{w}^{n}", rf"\frac{{\partial^{{{n}}} {f}}}{{\partial {w}^{{{n}}}}}"
    if len(path) == 1:
        return f"∂{f}/∂{path[0]}", rf"\frac{{\partial {f}}}{{\partial {path[0]}}}"
    return f"{f}_{''.join(path)}", f"{f}_{{{''.join(path)}}}"


def _answer(problem: Any, name: str, answers: list[str], latexes: list[str]
            ) -> tuple[str, str]:
    if problem.kind in ("derivative", "higher derivative", "partial") and len(answers) == 1:
        paths = problem.paths or ((problem.wrt[0],),)
        label, tex = _label(name, paths[0], problem.inputs, 0, ())
        pinned = dict(problem.pinned)
        if pinned and label.endswith(")") and all(n in pinned for n in problem.inputs):
            args = ", ".join(formula(proof.exact(pinned[n])) for n in problem.inputs)
            label, tex = f"{_head(label)}({args})", f"{_head(tex)}({args})"
        elif pinned:
            said, said_latex = where({n: proof.exact(v) for n, v in problem.pinned})
            label, tex = f"at {said}: {label}", rf"\text{{at }} {said_latex}:\ {tex}"
        return f"{label} = {answers[0]}", f"{tex} = {latexes[0]}"
    said, said_latex = where({n: proof.exact(v) for n, v in problem.pinned}) if (
        problem.pinned) else ("", "")
    at, at_latex = (f"at {said}: ", rf"\text{{at }} {said_latex}:\ ") if said else ("", "")
    n = len(problem.wrt)
    if problem.kind in ("hessian", "jacobian"):
        rows = [answers[i * n:(i + 1) * n] for i in range(len(answers) // n)]
        tex = [latexes[i * n:(i + 1) * n] for i in range(len(latexes) // n)]
        head = "H" if problem.kind == "hessian" else "J"
        return (f"{at}{head}{name} = [" + ", ".join("[" + ", ".join(r) + "]" for r in rows)
                + "]", rf"{at_latex}{head}_{{{name}}} = \left[" + r",\ ".join(
                    r"\left[" + ", ".join(r) + r"\right]" for r in tex) + r"\right]")
    return (f"{at}∇{name} = [" + ", ".join(answers) + "]",
            rf"{at_latex}\nabla {name} = \left[" + ", ".join(latexes) + r"\right]")


def _at_point(solution: Solution, problem: Any, symbols: dict[str, Any],
              finals: list[tuple[str, str, Any]], answers: list[str], latexes: list[str],
              samples: int, seed: int, limits: Limits) -> None:
    """The derivative's value at the point: the inputs put in (written out), the exact
    value, one verified step each; the answer adds the decimal value."""
    values = {n: proof.exact(v) for n, v in problem.pinned}
    pinned = {symbols[n]: v for n, v in values.items()}
    said, said_latex = where(values)
    checker = Checker(symbols, next(iter(pinned)), samples=samples, seed=seed,
                      limits=limits, fixed=dict(problem.pinned))
    for k, (title, title_latex, value) in enumerate(finals):
        at = simplest(real_powers(value).xreplace(pinned))  # (-1)^(1/3) = -1, as books
        label, label_latex = _pinned_label(title, title_latex, problem, values)
        put, put_latex = put_in(formula(value), values), put_in_latex(latex(value), values)
        raw = Raw("evaluate", formula(value), f"{label} = {put} = {formula(at)}",
                  f"{label_latex} = {put_latex} = {latex(at)}", (leaf(value),), (leaf(at),))
        steps, _ = chain([raw], checker)
        solution.parts.append(Part(f"{title} at {said}", label_latex, formula(value),
                                   put_latex, formula(at), latex(at), tuple(steps)))
        answers[k] = formula(at) + decimal(at)
        latexes[k] = latex(at) + decimal(at).replace("≈", r"\approx")
    solution.points = max(solution.points, checker.count)


def _pinned_label(title: str, title_latex: str, problem: Any, values: dict[str, Any]
                  ) -> tuple[str, str]:
    """f'(x) at x = 2 as f'(2); a label with several inputs (∂f/∂x) after the point:
    `at (x, y) = (1, 2): ∂f/∂x`."""
    if title.endswith(")") and "(" in title and all(n in values for n in problem.inputs):
        args = ", ".join(formula(values[n]) for n in problem.inputs)
        return f"{_head(title)}({args})", f"{_head(title_latex)}({args})"
    said, said_latex = where(values)
    return f"at {said}: {title}", rf"\text{{at }} {said_latex}:\ {title_latex}"


def _head(label: str) -> str:
    """A label without its arguments: f'(x) as f', f^(4)(x) as f^(4)."""
    return label.rsplit("(", 1)[0]
