"""What each CLI command computes, as data: parse, run on the tape, differentiate, check.

Nothing here prints; `render` turns a `Result` into rich tables, JSON or plain rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gradcalc.backends.numeric import as_function, describe_shape
from gradcalc.engine import functional
from gradcalc.engine.tape import no_grad
from gradcalc.errors import GradcalcError, LimitError, ShapeError
from gradcalc.language.parse import normalize, parse, quote
from gradcalc.language.program import Program
from gradcalc.language.values import parse_assignments, value_from_data
from gradcalc.limits import DEFAULT_LIMITS, Limits

COMMANDS = ("grad", "jacobian", "hessian")


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


@dataclass
class Result:
    command: str
    output_name: str
    output: np.ndarray
    inputs: dict[str, np.ndarray]  # every value given with --at
    weights: np.ndarray | None
    derivative: dict[str, np.ndarray]  # input name (hessian: "x,y") -> values
    check: Any  # check.CheckResult
    warnings: list[str] = field(default_factory=list)
    expect_ok: bool | None = None
    wrt: list[str] = field(default_factory=list)  # the differentiated inputs, in order
    formulas: Any = None  # verify.formula.Formulas, with --symbolic
    explain: Any = None  # commands.explain.Explanation, with --explain
    view: dict[str, Any] = field(default_factory=dict)  # how to show them (--latex, --graph)

    @property
    def failed(self) -> bool:
        return self.check.status == "fail" or self.expect_ok is False

    @property
    def derivative_key(self) -> str:
        return {"grad": "gradient", "jacobian": "jacobian", "hessian": "hessian"}[self.command]


def load_values(at: list[str] | str | dict[str, Any], option: str = "--at",
                limits: Limits = DEFAULT_LIMITS) -> dict[str, np.ndarray]:
    """--at texts (or a JSON object of numbers/lists, for batch) as float64 arrays."""
    if isinstance(at, dict):
        names = parse_assignments([f"{name}=0" for name in at], option=option, limits=limits)
        return {name: value_from_data(v, what=f"{option} {name}", limits=limits)
                for name, v in zip(names, at.values())}
    return parse_assignments([at] if isinstance(at, str) else list(at), option=option,
                             limits=limits)


def _weights(w: Any, limits: Limits) -> np.ndarray | None:
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


def option_name(text: str, option: str) -> str:
    """A name given in an option (--of, --wrt), normalised as a program's names are (NFKC,
    so --of ｙ is y); invisible and control characters are refused."""
    try:
        return normalize(text).strip()
    except GradcalcError as exc:
        raise GradcalcError(f"{option} {quote(text)}: {exc.message}", kind="usage") from None


def plan(job: Job, program: Program, values: dict[str, np.ndarray],
         intermediates: bool = False) -> tuple[list[str], str, np.ndarray | None]:
    """What a job differentiates: its inputs, its output's name, and its weights."""
    names = choose_inputs(program, values, job.wrt, intermediates)
    of = option_name(job.of, "--of") if job.of else program.default_output()
    weights = _weights(job.weights, job.limits)
    if job.command != "grad" and weights is not None:
        raise GradcalcError("--weights goes with grad (a vector-Jacobian product)", kind="usage")
    return names, of, weights


