"""The derivative kind: the first derivative, gradient or Jacobian, higher and mixed
derivatives, and answers at a point.

Its notation traps are read both ways (traps.py, through the dispatch): `reading` is
how a derivative problem reads, and the problem it reads is judged without reading it
again.

`--order N` asks for the N-th derivative in one input (with several `--wrt` and N = 2,
the Hessian: a nested list, row i column j being ∂²f/∂w_i∂w_j); `--partial x,y` for
∂/∂x then ∂/∂y (any length); `--at x=2` holds inputs at values, so the answer is the
derivative's value there (a number, or a formula of the inputs left free). Each is a
plain problem with derivative paths (higher.py computes them on the tape) or pinned
inputs, judged as every other (judge.py). `--domain x>0` judges the answer only there
(else on the function's whole real domain). An answer with a constant of integration
(`3x^2 + C`) is a verdict with its mistake named, not an input error: the constant is
one more input drawn at random (recognise.py says whether it is the derivative plus a
constant or an antiderivative).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.homework.domain import read_domain
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.judge import judge as decide
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import (
    Problem,
    free_names,
    function_side,
    read_problem,
    read_side,
)
from gradcalc.homework.reading import claims
from gradcalc.homework.traps import Reading, located
from gradcalc.language.parse import quote
from gradcalc.language.program import EULER
from gradcalc.limits import DEFAULT_LIMITS, Limits


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          problem: Problem | None = None) -> Verdict:
    """The verdict on a derivative: the first, the N-th, a mixed partial or the value at
    a point; on the domain given, else the function's whole real domain (`problem`: the
    texts as `reading` read them). An answer with a constant of integration (`+ C`) is
    judged, not refused."""
    if kind.domain:
        settings = replace(settings, domain=read_domain(kind.domain, limits))
    try:
        if replace(kind, domain=None).plain:
            return decide(problem or read_problem(function, answer, wrt, limits, wrt_from),
                          settings, limits)
        return _judge(function, answer, wrt, kind, settings, limits, problem=problem)
    except GradcalcError as exc:
        constants = constant_names(function, answer, wrt, limits) if exc.kind == "input" \
            else ()
        if not constants:
            raise
    return _judge(function, answer, wrt, kind, settings, limits, wrt_from, constants)


def _judge(function: str, answer: str, wrt: list[str] | None, kind: Kind,
           settings: Settings, limits: Limits, wrt_from: str = "--wrt",
           constants: tuple[str, ...] = (), problem: Problem | None = None) -> Verdict:
    problem = problem or read(function, answer, wrt, kind, limits, wrt_from, constants)
    if problem.pinned and len(problem.pinned) == len(problem.inputs):
        settings = replace(settings, samples=1)
    verdict = decide(problem, settings, limits)
    verdict.read = relabel(verdict.read, problem)
    return verdict


def reading(function: str, answer: str, wrt: list[str] | None, kind: Kind,
            limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Reading:
    """How the two texts read (for traps.py), with the problem `judge` then decides on."""
    problem = read(function, answer, wrt, kind, limits, wrt_from)
    return Reading((located(function, problem.function),), located(answer, problem.answer),
                   problem)


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution: the rules step by step (homework/solutions/differentiating.py),
    for the problem as `read` takes it."""
    from gradcalc.homework.solutions.differentiating import solve_problem

    problem = read(function, answer or "0", wrt, kind, limits, wrt_from)
    return solve_problem(problem, settings.samples, settings.seed, limits)


#: the names a constant of integration goes by: C, c, K, k, C1, c_2
_CONSTANT = re.compile(r"[CcKk](?:_?\d)?")


