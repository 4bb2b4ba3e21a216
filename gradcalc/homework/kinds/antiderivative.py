"""Antiderivatives: is the answer's derivative the function?

`check f --antiderivative --answer "x^4/4 + C"`: the answer's free names that the function
does not have are its constants. One constant (any name: C, K, c1) is the whole family
F + C; `--constant` says whether it is required, optional (the default: both `x^4/4` and
`x^4/4 + C` are right) or forbidden. The check is the plain one turned round: the answer,
with its constant as one more input drawn at random values, is differentiated on the
tape and compared with the function at the sampled points (so a constant must enter as a
term: `C·x^4/4` is wrong). Two constant names are one too many (C + D is still one
constant). The expected text is sympy's antiderivative, within the check's budget.

Feedback: a missing, doubled or forbidden constant, a constant that multiplies, the
derivative given instead, the function itself, a sign, and the power rule backwards
(the answer's derivative a constant multiple of the function: x^(n+1) not divided by
n + 1, or divided by n).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from gradcalc.engine.ops import FUNCTIONS
from gradcalc.errors import GradcalcError
from gradcalc.homework import judged_points, proof, real_roots, typeable
from gradcalc.homework.domain import read_domain
from gradcalc.homework.feedback import messages
from gradcalc.homework.feedback.recognise import constant_ratio, same
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.judge import judge as decide
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import (
    answer_variables,
    free_names,
    function_variables,
    read_problem,
    read_side,
)
from gradcalc.homework.reading import wording
from gradcalc.homework.reading.claims import integral
from gradcalc.homework.reading.student import expression, formula
from gradcalc.homework.sample import evaluate
from gradcalc.language.ir import walk
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER, Binary, Call, Name, Num, Unary
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on an antiderivative of `function`, its + C as `kind.constant` says."""
    function, answer, wrt = integral(function, answer, wrt)
    f_side, f_names, x = _read(function, wrt, limits)
    a_side = read_side(answer, "answer", 0, limits, answer_variables(answer, f_side, wrt))
    a_names = [n for n in free_names(a_side.program) if n != EULER]
    constants = [n for n in a_names if n not in f_names and n != x]
    if constants:  # "no idea" is words, not the constants no and idea
        wording.refuse_words("answer", answer, (x, *f_names), FUNCTIONS)
    expected = _integral(f_side, f_names, x, limits)
    base = {"expected": expected, "kind": "antiderivative", "wrt": (x,),
            "read": {"function": f"f({x}) = {f_side.entries[0].text}",
                     "answer": f"F({x}) = {a_side.entries[0].text}"},
            "expected_latex": None}
    said = _constant_rule(constants, kind.constant)
    if said:
        return Verdict("incorrect", "symbolic", feedback=said, score=0.0, **base)
    missing = [n for n in [x, *f_names] if n not in a_names]
    if missing:
        return Verdict("incorrect", "symbolic", score=0.0, feedback=(
            f"the answer does not use {quote(missing[0])}, which the function does"), **base)
    if kind.domain:
        settings = replace(settings, domain=read_domain(kind.domain, limits))
    problem = replace(read_problem(answer, function, [x], limits), turned=True,
                      constants=tuple(constants))
    verdict = decide(problem, settings, limits)
    out = replace(verdict, **base, entries=None, misconception=None)
    if verdict.read and verdict.read.get("domain"):
        out.read = {**base["read"], "domain": verdict.read["domain"]}
    if verdict.counterexample is not None:
        c = verdict.counterexample
        out.counterexample = {**c, "at": {n: v for n, v in c["at"].items()
                                          if n not in constants},
                              "expected": c["answer"], "answer": c["expected"]}
    if verdict.verdict == "incorrect" and not _undefined(out):
        out.feedback = _feedback(problem, x, constants, f_side, limits) or (
            verdict.feedback if verdict.feedback and not verdict.misconception else None)
    elif verdict.verdict != "incorrect" and (kind.constant == "required" or constants):
        # a constant written must take every value, whether + C is required or optional
        said = ("the constant of integration is missing: add + C" if not constants else
                _every_value(a_side, x, f_names, constants[0], limits))
        if said:
            out = replace(out, verdict="incorrect", method="symbolic", feedback=said,
                          score=0.0, reason=None)
    return out


