"""Job planning shared by every command (one point, --points, batch lines): what to
differentiate, with respect to what, from which values, and the checks on weights.

Nothing here prints; the messages name the command-line options, since batch fields and
--points tables mean the same things.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gradcalc.engine.ops import FUNCTIONS
from gradcalc.engine.primitive import PRIMITIVES
from gradcalc.errors import GradcalcError, ShapeError
from gradcalc.language import outputs
from gradcalc.language.program import Program
from gradcalc.language.text import option_name
from gradcalc.language.values import parse_assignments, value_from_data
from gradcalc.limits import DEFAULT_LIMITS, Limits

COMMANDS = ("grad", "jacobian", "hessian")
#: --expect's tolerances by default: |computed - expected| <= atol + rtol * |expected|
RTOL = 1e-9
ATOL = 1e-12


@dataclass
class Job:
    """One request: a program, the point, and what to compute there."""

    command: str
    program: str
    at: list[str] | dict[str, Any] = field(default_factory=list)
    weights: str | Any | None = None
    wrt: list[str] | None = None
    of: str | None = None
    check: bool = True
    expect: str | Any | None = None
    limits: Limits = DEFAULT_LIMITS
    symbolic: bool = False  # also the derivative as a formula (verify.formula)
    explain: bool = False  # also the tape and its sweep (commands.explain)
    rtol: float = RTOL  # --expect's tolerances
    atol: float = ATOL


def load_values(at: list[str] | str | dict[str, Any], option: str = "--at",
                limits: Limits = DEFAULT_LIMITS) -> dict[str, np.ndarray]:
    """--at texts (or a JSON object of numbers/lists, for batch) as float64 arrays."""
    if isinstance(at, dict):
        names = parse_assignments([f"{name}=0" for name in at], option=option, limits=limits)
        return {name: value_from_data(v, what=f"{option} {name}", limits=limits)
                for name, v in zip(names, at.values())}
    return parse_assignments([at] if isinstance(at, str) else list(at), option=option,
                             limits=limits)


def load_weights(w: Any, limits: Limits) -> np.ndarray | None:
    """--weights as a float64 array; nan or inf would poison the whole product."""
    if w is None:
        return None
    weights = value_from_data(w, what="--weights", limits=limits)
    if not np.all(np.isfinite(weights)):
        raise GradcalcError("--weights must be finite numbers: nan or inf in a weight would "
                            "make its whole product nan or inf", kind="value")
    return weights


def choose_inputs(program: Program, values: dict[str, np.ndarray],
                  wrt: list[str] | None, intermediates: bool = False) -> list[str]:
    """The inputs to differentiate: --wrt, else every name given a value (with
    `intermediates`, --wrt may also name values the program assigns)."""
    if not values:
        used = sorted(program.names_used() - set(program.assigned()))
        hint = f" (the program reads {', '.join(used)})" if used else ""
        raise GradcalcError(f"no inputs: give values with --at, e.g. --at x=1{hint}",
                            kind="usage")
    if wrt is None:
        return list(values)
    wrt = [option_name(w, "--wrt") for w in wrt]
    assigned = set(program.assigned()) if intermediates else set()
    missing = [w for w in wrt if w not in values and w not in assigned]
    if missing:
        raise GradcalcError(
            f"--wrt {', '.join(missing)}: no value given with --at "
            f"(names with values: {', '.join(values)}"
            + (f"; assigned names: {', '.join(sorted(assigned))}" if assigned else "")
            + ")", kind="usage")
    return list(dict.fromkeys(wrt))


def program_of(job: Job, values: Collection[str]) -> Program:
    """The job's program, read with the names given values as its variables: the notation
    pass never reads one of them another way (`xe^x` with a value for xe is xe^x). Read
    once for the same text, limits, names and registry of primitives (a table's chunks
    share it; a primitive registered since is read anew)."""
    return _parsed(job.program, job.limits, tuple(values), (tuple(PRIMITIVES), tuple(FUNCTIONS)))


@functools.lru_cache(maxsize=16)
def _parsed(text: str, limits: Limits, given: tuple[str, ...], registry: tuple) -> Program:
    """A program read (a Program is frozen: one object serves every reader)."""
    from gradcalc.language.parse import parse

    return parse(text, limits=limits, given=given)


def reads(job: Job) -> set[str]:
    """The names the program may read (and --wrt's), before any value is known: its names
    read as student notation and, where the plain language reads it too, as that (a name
    such as xe may be one input or two)."""
    from gradcalc.language.parse import parse

    names = parse(job.program, limits=job.limits).names_used()
    try:
        names |= parse(job.program, limits=job.limits, notation=False).names_used()
    except GradcalcError:
        pass
    return names | set(job.wrt or [])


def plan(job: Job, program: Program, values: dict[str, np.ndarray],
         intermediates: bool = False) -> tuple[list[str], outputs.Output, np.ndarray | None]:
    """What a job differentiates: its inputs, its output (and what to say about the
    choice), and its weights."""
    names = choose_inputs(program, values, job.wrt, intermediates)
    outputs.check_given(program, values)
    leaves = [n for n in names if n in values] or list(values)  # not assigned names
    output = outputs.choose(program, leaves, option_name(job.of, "--of") if job.of else None)
    weights = load_weights(job.weights, job.limits)
    if job.command != "grad" and weights is not None:
        raise GradcalcError("--weights goes with grad (a vector-Jacobian product)", kind="usage")
    return names, output, weights


def grad_seed(shape: tuple[int, ...], of: str, weights: np.ndarray | None,
              where: str = "") -> np.ndarray:
    """The cotangent that starts grad's sweep (per point, for --points: `where` says so):
    the weights, or 1 for an output of one element."""
    if weights is None:
        if math.prod(shape) != 1:
            raise ShapeError(
                f"'{of}' has shape {shape}{where}, so its gradient needs weights: "
                f"pass --weights with an array of shape {shape} for the "
                f"vector-Jacobian product (PyTorch's y.backward(w)), or use "
                f"'gradcalc jacobian' for the full Jacobian")
        return np.ones(shape)
    if weights.shape != shape:
        raise ShapeError(f"--weights has shape {weights.shape} but '{of}' has shape "
                         f"{shape}{where}; they must match")
    return weights


def check_kind(command: str, weights: np.ndarray | None) -> str:
    """The check's name for what a command computed."""
    if command == "grad":
        return "gradient" if weights is None else "vjp"
    return command


#: no point holds nan or inf
_NONE_BAD = np.zeros(1, dtype=bool)


def _first_bad(bad: np.ndarray) -> str:
    count = int(bad.sum())
    return (f" at {count:,} point{'' if count == 1 else 's'} "
            f"(first: row {int(np.argmax(bad)) + 1})")


def nonfinite_rows(a: np.ndarray) -> np.ndarray | None:
    """Which points (the leading axis) hold nan or inf, or None when none does: the sum of
    the array first (one reduction, no mask), which is finite only where every element is
    (a sum that overflows is looked at point by point)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(a)):
            return None
    return ~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1)


def nonfinite_warnings(of: str, output: np.ndarray, derivative: dict[str, np.ndarray],
                       points: bool = False) -> list[str]:
    """Warnings for nan or inf in the output or a derivative; with `points`, arrays have a
    leading point axis and each warning counts the points and names the first row."""
    def bad(a: np.ndarray) -> np.ndarray:
        if points:
            rows = nonfinite_rows(a)
            return _NONE_BAD if rows is None else rows
        return np.array([not np.all(np.isfinite(a))])

    out = []
    if bad(output).any():
        out.append(f"the output '{of}' has non-finite values" + (
            _first_bad(bad(output)) if points
            else " (a domain error such as log(0), 0/0 or overflow)"))
    if points:
        out += [f"the derivative with respect to {name} has non-finite values"
                + _first_bad(bad(d)) for name, d in derivative.items() if bad(d).any()]
        return out
    names = [k for k, v in derivative.items() if bad(v).any()]
    if names:
        out.append(f"the derivative with respect to {', '.join(names)} has non-finite values "
                   "(a singular point or a domain error)")
    return out