def constant_names(function: str, answer: str, wrt: list[str] | None,
                   limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...]:
    """The answer's one name that the function lacks, when it is a constant of
    integration's (C, K, c1): a derivative's `+ C` is a verdict, not an input error."""
    try:
        f = function_side(function, limits)
        a = read_side(claims.vector(claims.split_prefix(answer)[0]), "answer", 2, limits)
    except GradcalcError:
        return ()
    known = {*free_names(f.program), *f.program.inputs, *(wrt or ()), EULER}
    extra = [n for n in free_names(a.program) if n not in known]
    return tuple(extra) if len(extra) == 1 and _CONSTANT.fullmatch(extra[0]) else ()


def read(function: str, answer: str, wrt: list[str] | None, kind: Kind,
         limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
         constants: tuple[str, ...] = ()) -> Problem:
    """The problem with its paths and pinned inputs (a plain problem for Kind()) and the
    answer's constants."""
    chosen = list(wrt or [])
    if kind.partial:
        chosen = list(dict.fromkeys(chosen + list(kind.partial)))
    problem = read_problem(function, answer, chosen or None, limits, wrt_from, constants,
                           kind.order, tuple(kind.partial))
    given = set(problem.inputs)
    for n, v in kind.at:
        if not isinstance(v, float):
            raise GradcalcError(f"--at {n}: give one number (inputs are scalars; tensors "
                                "need --shape)", kind="usage")
        if n not in given:
            raise GradcalcError(f"--at {quote(n)}: the function does not use it (its "
                                f"inputs: {', '.join(problem.inputs)})", kind="usage")
    problem = replace(problem, pinned=kind.at)
    if kind.order == 1 and not kind.partial:
        return problem
    if problem.function.shape:
        raise GradcalcError("--order and --partial take a function with one output, not a "
                            "list", kind="usage")
    if kind.partial:
        return replace(problem, paths=(kind.partial,), kind="partial", shape=())
    if len(problem.wrt) == 1:
        return replace(problem, paths=((problem.wrt[0],) * kind.order,),
                       kind="higher derivative", shape=())
    if kind.order != 2:
        raise GradcalcError(f"--order {kind.order} with several inputs: give one --wrt (or "
                            "--order 2 for the Hessian)", kind="usage")
    w = problem.wrt
    return replace(problem, paths=tuple((a, b) for a in w for b in w), kind="hessian",
                   shape=(len(w), len(w)))


def relabel(read: dict[str, str] | None, problem: Problem) -> dict[str, str] | None:
    """How the answer was read, named for what was asked: f''(x), f_xy, Hf, at x = 2."""
    if not read or "=" not in read["answer"]:
        return read
    name = read["function"].split("(")[0] or "f"
    label, text = read["answer"].split(" = ", 1)
    if problem.kind == "hessian":
        label = f"H{name}"
    elif problem.kind == "partial" and problem.paths:
        label = f"{name}_" + ("".join(problem.paths[0]) if all(
            len(n) == 1 for n in problem.paths[0]) else ",".join(problem.paths[0]))
    elif problem.kind == "higher derivative" and problem.paths:
        n, w = len(problem.paths[0]), problem.paths[0][0]
        label = (f"{name}{chr(39) * n}({w})" if n <= 3 and len(problem.inputs) == 1 else
                 f"d^{n}{name}/d{w}^{n}")
    pinned = dict(problem.pinned)
    if pinned and label.endswith(")") and "(" in label and all(
            n in pinned for n in problem.inputs):
        head, args = label[:-1].split("(", 1)
        label = f"{head}({', '.join(f'{pinned.get(n.strip(), n)}' for n in args.split(','))})"
        label = label.replace(".0,", ",").replace(".0)", ")")
    elif pinned:
        label += " at " + ", ".join(f"{n} = {v:g}" for n, v in problem.pinned)
    return {**read, "answer": f"{label} = {text}"}


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks: "Find f'(x).", "Find the gradient ∇f.", "Find the Hessian Hf."."""
    words = {"∇": "the gradient ", "J": "the Jacobian ", "H": "the Hessian "}
    return f"Find {words.get(asked[:1], '') if len(asked) <= 3 else ''}{asked}."