def _read(function: str, wrt: list[str] | None, limits: Limits
          ) -> tuple[Any, list[str], str]:
    """The function read (a name glued to the variable read apart: `xy` by x is x·y),
    its inputs, and the variable integrated by."""
    f_side = read_side(function, "function", 0, limits,
                       function_variables(function, tuple(wrt)) if wrt else None)
    f_names = [n for n in free_names(f_side.program) if n != EULER]
    chosen = list(dict.fromkeys(wrt or f_side.program.inputs or []))
    if not chosen:
        if len(f_names) != 1:
            raise GradcalcError(f"--antiderivative: which input is the variable? give --wrt "
                                f"(the function's inputs: {', '.join(f_names) or 'none'})",
                                kind="usage")
        chosen = f_names
    if len(chosen) != 1:
        raise GradcalcError("--antiderivative takes one --wrt input", kind="usage")
    return f_side, f_names, chosen[0]


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution: sympy's manual integration step by step
    (homework/solutions/integrating.py), every step checked by derivatives on the tape."""
    from gradcalc.homework.solutions.integrating import solution
    from gradcalc.homework.solutions.verified import Checker

    function, _, wrt = integral(function, "", wrt)
    f_side, f_names, x = _read(function, wrt, limits)
    names = list(dict.fromkeys([x, *f_names]))
    f = proof.side_exprs(f_side, tuple(names), {n: 0.5 for n in names}, limits)[0]
    constant = proof.symbol("K" if "C" in names else "C")
    symbols = {n: proof.symbol(n) for n in names} | {constant.name: constant}
    checker = Checker(symbols, symbols[x], anchor=f_side.entries[0],
                      samples=settings.samples, seed=settings.seed, limits=limits)
    text = f_side.entries[0].text
    from gradcalc.homework.reading.student import latex

    return solution(f"f({x}) = {text}", f"f({x}) = {latex(f)}", f, symbols[x], checker,
                    constant, limits, written_arguments(f_side.program, symbols[x]))


def written_arguments(program: Any, x: Any) -> tuple[Any, ...]:
    """The arguments c − a·x of the function's calls, as the student wrote them (sympy
    writes sec(4 − x) as sec(x − 4)): a substitution names its u so, u = 4 − x."""
    from gradcalc.homework.exact import exact_number

    def linear(node: Any) -> Any:
        if isinstance(node, Name) and node.id == x.name:
            return x
        if isinstance(node, Binary) and node.op == "*" and isinstance(node.left, Num):
            inner = linear(node.right)
            return None if inner is None else exact_number(node.left.value) * inner
        return None

    out = []
    for node in walk(program):
        if isinstance(node, Call) and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, Binary) and arg.op == "-" and isinstance(arg.left, Num):
                slope = linear(arg.right)
                if slope is not None:
                    out.append(exact_number(arg.left.value) - slope)
    return tuple(dict.fromkeys(out))


def _undefined(verdict: Verdict) -> bool:
    """Whether the verdict is that the answer is undefined where the function is not (its
    feedback names the part: it stands)."""
    c = verdict.counterexample
    return c is not None and isinstance(c["answer"], float) and math.isnan(c["answer"])


def _constant_rule(constants: list[str], rule: str) -> str | None:
    """What the + C rule refuses before any judging: two constants, or a forbidden one
    (a missing one is said after the judging: a wrong answer's mistake comes first)."""
    if len(constants) > 1:
        return (f"the answer has {len(constants)} constants ({', '.join(constants)}): one "
                "+ C is already every antiderivative")
    if rule == "forbidden" and constants:
        return (f"the question asks for one antiderivative, without a constant: leave out "
                f"{quote(constants[0])}")
    return None


def _terms(node: Any) -> list[Any]:
    """The terms of a sum, a subtracted one negated."""
    if isinstance(node, Binary) and node.op == "+":
        return _terms(node.left) + _terms(node.right)
    if isinstance(node, Binary) and node.op == "-":
        return _terms(node.left) + [Unary("-", t, t.pos) for t in _terms(node.right)]
    return [node]


def _every_value(a_side: Any, x: str, names: list[str], c: str, limits: Limits
                 ) -> str | None:
    """Why the answer's constant part cannot take every real value (`+ c^2` is never
    negative, `+ e^c` never 0 or below), or None when it can or sympy cannot tell."""
    import sympy as sp
    from sympy.calculus.util import function_range

    from gradcalc.homework.problem import Entry, Side
    from gradcalc.language.program import ExprStmt, Name, Program

    def alone(node: Any) -> Program:
        return Program((ExprStmt(node, node.pos),), a_side.program.source)

    terms = [t for t in _terms(a_side.entries[0].expr) if c in free_names(alone(t))]
    if len(terms) != 1 or isinstance(terms[0], Name):
        return None
    term, inputs = terms[0], (c, x, *names)
    try:
        with time_budget(limits.check_seconds):
            program = alone(term)
            h = proof.side_exprs(Side(program, (Entry(program, term),), ()), inputs,
                                 {n: 0.5 for n in inputs}, limits)[0]
            v = proof.symbol(c)
            if h.free_symbols != {v}:
                return None
            values = _polynomial_range(h, v) if h.is_polynomial(v) else function_range(
                h, v, sp.S.Reals)
    except (Timeout, Exception):  # noqa: BLE001 - not shown to miss a value: no complaint
        return None
    if values == sp.S.Reals:
        return None
    return (f"{expression(term)} is a constant that cannot take every value (only "
            f"{_range_text(values)}): write + {c}")


def _polynomial_range(h: Any, v: Any) -> Any:
    """The values of a polynomial: every real for odd degree, else from its least (or
    up to its greatest) value at a critical point."""
    import sympy as sp

    poly = sp.Poly(h, v)
    if poly.degree() % 2:
        return sp.S.Reals
    extreme = [h.subs(v, r) for r in sp.Poly(sp.diff(h, v), v).real_roots()] or [h]
    if poly.LC() > 0:
        return sp.Interval(min(extreme, key=float), sp.oo)
    return sp.Interval(-sp.oo, max(extreme, key=float))


def _range_text(values: Any) -> str:
    import sympy as sp

    if isinstance(values, sp.Union):
        return " ∪ ".join(_range_text(v) for v in values.args)
    if isinstance(values, sp.Interval):
        lo = "(-∞" if values.start == -sp.oo else (
            f"{'(' if values.left_open else '['}{formula(values.start)}")
        hi = "∞)" if values.end == sp.oo else (
            f"{formula(values.end)}{')' if values.right_open else ']'}")
        return f"{lo}, {hi}"
    return str(values)


def _feedback(problem: object, x: str, constants: list[str], f_side: object,
              limits: Limits) -> str | None:
    """What the answer A is, if not an antiderivative: f', f, -F, c·F."""
    found = judged_points.sample(problem, Settings().samples, Settings().seed,  # type: ignore
                            limits)
    if not found.count:
        return None
    ev = found.evidence()
    a, da, f = ev.function[0], ev.expected[0], ev.answer[0]
    if constants:  # the answer without its + C: is that the derivative, the function?
        a = evaluate(problem.function.entries[0], {**ev.points, **{  # type: ignore
            c: 0 * ev.points[c] for c in constants}}, (), limits).value
    if constants:
        dc = ev.partials[0][constants[0]]
        if not same(dc, np.full_like(dc, dc[0])) or same(dc, 0 * dc):
            return (f"the constant {constants[0]} must be added as a term (+ "
                    f"{constants[0]}), not multiply the answer")
    df = evaluate(f_side.entries[0], ev.points, (x,), limits).grad[x]  # type: ignore
    if same(a, df) and not same(df, f):
        return messages.DERIVATIVE_FOR_ANTIDERIVATIVE
    if same(a, f) and not same(da, f):
        return messages.the_function_itself(": integrate it")
    if same(da, -f) and not same(f, 0 * f):
        return messages.sign_error("the function", "the answer's derivative")
    r = constant_ratio(da, f)
    if r is not None:
        times = messages.times(messages.number(r), "the function", "the answer's derivative")
        if _has_power(f_side):
            return (f"{times}: the power rule backwards is x^n → x^(n+1)/(n+1), dividing by "
                    "the new exponent")
        return (f"{times}: the chain rule backwards divides by the inner derivative "
                "(∫cos(2x) dx = sin(2x)/2)")
    return None


def _has_power(side: object) -> bool:
    """Whether the function has a power with a constant exponent (x^3, (2x+1)^5)."""
    return any(isinstance(e, Binary) and e.op == "**" and isinstance(e.right, (Num, Unary))
               for e in walk(side.entries[0].expr))  # type: ignore[attr-defined]


def _integral(f_side: object, names: list[str], x: str, limits: Limits) -> str:
    """sympy's antiderivative of the function, as text a student can type back (or one
    plain line saying why there is none: typeable.py)."""
    import sympy as sp

    point = {n: 0.5 for n in names}
    try:
        with time_budget(limits.check_seconds):
            f = proof.side_exprs(f_side, tuple(names), point, limits)[0]  # type: ignore
            F = sp.integrate(real_roots.as_written(f), proof.symbol(x))
            if F.has(sp.Integral):
                return NO_CLOSED_FORM
            F = typeable.elementary(F)
            why = typeable.why_not(F)
            if why:
                return why
            F = sp.simplify(F) if sp.count_ops(F) > 8 else F
            return formula(_absolute_logs(F, f, proof.symbol(x)), tuple(names)) + " + C"
    except Timeout:
        return f"(no formula: sympy exceeded {limits.check_seconds:g} s of CPU time)"
    except Exception:  # noqa: BLE001 - sympy fails in many ways; no formula then
        return "(no formula: sympy could not integrate it)"


#: the expected text when sympy finds no antiderivative
NO_CLOSED_FORM = "(no closed form found)"


#: where sympy's ln(u) is tried for u < 0: the integers and halves from -10 to 10
_TRIES = [Fraction(k, 2) for k in range(-20, 21)]


def _absolute_logs(F: Any, f: Any, x: Any) -> Any:
    """sympy's antiderivative with ln|u| for each ln(u) whose u is negative somewhere the
    function is defined (∫1/x is ln|x|; ∫ln(x) stays x·ln(x) - x)."""
    import sympy as sp

    swaps = {}
    for log in F.atoms(sp.log):
        u = log.args[0]
        if u.is_positive or u.free_symbols != {x}:
            continue
        for t in _TRIES:
            at = sp.Rational(t.numerator, t.denominator)
            value, fx = u.subs(x, at), f.subs(x, at)
            if value.is_negative and fx.is_real and fx.is_finite:
                swaps[log] = sp.log(sp.Abs(u))
                break
    return F.xreplace(swaps) if swaps else F


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks: an antiderivative, with or without its + C as the key says."""
    plus = {"required": ", with its constant + C", "forbidden": ", without + C"}.get(
        kind.constant, "")
    return f"Find an antiderivative {asked or 'F'}{plus}."


def hint_problem(kind: Kind, answer: str, foreseen: str, wrt: tuple[str, ...], t: str
                 ) -> tuple[str, str, list[str], Kind]:
    """A hint matches an antiderivative up to its constant: the derivative of their
    difference is 0."""
    return f"({answer}) - ({foreseen})", "0", list(wrt[:1]), Kind()


def departure(solution: Any, answer: str, limits: Limits) -> Any:
    """The worked solution with the step where a wrong antiderivative left the path
    marked (`homework.solutions.integral_departure.place`)."""
    from gradcalc.homework.solutions.integral_departure import place

    return place(solution, answer, limits)
