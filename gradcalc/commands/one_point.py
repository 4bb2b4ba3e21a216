"""grad, jacobian and hessian at one point, as data: parse, run on the tape, differentiate,
check. Nothing here prints; `render` turns a `Result` into rich tables, JSON or plain rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gradcalc.backends.numeric import NotAssigned, as_function, describe_shape
from gradcalc.commands import expect as expectations
from gradcalc.commands.jobs import (
    COMMANDS,
    Job,
    check_kind,
    grad_seed,
    load_values,
    nonfinite_warnings,
    plan,
    program_of,
)
from gradcalc.commands.matrix import Matrix, assemble
from gradcalc.engine import functional
from gradcalc.engine.tape import no_grad
from gradcalc.errors import EvalError, GradcalcError, LimitError, ShapeError
from gradcalc.language.parse import quote
from gradcalc.language.program import Program
from gradcalc.limits import Limits

__all__ = ["COMMANDS", "Job", "Result", "load_values", "plan", "run"]


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
    expectation: expectations.Expectation | None = None  # --expect, when given
    wrt: list[str] = field(default_factory=list)  # the differentiated inputs, in order
    formulas: Any = None  # verify.formula.Formulas, with --symbolic
    explain: Any = None  # commands.explain.Explanation, with --explain
    view: dict[str, Any] = field(default_factory=dict)  # how to show them (--latex, --graph)
    notes: list[str] = field(default_factory=list)  # e.g. which output was chosen, and why

    @property
    def expect_ok(self) -> bool | None:
        return None if self.expectation is None else self.expectation.ok

    @property
    def failed(self) -> bool:
        return self.check.status == "fail" or self.expect_ok is False

    def matrix(self) -> Matrix | None:
        """With several inputs, the derivative as one matrix (rows: output entries,
        columns: the inputs' entries in --wrt order); None with one input."""
        if len(self.wrt) < 2:
            return None
        return assemble(self.command, self.output_name, self.output.shape, self.derivative,
                        self.wrt, {n: self._shape_of(n) for n in self.wrt})

    def _shape_of(self, name: str) -> tuple[int, ...]:
        """An input's shape (or an assigned name's, from its derivative with --wrt)."""
        if name in self.inputs:
            return np.shape(self.inputs[name])
        block = np.shape(self.derivative[name])
        return block[self.output.ndim:] if self.command == "jacobian" else block

    @property
    def derivative_key(self) -> str:
        return {"grad": "gradient", "jacobian": "jacobian", "hessian": "hessian"}[self.command]


def run(job: Job) -> Result:
    """Compute the job's derivative on the tape and check it (unless told not to)."""
    if job.command not in COMMANDS:
        raise GradcalcError(f"unknown command {job.command!r}", kind="usage")
    values = load_values(job.at, limits=job.limits)
    program = program_of(job, values)
    names, chosen, weights = plan(job, program, values, intermediates=True)
    of = chosen.name
    inner = [n for n in names if n not in values]  # assigned names: retain_grad()
    if inner:
        return _run_intermediates(job, program, values, names, inner, of, weights)
    constants = {k: v for k, v in values.items() if k not in names}
    f, decisions = as_function(program, names, constants, of=of, limits=job.limits)
    point = tuple(values[n] for n in names)
    try:
        output, derivative = _compute(job, f, point, names, of, weights)
    except NotAssigned as exc:
        if job.of:  # the user named it: say which option
            raise EvalError(f"--of {quote(of)}: {exc.message}") from None
        raise
    result = Result(job.command, of, output, values, weights, derivative, None, wrt=names,
                    notes=[chosen.note] if chosen.note else [])
    result.warnings = ([chosen.warning] if chosen.warning else []) + \
        nonfinite_warnings(of, output, derivative)
    result.check = _check(job, program, values, names, constants, of, decisions, result)
    if job.expect is not None:
        result.expectation = expectations.compare(job.expect, result.derivative,
                                                  result.matrix(), job.rtol, job.atol,
                                                  job.limits)
    if job.explain:
        from gradcalc.commands.explain import explain

        result.explain = explain(job.command, program, values, names, constants, of, weights,
                                 job.limits)
    if job.symbolic:
        from gradcalc.verify.symbolic_formula import derivative_formulas

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
    seed = None if job.command != "grad" else grad_seed(sub.output.shape, of, weights)
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


def _compute(job: Job, f: Any, point: tuple, names: list[str], of: str,
             weights: np.ndarray | None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The output's value and the derivative, on the tape."""
    if job.command == "grad":  # one recorded run: its output decides the seed
        output, pull = functional.pullback(f, point)
        return output, dict(zip(names, pull(grad_seed(output.shape, of, weights))))
    with no_grad():
        output = np.asarray(f(*point).value, dtype=np.float64)
    _bound(job.command, point, output, getattr(f, "usage", {}), job.limits)
    return output, _differentiate(job.command, f, point, names, output, of)


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


def _check(job: Job, program: Program, values: dict[str, np.ndarray], names: list[str],
           constants: dict[str, np.ndarray], of: str, decisions: Any, result: Result) -> Any:
    from gradcalc.verify.check import (  # imports sympy: only when checking
        check_derivative,
        skipped_check,
    )

    if not job.check:
        return skipped_check()
    tape_result = result.derivative
    if job.command == "hessian":
        tape_result = _hessian_blocks(result.derivative, names)
    return check_derivative(check_kind(job.command, result.weights), program, values, names,
                            constants, of, decisions, tape_result, weights=result.weights,
                            limits=job.limits, output=result.output)


def _hessian_blocks(derivative: dict[str, np.ndarray], names: list[str]) -> dict:
    if len(names) == 1:
        return {(names[0], names[0]): derivative[names[0]]}
    return {tuple(k.split(",")): v for k, v in derivative.items()}
