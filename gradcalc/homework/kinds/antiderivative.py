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

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from gradcalc.errors import GradcalcError
from gradcalc.homework import proof
from gradcalc.homework.feedback.recognise import same
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.judge import judge as decide
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import answer_variables, free_names, read_problem, read_side
from gradcalc.homework.reading.student import formula
from gradcalc.homework.sample import evaluate
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER, Binary, Call, Num, Unary
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Timeout, time_budget


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on an antiderivative of `function`, its + C as `kind.constant` says."""
    f_side, f_names, x = _read(function, wrt, limits)
    a_side = read_side(answer, "answer", 0, limits, answer_variables(answer, f_side, wrt))
    a_names = [n for n in free_names(a_side.program) if n != EULER]
    constants = [n for n in a_names if n not in f_names and n != x]
    expected = _integral(f_side, f_names, x, limits)
    base = {"expected": expected + " + C", "kind": "antiderivative", "wrt": (x,),
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
    problem = read_problem(answer, function, [x], limits)
    verdict = decide(problem, settings, limits)
    out = replace(verdict, **base, entries=None, misconception=None)
    if verdict.counterexample is not None:
        c = verdict.counterexample
        out.counterexample = {"at": {n: v for n, v in c["at"].items() if n not in constants},
                              "expected": c["answer"], "answer": c["expected"]}
    if verdict.verdict == "incorrect":
        out.feedback = _feedback(problem, x, constants, f_side, limits) or (
            verdict.feedback if verdict.feedback and not verdict.misconception else None)
    return out


def _read(function: str, wrt: list[str] | None, limits: Limits
          ) -> tuple[Any, list[str], str]:
    """The function read, its inputs, and the variable integrated by."""
    f_side = read_side(function, "function", 0, limits)
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
                    constant, limits)


def _constant_rule(constants: list[str], rule: str) -> str | None:
    if len(constants) > 1:
        return (f"the answer has {len(constants)} constants ({', '.join(constants)}): one "
                "+ C is already every antiderivative")
    if rule == "required" and not constants:
        return "the constant of integration is missing: add + C"
    if rule == "forbidden" and constants:
        return (f"the question asks for one antiderivative, without a constant: leave out "
                f"{quote(constants[0])}")
    return None


def _feedback(problem: object, x: str, constants: list[str], f_side: object,
              limits: Limits) -> str | None:
    """What the answer A is, if not an antiderivative: f', f, -F, c·F."""
    from gradcalc.homework.judge import _sample

    found = _sample(problem, Settings(), limits)  # type: ignore[arg-type]
    if not found.count:
        return None
    ev = found.evidence()
    a, da, f = ev.function[0], ev.expected[0], ev.answer[0]
    if constants:
        dc = ev.partials[0][constants[0]]
        if not same(dc, np.full_like(dc, dc[0])) or same(dc, 0 * dc):
            return (f"the constant {constants[0]} must be added as a term (+ "
                    f"{constants[0]}), not multiply the answer")
    df = evaluate(f_side.entries[0], ev.points, (x,), limits).grad[x]  # type: ignore
    if same(a, df) and not same(df, f):
        return ("the answer is the derivative of the function: integrate, don't "
                "differentiate")
    if same(a, f) and not same(da, f):
        return "the answer is the function itself: integrate it"
    if same(da, -f) and not same(f, 0 * f):
        return "sign error: the answer's derivative is the negative of the function"
    with np.errstate(all="ignore"):
        ratio = da / f
    r = ratio[np.isfinite(ratio)]
    if len(r) >= 2 and same(r, np.full_like(r, r[0])) and not same(r, np.ones_like(r)):
        c = Fraction(float(r[0])).limit_denominator(100)
        shown = str(c) if abs(float(c) - r[0]) < 1e-9 * abs(r[0]) else f"{r[0]:.6g}"
        if _has_power(f_side):
            return (f"the answer's derivative is {shown} times the function: the power "
                    "rule backwards is x^n → x^(n+1)/(n+1), dividing by the new exponent")
        return (f"the answer's derivative is {shown} times the function: the chain rule "
                "backwards divides by the inner derivative (∫cos(2x) dx = sin(2x)/2)")
    return None


def _has_power(side: object) -> bool:
    """Whether the function has a power with a constant exponent (x^3, (2x+1)^5)."""
    stack: list[object] = [side.entries[0].expr]  # type: ignore[attr-defined]
    while stack:
        e = stack.pop()
        if isinstance(e, Binary) and e.op == "**" and isinstance(e.right, (Num, Unary)):
            return True
        if isinstance(e, Binary):
            stack += [e.left, e.right]
        elif isinstance(e, Unary):
            stack.append(e.operand)
        elif isinstance(e, Call):
            stack.extend(e.args)
    return False


def _integral(f_side: object, names: list[str], x: str, limits: Limits) -> str:
    """sympy's antiderivative of the function, as text (or why there is none)."""
    import sympy as sp

    point = {n: 0.5 for n in names}
    try:
        with time_budget(limits.check_seconds):
            f = proof.side_exprs(f_side, tuple(names), point, limits)[0]  # type: ignore
            F = sp.integrate(f, proof.symbol(x))
            if F.has(sp.Integral):
                return "(no closed form found)"
            return formula(sp.simplify(F) if sp.count_ops(F) > 8 else F, tuple(names))
    except Timeout:
        return f"(no formula: sympy exceeded {limits.check_seconds:g} s of CPU time)"
    except Exception as exc:  # noqa: BLE001 - sympy fails in many ways; say which, go on
        return f"(no formula: {type(exc).__name__})"