def run(job: Job) -> Result:
    """Compute the job's derivative on the tape and check it (unless told not to)."""
    if job.command not in COMMANDS:
        raise GradcalcError(f"unknown command {job.command!r}", kind="usage")
    program = parse(job.program, limits=job.limits)
    values = load_values(job.at, limits=job.limits)
    names, of, weights = plan(job, program, values, intermediates=True)
    inner = [n for n in names if n not in values]  # assigned names: retain_grad()
    if inner:
        return _run_intermediates(job, program, values, names, inner, of, weights)
    constants = {k: v for k, v in values.items() if k not in names}
    f, decisions = as_function(program, names, constants, of=of, limits=job.limits)
    point = tuple(values[n] for n in names)
    if job.command == "grad":  # one recorded run: its output decides the seed
        output, pull = functional.pullback(f, point)
        derivative = dict(zip(names, pull(_seed(output, of, weights))))
    else:
        with no_grad():
            output = np.asarray(f(*point)._value, dtype=np.float64)
        _bound(job.command, point, output, getattr(f, "usage", {}), job.limits)
        derivative = _differentiate(job.command, f, point, names, output, of)
    result = Result(job.command, of, output, values, weights, derivative, None, wrt=names)
    result.warnings = _warnings(result)
    result.check = _check(job, program, values, names, constants, of, decisions, result)
    if job.expect is not None:
        result.expect_ok = _matches(result, job.expect)
    if job.explain:
        from gradcalc.commands.explain import explain

        result.explain = explain(job.command, program, values, names, constants, of, weights,
                                 job.limits)
    if job.symbolic:
        from gradcalc.verify.formula import derivative_formulas

        kind = {"grad": "vjp", "jacobian": "jacobian", "hessian": "hessian"}[job.command]
        result.formulas = derivative_formulas(kind, program, values, names, constants, of,
                                              decisions, weights, job.limits)
    return result


def _run_intermediates(job: Job, program: Program, values: dict[str, np.ndarray],
                       names: list[str], inner: list[str], of: str,
                       weights: np.ndarray | None) -> Result:
    """--wrt naming assigned values: their gradients come from the engine's sweep stopping
    at their nodes; inputs named beside them are checked as usual, the rest is not."""
    from gradcalc.commands.explain import intermediate_gradients

    if job.command == "hessian":
        raise GradcalcError(f"hessian differentiates inputs only; {', '.join(inner)} "
                            "is assigned by the program (use grad or jacobian)", kind="usage")
    inputs = [n for n in names if n in values]
    sub = run(replace(job, wrt=inputs or None, symbolic=False, explain=False))
    seed = None if job.command != "grad" else _seed(sub.output, of, weights)
    found = intermediate_gradients(job.command, program, values, inputs or list(values),
                                   inner, {k: v for k, v in values.items()
                                           if k not in (inputs or values)}, of, seed,
                                   job.limits)
    derivative = {n: (found[n] if n in found else sub.derivative[n]) for n in names}
    result = replace(sub, derivative=derivative,
                     wrt=list(dict.fromkeys((inputs or list(values)) + inner)))
    if not inputs:
        from gradcalc.verify.check import CheckResult

        result.check = CheckResult("skipped", "none", None,
                                   f"{', '.join(inner)} {'is' if len(inner) == 1 else 'are'} "
                                   "assigned by the program; the check covers inputs only")
    if job.explain:
        from gradcalc.commands.explain import explain

        constants = {k: v for k, v in values.items() if k not in sub.wrt}
        result.explain = explain(job.command, program, values, sub.wrt, constants, of,
                                 weights, job.limits)
    return result


def _seed(output: np.ndarray, of: str, weights: np.ndarray | None) -> np.ndarray:
    """The cotangent that starts grad's sweep: the weights, or 1 for a scalar output."""
    if weights is None:
        if output.size != 1:
            raise ShapeError(
                f"'{of}' has {describe_shape(output)}, so its gradient needs weights: "
                f"pass --weights with an array of shape {output.shape} for the "
                f"vector-Jacobian product (PyTorch's y.backward(w)), or use "
                f"'gradcalc jacobian' for the full Jacobian")
        return np.ones(output.shape)
    if weights.shape != output.shape:
        raise ShapeError(
            f"--weights has shape {weights.shape} but '{of}' has shape {output.shape}; "
            f"they must match")
    return weights


#: a Jacobian's or Hessian's batched sweep may do this many times a run's limit of work
SWEEP_FACTOR = 5


