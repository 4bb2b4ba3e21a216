"""The check's fallback: central finite differences along the recorded path, with
one-sided differences to tell kinks apart. Its cost is planned from the work the numeric
backend counts in one run (not from the clock), so the same program gets the same check
on a busy machine as on an idle one."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.verify.compare import Entry, label, verdict
from gradcalc.verify.result import CheckResult
from gradcalc.verify.tape_check import TapeCheck, as_float

#: finite differences: a looser bound, plus the rounding error of the difference quotient
FD_ABS_TOL, FD_REL_TOL = 1e-6, 1e-4
#: relative step of central differences (about the cube root of float64's epsilon)
FD_STEP = 6e-6
#: at most this many input elements are perturbed one by one; beyond, random directions
FD_MAX_ELEMENTS = 512
FD_DIRECTIONS = 16
#: planned cost of one run: per counted operation, and per element of counted work
SECONDS_PER_OPERATION = 2e-6
SECONDS_PER_ELEMENT = 1e-8
#: a Hessian's function is a gradient: a forward and a backward run of the program
HESSIAN_RUN_COST = 3

Point = dict[str, np.ndarray]


@dataclass
class _Direction:
    label: str
    d: Point
    step: float


def finite_differences(job: TapeCheck, reason: str) -> CheckResult:
    """Compare the tape's directional derivatives with central differences; `reason` says
    why the symbolic check gave way."""
    point = {n: job.inputs[n] for n in job.wrt}
    F, usage = _function(job)
    f0 = F(point)
    once = usage["operations"] * SECONDS_PER_OPERATION + usage["work"] * SECONDS_PER_ELEMENT
    if job.kind == "hessian":
        once *= HESSIAN_RUN_COST
    total = sum(point[n].size for n in job.wrt)
    allowance = job.fd_seconds
    elementwise = total <= FD_MAX_ELEMENTS and 2 * total * once <= allowance
    if not elementwise and 4 * once > allowance:
        return CheckResult("skipped", "none", None,
                           f"{reason}; one run of the program would take about {once:.3g} s "
                           f"(by its counted work), too long for finite differences")
    if elementwise:
        directions = _axes(job, point)
    else:
        directions = _random(job, point, int(min(FD_DIRECTIONS, max(2, allowance // (2 * once)))))
    rows = _row_labels(job)
    entries = [e for d in directions for e in _compare(job, F, point, f0, d, rows)]
    how = ("central finite differences" if elementwise else
           f"central finite differences along {len(directions)} random directions")
    result, _ = verdict(entries, "finite-difference", "finite differences", FD_ABS_TOL,
                        FD_REL_TOL)
    prefix = f"{reason}; checked by {how}"
    result.detail = prefix if result.detail is None else f"{prefix}; {result.detail}"
    return result


def _function(job: TapeCheck) -> tuple[Callable[[Point], np.ndarray], dict[str, int]]:
    """F(point) as a flat array (the output, the weighted sum, or the gradient for a
    Hessian) along the recorded path, and the counted work of its last run."""
    from gradcalc.backends.numeric import NumericBackend
    from gradcalc.backends.symbolic import run_replayed

    env_base = {**job.constants, **job.inputs}
    usage = {"operations": 0, "work": 0}

    def run(values: dict[str, Any]) -> Any:
        backend = NumericBackend(job.limits)
        out = run_replayed(job.program, backend, {**env_base, **values}, job.path, job.of,
                           job.limits)
        usage.update(operations=backend.operations, work=backend.work)
        return out

    if job.kind == "hessian":
        from gradcalc.engine.functional import grad
        from gradcalc.engine.tensor import Tensor

        def f(*tensors: Any) -> Any:
            out = run(dict(zip(job.wrt, tensors, strict=True)))
            return out if isinstance(out, Tensor) else Tensor(out)

        def gradient(values: Point) -> np.ndarray:
            g = grad(f, tuple(values[n] for n in job.wrt))
            return np.concatenate([np.asarray(x, dtype=np.float64).ravel() for x in g])

        return gradient, usage
    w = job.weights

    def F(values: Point) -> np.ndarray:
        out = as_float(run(values))
        if job.kind == "jacobian":
            return out.ravel()
        if job.kind == "vjp":
            return np.atleast_1d(np.sum(np.where(w != 0, w * out, 0.0)))
        return out.reshape(1) if out.size == 1 else np.atleast_1d(np.sum(out))

    return F, usage


def _axes(job: TapeCheck, point: Point) -> list[_Direction]:
    """One direction per input element, with a step that is exact in float64."""
    out = []
    for n in job.wrt:
        for k, idx in enumerate(np.ndindex(*point[n].shape)):
            d = {m: np.zeros(point[m].shape) for m in job.wrt}
            d[n].reshape(-1)[k] = 1.0
            x = float(point[n][idx]) if point[n].ndim else float(point[n])
            step = FD_STEP * max(1.0, abs(x))
            out.append(_Direction(label(n, idx), d, (x + step) - x))
    return out


def _random(job: TapeCheck, point: Point, count: int) -> list[_Direction]:
    """`count` random unit directions (the same ones every run)."""
    rng = np.random.default_rng(0)
    scale = max([1.0] + [float(np.max(np.abs(point[n]))) for n in job.wrt if point[n].size])
    out = []
    for i in range(count):
        d = {n: rng.standard_normal(point[n].shape) for n in job.wrt}
        norm = math.sqrt(sum(float(np.sum(v * v)) for v in d.values())) or 1.0
        out.append(_Direction(f"random direction {i + 1}", {n: v / norm for n, v in d.items()},
                              FD_STEP * scale))
    return out


def _compare(job: TapeCheck, F: Callable[[Point], np.ndarray], point: Point, f0: np.ndarray,
             direction: _Direction, rows: list[str]) -> list[Entry]:
    """The entries of one direction: the tape's prediction against the central difference,
    excused where one-sided differences disagree (a kink) or the quotient jumps."""
    d, step = direction.d, direction.step

    def shifted(t: float) -> np.ndarray:
        return F({n: point[n] + t * d[n] for n in job.wrt})

    plus, minus = shifted(step), shifted(-step)
    with np.errstate(all="ignore"):
        central = (plus - minus) / (2 * step)
        forward = (plus - f0) / step
        backward = (f0 - minus) / step
        rounding = 100 * np.finfo(float).eps * np.maximum(
            np.abs(f0), np.maximum(np.abs(plus), np.abs(minus))) / step
    rounding = np.where(np.isfinite(rounding), rounding, 0.0)
    predicted = _predict(job, d)
    kink = (np.isfinite(forward) & np.isfinite(backward)
            & (np.abs(forward - backward) > 1e-3 * (1 + np.abs(forward) + np.abs(backward)))
            & (np.abs(forward - backward) > 10 * rounding))
    with np.errstate(all="ignore"):
        off = np.abs(predicted - central) > (
            FD_ABS_TOL + FD_REL_TOL * np.maximum(np.abs(predicted), np.abs(central)) + rounding)
    if np.any(off & ~kink):
        # a jump (e.g. the gradient at a tie of maximum) makes the quotient scale with
        # 1/step: compare with a quarter step before calling it a mismatch
        small = step / 4
        with np.errstate(all="ignore"):
            refined = (shifted(small) - shifted(-small)) / (2 * small)
            jump = ~(np.abs(refined - central) <= 1e-3 * (1 + np.abs(central)) + 40 * rounding)
        kink = kink | (jump & np.isfinite(central))
    entries = []
    for r in range(central.size):
        name = rows[r].replace("{}", direction.label) if rows else direction.label
        excuse = None
        if kink[r]:
            excuse = ("kink", "one-sided differences disagree (the tape gives "
                              f"{float(predicted[r]):.10g})")
        entries.append(Entry(name, float(predicted[r]), float(central[r]), None,
                             float(rounding[r]), excuse))
    return entries


def _row_labels(job: TapeCheck) -> list[str]:
    """Per row of F, a label with '{}' where the perturbed input goes."""
    if job.kind == "jacobian":
        return [f"d{label(job.of, idx)}/d{{}}" for idx in np.ndindex(*job.output.shape)]
    if job.kind == "hessian":
        return [f"d²{job.of}/d{label(n, idx)}d{{}}" for n in job.wrt
                for idx in np.ndindex(*job.inputs[n].shape)]
    return []


def _dot(m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """m (rows x d.size) times d, skipping d's zeros (so a nan elsewhere stays out)."""
    used = np.flatnonzero(d)
    return m[:, used] @ d.ravel()[used]


def _predict(job: TapeCheck, d: Point) -> np.ndarray:
    """The tape's directional derivative along `d`, shaped like the F of the check."""
    if job.kind == "hessian":
        rows = []
        for a in job.wrt:
            acc = np.zeros(job.inputs[a].size)
            for b in job.wrt:
                block = job.tape.get((a, b))
                if block is not None:
                    acc = acc + _dot(block.reshape(job.inputs[a].size, -1), d[b])
            rows.append(acc)
        return np.concatenate(rows)
    if job.kind == "jacobian":
        acc = np.zeros(job.output.size)
        for n in job.wrt:
            if n in job.tape:
                acc = acc + _dot(job.tape[n].reshape(job.output.size, -1), d[n])
        return acc
    total = sum(float(_dot(job.tape[n].reshape(1, -1), d[n])[0])
                for n in job.wrt if n in job.tape)
    return np.array([total])
