"""Checking a tape derivative against sympy's derivative of the same path (docs/checking.md).

Symbolic first (`verify.against_sympy`): the program runs on sympy along the numeric run's
path, sympy differentiates, and each entry is compared with the tape's. At kinks and
singular points where the two conventions differ, the result is `skipped` with the reason,
never a false `fail`. Past a budget of CPU time (`limits.check_seconds`, `verify.budget`)
or of operations (`limits.max_symbolic_ops`), the check falls back to central finite
differences (`verify.finite`) and says so.
"""

from __future__ import annotations

from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.language.program import Decisions, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.budget import Backstop, Timeout, backstop_seconds, time_budget
from gradcalc.verify.result import CheckResult, skipped_check
from gradcalc.verify.tape_check import TapeCheck, as_float

__all__ = ["DERIVATIVES", "CheckResult", "check_derivative", "skipped_check", "time_budget"]

#: finite differences get `check_seconds`, or this after a symbolic attempt that spent it
FD_MIN_SECONDS = 0.5

DERIVATIVES = ("gradient", "vjp", "jacobian", "hessian")


def check_derivative(
    kind: str,
    program: Program,
    inputs: dict[str, Any],
    wrt: list[str],
    constants: dict[str, Any] | None,
    of: str,
    decisions: Decisions | None,
    tape_result: dict[Any, Any],
    *,
    weights: Any = None,
    limits: Limits = DEFAULT_LIMITS,
    output: Any = None,
) -> CheckResult:
    """Check a tape derivative of `of` with respect to `wrt` at the point `inputs`.

    kind: 'gradient' (scalar output; tape_result name -> input-shaped array), 'vjp'
    (`weights` of the output's shape; name -> weightsᵀ·J), 'jacobian' (name ->
    out.shape + in.shape), 'hessian' ((name_i, name_j) -> in_i.shape + in_j.shape).
    `decisions` and `output` are the tape run's path and output value; without both, the
    program is run once more here to record them.
    """
    if kind not in DERIVATIVES:
        raise ValueError(f"unknown check kind {kind!r}; expected one of {DERIVATIVES}")
    w = None if weights is None else as_float(weights)
    if kind == "vjp" and w is None:
        raise ValueError("a 'vjp' check needs weights")
    job = TapeCheck(kind, program, {k: as_float(v) for k, v in inputs.items()}, list(wrt),
                   {k: as_float(v) for k, v in (constants or {}).items()}, of,
                   {k: as_float(v) for k, v in tape_result.items()}, w, limits)
    if decisions is not None and output is not None:
        job.path, job.output = decisions, as_float(output)
    else:
        try:
            from gradcalc.backends.symbolic import record_path

            job.path, job.output = record_path(program, job.inputs, job.constants, of, limits)
        except GradcalcError as exc:
            return CheckResult("skipped", "none", None,
                               f"the program could not be re-run: {exc}")
    reason, spent = _symbolic_or_reason(job)
    # decided by what ended the attempt, not by a clock: the same on any machine's load
    job.fd_seconds = FD_MIN_SECONDS if spent else max(limits.check_seconds, FD_MIN_SECONDS)
    if isinstance(reason, CheckResult):
        return reason
    from gradcalc.verify.finite import finite_differences

    try:
        return finite_differences(job, reason)
    except GradcalcError as exc:
        return CheckResult("skipped", "none", None,
                           f"{reason}; finite differences could not re-run the program: {exc}")


def _symbolic_or_reason(job: TapeCheck) -> tuple[CheckResult | str, bool]:
    """The symbolic check's result, or why it gave way to finite differences; and whether
    it gave way for having spent its time."""
    seconds = job.limits.check_seconds
    try:
        with time_budget(seconds):
            return _symbolic(job), False
    except Backstop:
        return (f"symbolic check stopped by the wall-clock backstop "
                f"({backstop_seconds(seconds):g} s) before its {seconds:g} s of CPU time",
                True)
    except Timeout:
        return f"symbolic check exceeded {seconds:g} s of CPU time", True


def _symbolic(job: TapeCheck) -> CheckResult | str:
    """The symbolic check's result, or why it could not be made (inside the budget)."""
    from gradcalc.backends.symbolic import SymbolicBudgetExceeded, SymbolicUnsupported
    from gradcalc.verify.against_sympy import symbolic_check

    try:
        return symbolic_check(job)
    except SymbolicBudgetExceeded as exc:
        return f"symbolic check too large ({exc})"
    except SymbolicUnsupported as exc:
        return f"symbolic check not possible ({exc})"
    except RecursionError:
        return "symbolic check too deep for sympy"
    except MemoryError:
        return "symbolic check ran out of memory"
    except Exception as exc:  # sympy can fail in many ways; the check must not crash
        return f"symbolic check failed ({type(exc).__name__}: {_first_line(exc)})"


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0][:120] if text else type(exc).__name__
