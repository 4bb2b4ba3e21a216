"""Backprop homework: the gradient of a scalar loss with respect to a tensor input.

`check "L = sum((W@x - y)^2)" --wrt W --shape "W=3x2, x=2, y=3" --answer
"2*outer(W@x - y, x)"`. Every declared input gets seeded random values of its shape
(standard normal, or small integers in [-3, 3] with `--integers`; `--at` gives fixed
values instead, for an answer computed by hand); undeclared names are scalars. At each of
`samples` draws the loss is differentiated on the tape and the answer, a formula of the
same inputs in the language (`@`, `transpose`, `outer`, `sum(…, axis=)`, `mean`, `exp`,
`log`, `softmax`, `relu`, `where`, indexing), is evaluated. It must have the input's
shape; it is judged entry by entry (partial credit): an entry is right when it agrees at
every draw. For formulas with a kink (relu, abs, ...) a draw where the gradient jumps
under a tiny nudge is dropped.

Feedback: a shape that is the transpose of the input's, a transposed answer, a missing
sum over a batch axis, a missing constant factor, a sign.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from gradcalc.backends.numeric import as_function, run_numeric
from gradcalc.engine.functional import grad
from gradcalc.engine.ops import FUNCTIONS
from gradcalc.errors import GradcalcError
from gradcalc.homework import credit
from gradcalc.homework.backprop import formulas
from gradcalc.homework.feedback import messages
from gradcalc.homework.feedback.recognise import constant_ratio, same
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.problem import Side, free_names
from gradcalc.homework.reading import wording
from gradcalc.homework.sample import kinked_functions
from gradcalc.homework.traps import Piece, Reading, located
from gradcalc.language.parse import parse, parse_with_traps, quote
from gradcalc.language.program import EULER, RESULT_NAME, Assign, ExprStmt, Name, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: --integers draws from this range
INTEGERS = 3
#: a nudge of the inputs and the jump in the gradient that marks a kink
NUDGE, JUMP = 1e-7, 1e-4


def _program(text: str, what: str, limits: Limits) -> tuple[Program, str]:
    try:
        program = parse(text, limits=limits)
    except GradcalcError as exc:
        wording.refuse_words(what, text, (), FUNCTIONS)  # "I don't know": words
        raise GradcalcError(f"the {what}: {exc.message}", kind=exc.kind) from None
    out = program.default_output()
    if out == RESULT_NAME:
        return program, out
    last = program.body[-1]
    return Program((*program.body, ExprStmt(Name(out, last.pos), last.pos)), program.source,
                   program.inputs), RESULT_NAME


def reading(function: str, answer: str, wrt: list[str] | None, kind: Kind,
            limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Reading:
    """How the two texts read (for traps.py), by the parser `judge` reads them with."""
    return Reading((_read(function, limits),), _read(answer, limits))


#: a tensor program is PyTorch's language, where log is the natural log: its base is no
#: trap here (a cross-entropy's log(softmax(...)) is never log10)
_NOT_TRAPS = frozenset({"log base"})


@lru_cache(maxsize=256)
def _read(text: str, limits: Limits) -> Piece:
    program, found = parse_with_traps(text, limits=limits)
    return located(text, Side(program, (), (), tuple(t for t in found
                                                     if t.kind not in _NOT_TRAPS)))


def forget() -> int:
    """Empty the texts read for their traps (a benchmark's cold start); how many were
    kept."""
    kept = _read.cache_info().currsize
    _read.cache_clear()
    return kept


def judge(function: str, answer: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Verdict:
    """The verdict on the gradient of a scalar loss by the tensor input `wrt`."""
    f_prog, f_out, names, shapes, w = _setup(function, wrt, kind, limits)
    a_prog, _ = _program(answer, "answer", limits)
    assigned = {s.target for s in f_prog.body if isinstance(s, Assign)}
    used = set(free_names(a_prog))
    if used & assigned:  # the answer uses the function's steps (h = relu(W1@x)): run them
        a_prog = Program((*f_prog.body, *a_prog.body), a_prog.source, a_prog.inputs)
    for n in used - assigned:
        if n not in names and n != EULER:
            wording.refuse_words("answer", answer, (*names, *assigned), FUNCTIONS)
            raise GradcalcError(f"the answer uses {quote(n)}, which the function does not "
                                f"have (its inputs: {', '.join(names)})", kind="input")
    fixed = dict(kind.at)
    draws = _draws(names, shapes, fixed, kind.integers, settings)
    kinky = any(f"{k}(" in function + answer for k in kinked_functions())
    want = shapes.get(w, ())
    loss = f_out if f_out != RESULT_NAME else "L"
    base: dict[str, Any] = {"kind": "tensor", "wrt": (w,),
                            "expected": f"∂{loss}/∂{w}, of {w}'s shape {_shape(want)}"}
    truths, answers, used = [], [], []
    for values in draws:
        g = _gradient(f_prog, names, w, values, limits)
        if g is None or (kinky and _on_kink(f_prog, names, w, values, g, limits)):
            continue
        try:
            a = _answer(a_prog, values, limits)
        except GradcalcError as exc:
            raise GradcalcError(f"the answer: {exc.message.rstrip()}"
                                f"{_broadcast_hint(exc.message)}",
                                kind=exc.kind) from None
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(a))):
            continue
        truths.append(g)
        answers.append(a)
        used.append(values)
    base["points"] = [{n: _plain(v) for n, v in values.items()} for values in used[:1]]
    if not truths:
        return Verdict("undetermined", "numeric", reason=(
            "no draw of the inputs gave a finite loss gradient and answer"), **base)
    derived = next((d for d in formulas.derive_all(f_prog, w, {n: np.shape(v) for n, v in
                                                               used[0].items()})
                    if _matches(d.formula, f_prog, used, truths, limits)), None)
    if derived is not None:
        base["expected"] = f"∂{loss}/∂{w} = {derived.text}, of {w}'s shape {_shape(want)}"
        mistake = next((m for m in derived.mistakes
                        if _matches(m.formula, f_prog, used, answers, limits)), None)
    else:
        mistake = None
    said = _shape_feedback(answers, truths, w, want)
    if said is not None:
        return Verdict("incorrect", "numeric", feedback=mistake.message if mistake else said,
                       score=0.0, misconception=_named(mistake),
                       counterexample=_counter(used[0], truths[0], answers[0]), **base)
    A, G = np.stack([np.broadcast_to(a, want) for a in answers]), np.stack(truths)
    with np.errstate(all="ignore"):
        bad = ~(np.abs(A - G) <= settings.atol + settings.rtol * np.maximum(np.abs(A),
                                                                           np.abs(G)))
    wrong = bad.reshape(len(A), -1).any(axis=0).tolist()
    labels = [f"d/d{w}[{', '.join(str(i) for i in credit.index(k, want))}]"
              for k in range(len(wrong))]
    entries, score = credit.entries(wrong, want, labels)
    if not any(wrong):
        return Verdict("correct", "numeric", entries=entries, score=score, **base)
    k = int(np.flatnonzero(bad.reshape(len(A), -1).any(axis=1))[0])
    return Verdict("incorrect", "numeric", counterexample=_counter(used[k], G[k], A[k]),
                   feedback=mistake.message if mistake else _value_feedback(A, G),
                   misconception=_named(mistake), entries=entries, score=score, **base)


def _setup(function: str, wrt: list[str] | None, kind: Kind, limits: Limits
           ) -> tuple[Program, str, list[str], dict[str, tuple[int, ...]], str]:
    """The loss read, its output, its inputs, their shapes and the input differentiated."""
    f_prog, f_out = _program(function, "function", limits)
    shapes = dict(kind.shape)
    names = [n for n in free_names(f_prog) if n != EULER]
    for n in shapes:
        if n not in names:
            raise GradcalcError(f"--shape {quote(n)}: the function does not use it (its "
                                f"inputs: {', '.join(names)})", kind="usage")
    chosen = list(dict.fromkeys(wrt or []))
    if len(chosen) != 1:
        raise GradcalcError("--shape: give the one input to differentiate with --wrt, e.g. "
                            "--wrt W", kind="usage")
    w = chosen[0]
    if w not in names:
        raise GradcalcError(f"--wrt {quote(w)}: the function does not use it (its inputs: "
                            f"{', '.join(names)})", kind="usage")
    return f_prog, f_out, names, shapes, w


def solve(function: str, wrt: list[str] | None, kind: Kind, settings: Settings,
          limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt",
          answer: str | None = None) -> Any:
    """The worked solution (homework/solutions/matrix_chain.py): the backward pass as
    matrix calculus, each intermediate's gradient with its shape, checked on the tape."""
    from gradcalc.homework.solutions.matrix_chain import solution

    f_prog, f_out, names, shapes, w = _setup(function, wrt, kind, limits)
    draws = _draws(names, shapes, dict(kind.at), kind.integers, settings)
    loss = f_out if f_out != RESULT_NAME else "L"
    return solution(function, f_prog, w, {n: shapes.get(n, ()) for n in names}, draws,
                    loss, limits)


def _matches(formula: Any, function: Program, used: list[dict[str, np.ndarray]],
             targets: list[np.ndarray], limits: Limits) -> bool:
    """Whether a derived formula takes the target values at every draw."""
    program = formulas.program_of(formula, function)
    for values, target in zip(used, targets, strict=True):
        try:
            value = _answer(program, values, limits)
        except GradcalcError:
            return False
        if value.shape != np.shape(target) or not same(value, target):
            return False
    return True


def _broadcast_hint(message: str) -> str:
    """For a vector that NumPy cannot stretch across a matrix's rows: how to repeat it."""
    if "could not be broadcast" not in message:
        return ""
    return ("; NumPy repeats a vector along a matrix's rows only: a sum along axis 1 has "
            "one entry per row, so keep its axis, sum(…, axis=1, keepdims=True), or repeat "
            "it along each row, outer(v, ones(m))")


def _named(mistake: formulas.Mistake | None) -> dict[str, str] | None:
    return {"rule": mistake.rule, "at": mistake.at} if mistake else None


def _shape(shape: tuple[int, ...]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def _plain(v: np.ndarray) -> Any:
    return v.tolist() if np.ndim(v) else float(v)


def _counter(values: dict[str, np.ndarray], g: np.ndarray, a: np.ndarray) -> dict[str, Any]:
    return {"at": {n: _plain(v) for n, v in values.items()}, "expected": _plain(g),
            "answer": _plain(np.asarray(a))}


def _draws(names: list[str], shapes: dict[str, tuple[int, ...]], fixed: dict[str, Any],
           integers: bool, settings: Settings) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(settings.seed)
    count = 1 if all(n in fixed for n in names) else settings.samples
    out = []
    for _ in range(count):
        values = {}
        for n in names:
            shape = shapes.get(n, ())
            if n in fixed:
                values[n] = np.asarray(fixed[n], dtype=np.float64)
                if values[n].shape != shape:
                    raise GradcalcError(f"--at {n}: the value has shape "
                                        f"{_shape(values[n].shape)}; --shape says "
                                        f"{_shape(shape)}", kind="usage")
            elif integers:
                values[n] = rng.integers(-INTEGERS, INTEGERS + 1, size=shape).astype(
                    np.float64)
            else:
                values[n] = rng.standard_normal(shape)
        out.append(values)
    return out


def _gradient(program: Program, names: list[str], w: str, values: dict[str, np.ndarray],
              limits: Limits) -> np.ndarray | None:
    rest = {n: v for n, v in values.items() if n != w}
    f, _ = as_function(program, [w], rest, of=RESULT_NAME, limits=limits)
    with np.errstate(all="ignore"):
        try:
            return np.asarray(grad(f, values[w]), dtype=np.float64)
        except ValueError as exc:
            raise GradcalcError(f"the function's value is not one number (a loss): {exc}",
                                kind="shape") from None


def _on_kink(program: Program, names: list[str], w: str, values: dict[str, np.ndarray],
             g: np.ndarray, limits: Limits) -> bool:
    for sign in (-1, 1):
        nudged = {n: v * (1 + sign * NUDGE) + sign * NUDGE for n, v in values.items()}
        h = _gradient(program, names, w, nudged, limits)
        if h is None or not np.all(np.abs(h - g) <= JUMP * (1 + np.abs(g))):
            return True
    return False


def _answer(program: Program, values: dict[str, np.ndarray], limits: Limits) -> np.ndarray:
    with np.errstate(all="ignore"):
        from gradcalc.engine import ops

        return np.asarray(ops.value(run_numeric(program, dict(values), of=RESULT_NAME,
                                                limits=limits)), dtype=np.float64)


def _shape_feedback(answers: list[np.ndarray], truths: list[np.ndarray], w: str,
                    want: tuple[int, ...]) -> str | None:
    got = answers[0].shape
    if got == want or (got == () and want == ()):
        return None
    if len(want) == 2 and got == want[::-1]:
        if all(same(a, g.T) for a, g in zip(answers, truths, strict=True)):
            return (f"the answer is ∂L/∂{w} transposed: it has shape {_shape(got)}, and "
                    f"∂L/∂{w} has {w}'s shape {_shape(want)} (for X @ W it is X.T @ G, not "
                    "G.T @ X; for W @ x, outer(g, x), not outer(x, g))")
        return (f"the answer's shape {_shape(got)} is the transpose of {w}'s {_shape(want)}: "
                f"∂L/∂{w} has {w}'s shape")
    if len(got) == len(want) + 1 and got[1:] == want:
        for axis_sum in (lambda a: a.sum(axis=0), lambda a: a.mean(axis=0)):
            if all(same(axis_sum(a), g) for a, g in zip(answers, truths, strict=True)):
                return (f"the answer has one gradient per example (shape {_shape(got)}): "
                        f"sum them over the batch axis, sum(…, axis=0), to get {w}'s shape "
                        f"{_shape(want)}")
        return (f"the answer has an extra batch axis (shape {_shape(got)}): ∂L/∂{w} has "
                f"{w}'s shape {_shape(want)}")
    if want and math.prod(got) == 1 and got != want:
        return None  # a scalar broadcasts to every entry
    return (f"the answer has shape {_shape(got)}; ∂L/∂{w} has {w}'s shape {_shape(want)}")


def _value_feedback(A: np.ndarray, G: np.ndarray) -> str | None:
    if A.ndim == 3 and A.shape[1] == A.shape[2] and same(A, np.swapaxes(G, 1, 2)):
        return "the answer is the gradient transposed: rows and columns swapped"
    if same(A, -G) and not same(G, 0 * G):
        return messages.sign_error("the gradient")
    r = constant_ratio(G, A)
    if r:  # not None, nor 0 (a gradient of zeros is no multiple of the answer)
        return messages.constant_factor(messages.number(1 / r), "the gradient",
                                        "a missing factor, such as the 2 of a square or "
                                        "the 1/n of a mean?")
    return None


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks: the gradient of the loss by the wrt input, of its shape."""
    w = wrt[0] if wrt else "W"
    dims = "×".join(str(d) for d in dict(kind.shape).get(w, ())) or "scalar"
    return f"Find the gradient ∂L/∂{w} of the loss L (of {w}'s shape, {dims})."


def hint_problem(kind: Kind, answer: str, foreseen: str, wrt: tuple[str, ...], t: str
                 ) -> tuple[str, str, list[str], Kind]:
    """A hint matches a tensor gradient entry by entry: the answer is the gradient of
    sum(t * foreseen) by t, a tensor of the wrt input's shape."""
    extended = replace(kind, shape=(*kind.shape, (t, dict(kind.shape)[wrt[0]])))
    return f"sum({t} * ({foreseen}))", answer, [t], extended