def _bound(command: str, point: tuple, output: np.ndarray, usage: dict[str, int],
           limits: Limits) -> None:
    """Refuse a Jacobian or Hessian too large to compute or show, before its sweep."""
    if command == "hessian" and output.size != 1:
        return  # _differentiate says why
    inputs = sum(np.size(p) for p in point)
    rows = output.size if command == "jacobian" else inputs
    entries = rows * inputs
    what = "Jacobian" if command == "jacobian" else "Hessian"
    if entries > limits.max_derivative_elements:
        shape = f"{output.size:,} outputs × {inputs:,} inputs" if command == "jacobian" \
            else f"{inputs:,} × {inputs:,} inputs"
        raise LimitError(
            f"the {what} would have {entries:,} entries ({shape}), over the limit of "
            f"{limits.max_derivative_elements:,}: narrow the inputs with --wrt"
            + (", or use grad --weights for a vector-Jacobian product"
               if command == "jacobian" else ""))
    work = usage.get("work", 0)
    if rows * work > SWEEP_FACTOR * limits.max_work:
        raise LimitError(
            f"the {what}'s reverse sweep would carry {rows:,} rows through a run of "
            f"{work:,} elements of work, over the limit of "
            f"{SWEEP_FACTOR * limits.max_work:,}: "
            "narrow the inputs with --wrt")


def _differentiate(command: str, f: Any, point: tuple, names: list[str], output: np.ndarray,
                   of: str) -> dict[str, np.ndarray]:
    """The Jacobian, or the Hessian of a scalar output (blocks "x,y" for several inputs)."""
    if command == "jacobian":
        return dict(zip(names, functional.jacobian(f, point)))
    if output.size != 1:
        raise ShapeError(
            f"hessian needs a scalar output; '{of}' has {describe_shape(output)}: "
            f"reduce it (sum, mean, norm) or use --of to pick a scalar")
    blocks = functional.hessian(f, point)
    if len(names) == 1:
        return {names[0]: np.asarray(blocks[0][0])}
    return {f"{a},{b}": np.asarray(blocks[i][j])
            for i, a in enumerate(names) for j, b in enumerate(names)}


def _warnings(result: Result) -> list[str]:
    out = []
    if not np.all(np.isfinite(result.output)):
        out.append(f"the output '{result.output_name}' has non-finite values "
                   "(a domain error such as log(0), 0/0 or overflow)")
    bad = [k for k, v in result.derivative.items() if not np.all(np.isfinite(v))]
    if bad:
        out.append(f"the derivative with respect to {', '.join(bad)} has non-finite values "
                   "(a singular point or a domain error)")
    return out


def _check(job: Job, program: Program, values: dict[str, np.ndarray], names: list[str],
           constants: dict[str, np.ndarray], of: str, decisions: Any, result: Result) -> Any:
    from gradcalc.verify.check import (  # imports sympy: only when checking
        check_derivative,
        skipped_check,
    )

    if not job.check:
        return skipped_check()
    if job.command == "grad":
        kind = "gradient" if result.weights is None else "vjp"
        tape_result = result.derivative
    elif job.command == "hessian":
        kind = "hessian"
        tape_result = _hessian_blocks(result.derivative, names)
    else:
        kind, tape_result = "jacobian", result.derivative
    return check_derivative(kind, program, values, names, constants, of, decisions,
                            tape_result, weights=result.weights, limits=job.limits,
                            output=result.output)


def _hessian_blocks(derivative: dict[str, np.ndarray], names: list[str]) -> dict:
    if len(names) == 1:
        return {(names[0], names[0]): derivative[names[0]]}
    return {tuple(k.split(",")): v for k, v in derivative.items()}


def _matches(result: Result, expect: Any) -> bool:
    """--expect: the derivative equals the given values (to 1e-9 relative)."""
    if isinstance(expect, dict):
        wanted = load_values(expect, "--expect")
    elif "=" in str(expect):
        wanted = load_values([str(expect)], "--expect")
    elif len(result.derivative) == 1:
        wanted = {next(iter(result.derivative)): value_from_data(expect, what="--expect")}
    else:
        raise GradcalcError("--expect with several inputs needs names, e.g. "
                            "--expect 'a=1, b=[2,3]'", kind="usage")
    unknown = [k for k in wanted if k not in result.derivative]
    if unknown:
        raise GradcalcError(f"--expect names {', '.join(unknown)}, which are not derivatives "
                            f"here ({', '.join(result.derivative)})", kind="usage")
    for key, want in wanted.items():
        got = result.derivative[key]
        if np.shape(want) != np.shape(got) or not np.allclose(got, want, rtol=1e-9, atol=1e-12,
                                                              equal_nan=True):
            return False
    return True
