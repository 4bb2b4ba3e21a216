"""Checking a tape derivative against sympy's derivative of the same path (SPEC §2, §5).

Symbolic first: the program runs on sympy along the numeric run's path, sympy
differentiates, and each entry is compared with the tape's. At kinks and singular points
where the two conventions differ (sympy's nan where PyTorch defines a value), the result
is `skipped` with the reason, never a false `fail`. Past a time budget
(`limits.check_seconds`) or an operation budget (`limits.max_symbolic_ops`), the check
falls back to central finite differences and says so.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from gradcalc.engine import ops
from gradcalc.errors import GradcalcError
from gradcalc.language.program import Decisions, Program
from gradcalc.limits import DEFAULT_LIMITS, Limits

EPS = float(np.finfo(np.float64).eps)
#: symbolic comparison: |tape - sympy| <= ABS_TOL + REL_TOL * max(|tape|, |sympy|)
ABS_TOL, REL_TOL = 1e-9, 1e-7
#: finite differences: a looser bound, plus the rounding error of the difference quotient
FD_ABS_TOL, FD_REL_TOL = 1e-6, 1e-4
#: relative step of central differences (about the cube root of float64's epsilon)
FD_STEP = 6e-6
#: at most this many input elements are perturbed one by one; beyond, random directions
FD_MAX_ELEMENTS = 512
FD_DIRECTIONS = 16
#: finite differences get what the symbolic attempt left of `check_seconds`, at least this
FD_MIN_SECONDS = 0.5
#: entries named in a detail message
SHOWN = 3

KINDS = ("gradient", "vjp", "jacobian", "hessian")


@dataclass
class CheckResult:
    status: str  # 'pass' | 'fail' | 'skipped'
    method: str  # 'symbolic' | 'finite-difference' | 'none'
    max_abs_error: float | None
    detail: str | None

    def to_json(self) -> dict[str, Any]:
        err = self.max_abs_error
        if err is not None and not math.isfinite(err):
            err = "nan" if math.isnan(err) else ("inf" if err > 0 else "-inf")
        return {"status": self.status, "method": self.method, "max_abs_error": err,
                "detail": self.detail}


def skipped_check() -> CheckResult:
    return CheckResult("skipped", "none", None, "check disabled with --no-check")


class _Timeout(BaseException):
    """Raised by SIGALRM inside sympy; a BaseException so `except Exception` cannot eat it."""


@contextmanager
def time_budget(seconds: float | None) -> Iterator[bool]:
    """Raise `_Timeout` in the body after `seconds` (main thread only; yields whether armed).

    The timer repeats every 50 ms until disarmed, in case sympy swallows one alarm; the
    previous handler and timer are restored afterwards.
    """
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield False
        return
    state = {"active": True}

    def on_alarm(signum: int, frame: Any) -> None:
        if state["active"]:
            raise _Timeout()

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    started = time.monotonic()
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield True
    finally:
        while True:  # an alarm may land before the flag is cleared: clear it again
            try:
                state["active"] = False
                break
            except _Timeout:
                continue
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            left = max(previous_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, previous_interval)


# --------------------------------------------------------------------------- entry point


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
    if kind not in KINDS:
        raise ValueError(f"unknown check kind {kind!r}; expected one of {KINDS}")
    inputs = {k: _float(v) for k, v in inputs.items()}
    constants = {k: _float(v) for k, v in (constants or {}).items()}
    tape = {k: _float(v) for k, v in tape_result.items()}
    w = None if weights is None else _float(weights)
    if kind == "vjp" and w is None:
        raise ValueError("a 'vjp' check needs weights")
    job = _Job(kind, program, inputs, list(wrt), constants, of, tape, w, limits)
    if decisions is not None and output is not None:
        path, output = decisions, _float(output)
    else:
        try:
            from gradcalc.backends.symbolic import record_path

            path, output = record_path(program, inputs, constants, of, limits)
        except GradcalcError as exc:
            return CheckResult("skipped", "none", None,
                               f"the program could not be re-run: {exc}")
    job.path, job.output = path, output
    started = time.monotonic()
    reason = _symbolic_or_reason(job)
    job.fd_seconds = max(limits.check_seconds - (time.monotonic() - started), FD_MIN_SECONDS)
    if isinstance(reason, CheckResult):
        return reason
    try:
        return _finite_differences(job, reason)
    except GradcalcError as exc:
        return CheckResult("skipped", "none", None,
                           f"{reason}; finite differences could not re-run the program: {exc}")


@dataclass
class _Job:
    kind: str
    program: Program
    inputs: dict[str, np.ndarray]
    wrt: list[str]
    constants: dict[str, np.ndarray]
    of: str
    tape: dict[Any, np.ndarray]
    weights: np.ndarray | None
    limits: Limits
    path: Any = None
    output: Any = None
    fd_seconds: float = 1.0  # time left for finite differences


def _float(v: Any) -> np.ndarray:
    return np.asarray(ops.value(v), dtype=np.float64)


def _symbolic_or_reason(job: _Job) -> CheckResult | str:
    """The symbolic check's result, or why it gave way to finite differences."""
    from gradcalc.backends.symbolic import SymbolicBudgetExceeded, SymbolicUnsupported

    seconds = job.limits.check_seconds
    try:
        with time_budget(seconds):
            return _symbolic(job)
    except _Timeout:
        return f"symbolic check exceeded {seconds:g} s"
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


# --------------------------------------------------------------------------- symbolic


@dataclass
class _Entry:
    label: str
    tape: float
    other: float
    reason: str | None = None  # why the other side has no plain value
    tol_extra: float = 0.0
    excuse: tuple[str, str] | None = None  # (category, text) that turns a mismatch to skip


def _symbolic(job: _Job) -> CheckResult:
    from gradcalc.backends.symbolic import (
        SymbolicBackend,
        derivative_exprs,
        evaluate_array,
        evaluate_expr,
        expression_text,
        hessian_exprs,
        leaves_float64_range,
        point_subs,
        symbolic_output,
        to_sympy,
    )

    kinks: list[tuple[str, frozenset]] = []
    out, symbols = symbolic_output(job.program, job.inputs, job.wrt, job.constants, job.of,
                                   job.path, job.limits, kinks=kinks)
    budget = SymbolicBackend(job.limits)
    budget.spend(sum(s.size for s in symbols.values()))  # the inputs, as in the forward run
    subs = point_subs(symbols, {n: job.inputs[n] for n in job.wrt})
    forward, _ = evaluate_array(out, subs)
    on_kink = frozenset().union(*(k[1] for k in kinks))
    kink_excuse = ("kink", "the point is on a kink of "
                   + ", ".join(sorted({k[0] for k in kinks}))
                   + ", where the tape's convention has no symbolic counterpart")
    range_excuse = ("float64 range", "an intermediate value underflows or overflows "
                    "float64 there (sympy's numbers have no such limit)")
    undefined_excuse = ("undefined point", "the output is not finite there, so any "
                        "derivative is a convention")
    precise: dict[Any, Any] = {}

    def _second_look(t: float, o: float, expr: Any) -> tuple[float, tuple[str, str] | None]:
        """A mismatch: sympy again with 40 digits (its float64-precision value may be the
        inaccurate one), then float64's range and rounding as excuses."""
        if not precise:
            precise.update(point_subs(symbols, {n: job.inputs[n] for n in job.wrt}, 40))
        exact, _ = evaluate_expr(expr, precise, 40)
        if math.isfinite(exact) and not _differ(t, exact, ABS_TOL, REL_TOL):
            return exact, None
        if expr.is_Add and math.isfinite(exact):
            # a sum that cancels: float64 can only be as close as its largest terms allow
            terms = [abs(evaluate_expr(a, subs)[0]) for a in expr.args]
            scale = math.fsum(x for x in terms if math.isfinite(x))
            if abs(t - exact) <= 64 * EPS * scale:
                return exact, ("rounding", "the derivative is a sum that cancels to "
                                           f"{exact:.3g} from terms of size {scale:.3g}, "
                                           "below float64's resolution")
        if leaves_float64_range(expr, subs) or any(
                leaves_float64_range(e, subs) for e in out.flat):
            return o, range_excuse
        if math.isfinite(exact) and _differ(o, exact, ABS_TOL, REL_TOL):
            return exact, ("ill-conditioned point",
                           f"float64 rounding dominates there (sympy at float64 precision "
                           f"gives {o:.10g}, exactly {exact:.10g})")
        return (exact if math.isfinite(exact) else o), None
    entries: list[_Entry] = []
    texts: dict[str, Any] = {}

    def add(label_of: Callable[[tuple], str], tape: np.ndarray, exprs: np.ndarray,
            symbols_of: Callable[[tuple], set], nan_of: Callable[[tuple], bool]) -> None:
        values, reasons = evaluate_array(exprs, subs)
        tape = np.broadcast_to(tape, values.shape) if tape.shape != values.shape else tape
        for idx in np.ndindex(*values.shape):
            label = label_of(idx)
            excuse = None
            if nan_of(idx):
                excuse = undefined_excuse
            elif on_kink & symbols_of(idx):
                excuse = kink_excuse
            t, o = float(tape[idx]), float(values[idx])
            if excuse is None and _differ(t, o, ABS_TOL, REL_TOL):
                o, excuse = _second_look(t, o, exprs[idx])
            entries.append(_Entry(label, t, o, reasons[idx], excuse=excuse))
            texts[label] = exprs[idx]

    if job.kind == "hessian":
        if out.size != 1:
            return _shape_fail(f"the output has shape {out.shape}; a Hessian needs a scalar")
        undefined = not bool(np.isfinite(job.output).all())
        blocks = hessian_exprs(out.reshape(()), symbols, budget.spend)
        for key, block in blocks.items():
            if key in job.tape:
                if job.tape[key].shape != block.shape:
                    return _shape_fail(f"Hessian block {key} has shape {job.tape[key].shape}, "
                                       f"expected {block.shape}")
                a, b = key
                sa = symbols[a].ndim
                add(lambda idx, a=a, b=b, sa=sa: (
                    f"d²{job.of}/d{_label(a, idx[:sa])}d{_label(b, idx[sa:])}"),
                    job.tape[key], block,
                    lambda idx, a=a, b=b, sa=sa: {symbols[a][idx[:sa]], symbols[b][idx[sa:]]},
                    lambda idx: undefined)
    else:
        nan_rows = ~np.isfinite(np.broadcast_to(job.output, out.shape))
        if job.kind == "vjp":
            if job.weights.shape != out.shape:
                return _shape_fail(f"weights have shape {job.weights.shape}; the output has "
                                   f"shape {out.shape}")
            target = np.empty((), dtype=object)
            pairs = zip(job.weights.flat, out.flat, strict=True)
            target[()] = sum((to_sympy(w) * e for w, e in pairs if w != 0), start=to_sympy(0.0))
            nan_rows = np.array(bool((nan_rows & (job.weights != 0)).any()))
        elif job.kind == "gradient":
            if out.size != 1:
                return _shape_fail(f"the output has shape {out.shape}; a gradient needs a "
                                   "scalar (or weights)")
            target = out.reshape(())
            nan_rows = nan_rows.reshape(())
        else:
            target = out
        no = target.ndim
        derivatives = derivative_exprs(target, symbols, budget.spend)
        for name, d in derivatives.items():
            if name not in job.tape:
                continue
            if job.tape[name].shape != d.shape:
                return _shape_fail(f"the derivative for {name} has shape "
                                   f"{job.tape[name].shape}, expected {d.shape}")
            if job.kind == "jacobian":
                def label_of(idx: tuple, name: str = name) -> str:
                    return f"d{_label(job.of, idx[:no])}/d{_label(name, idx[no:])}"
            else:
                def label_of(idx: tuple, name: str = name) -> str:
                    return _label(name, idx)
            add(label_of, job.tape[name], d,
                lambda idx, name=name: {symbols[name][idx[no:]]},
                lambda idx: bool(nan_rows[idx[:no]]))
    result, worst = _verdict(entries, "symbolic", "sympy", ABS_TOL, REL_TOL)
    if worst in texts:
        result.detail = (f"{result.detail}; sympy's derivative there: "
                         f"{expression_text(texts[worst], 80)}")
    note = _forward_note(job.output, forward)
    if note:
        result.detail = note if result.detail is None else f"{result.detail}; {note}"
    return result


def _shape_fail(message: str) -> CheckResult:
    return CheckResult("fail", "symbolic", None, message)


def _label(name: str, idx: tuple) -> str:
    return name if not idx else f"{name}[{','.join(str(i) for i in idx)}]"


def _forward_note(tape: np.ndarray, sym: np.ndarray) -> str | None:
    """A note when sympy's value of the output differs from the tape's (e.g. rounding)."""
    tape = np.broadcast_to(tape, sym.shape) if tape.shape != sym.shape else tape
    bad = []
    for idx in np.ndindex(*sym.shape):
        t, s = float(tape[idx]), float(sym[idx])
        if math.isfinite(t) and math.isfinite(s):
            if abs(t - s) > ABS_TOL + REL_TOL * max(abs(t), abs(s)):
                bad.append((idx, t, s))
    if not bad:
        return None
    idx, t, s = bad[0]
    return (f"the output's value differs from sympy's at {len(bad)} entr"
            f"{'y' if len(bad) == 1 else 'ies'} (the tape gives {t:.17g}, sympy {s:.17g})")


def _differ(t: float, o: float, atol: float, rtol: float) -> bool:
    """Two finite values farther apart than the tolerance."""
    return (math.isfinite(t) and math.isfinite(o)
            and abs(t - o) > atol + rtol * max(abs(t), abs(o)))


def _agree_nonfinite(t: float, o: float) -> bool:
    if math.isnan(t) and math.isnan(o):
        return True
    return math.isinf(t) and math.isinf(o) and (t > 0) == (o > 0)


def _show(v: float, reason: str | None) -> str:
    if reason in ("complex", "complex infinity", "undefined"):
        return {"complex": "a complex value", "complex infinity": "complex infinity (zoo)",
                "undefined": "nan (undefined)"}[reason]
    if reason:
        return reason
    return "nan" if math.isnan(v) else f"{v:.10g}"


def _verdict(entries: list[_Entry], method: str, other_name: str, atol: float,
             rtol: float) -> tuple[CheckResult, str | None]:
    """pass / fail / skipped from compared entries; max_abs_error over finite pairs.

    A finite mismatch fails unless the entry carries an excuse (a kink, an undefined
    point); a non-finite value on one side only is a singular point: skipped, not failed.
    """
    max_err = 0.0
    mismatches: list[tuple[float, _Entry]] = []
    skipped: dict[tuple[str, str], list[_Entry]] = {}
    rounding: dict[tuple[str, str], list[_Entry]] = {}
    for e in entries:
        t, o = e.tape, e.other
        if e.reason and e.reason not in ("complex", "complex infinity", "undefined"):
            why = ("kink", f"sympy's derivative has {e.reason} there, which has no value")
            skipped.setdefault(why, []).append(e)
            continue
        if math.isfinite(t) and math.isfinite(o):
            err = abs(t - o)
            if err > atol + rtol * max(abs(t), abs(o)) + e.tol_extra:
                if e.excuse and e.excuse[0] == "rounding":  # agreement as far as float64 goes
                    rounding.setdefault(e.excuse, []).append(e)
                elif e.excuse:
                    skipped.setdefault(e.excuse, []).append(e)
                    continue
                else:
                    mismatches.append((err, e))
            max_err = max(max_err, err)
            continue
        if not _agree_nonfinite(t, o):
            why = ("singular point", f"{other_name} gives {_show(o, e.reason)} where the tape "
                                     f"gives {_show(t, None)}")
            skipped.setdefault(why, []).append(e)
    n_skipped = sum(len(v) for v in skipped.values())
    if mismatches:
        mismatches.sort(key=lambda p: -p[0])
        err, e = mismatches[0]
        more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        detail = (f"mismatch at {e.label}: the tape gives {e.tape:.10g}, {other_name} gives "
                  f"{e.other:.10g} (difference {err:.3g}){more}")
        if n_skipped:
            detail += (f"; {n_skipped} singular or kink entr{'y' if n_skipped == 1 else 'ies'} "
                       "skipped")
        return CheckResult("fail", method, max_err, detail), e.label
    if skipped:
        parts = []
        for (category, text), group in list(skipped.items())[:SHOWN]:
            names = ", ".join(e.label for e in group[:SHOWN])
            parts.append(f"{category} at {names}{_more(group)}: {text}")
        rest = sum(len(g) for g in list(skipped.values())[SHOWN:])
        if rest:
            parts.append(f"{rest} more singular or kink entr{'y' if rest == 1 else 'ies'}")
        checked = len(entries) - n_skipped
        detail = "; ".join(parts)
        if any(category in ("kink", "singular point") for category, _ in skipped):
            detail += "; the tape follows PyTorch's convention there"
        if checked:
            detail += f"; the other {checked} entr{'y' if checked == 1 else 'ies'} agree"
        return CheckResult("skipped", method, max_err if checked else None, detail), None
    if rounding:
        (_, text), group = next(iter(rounding.items()))
        names = ", ".join(e.label for e in group[:SHOWN])
        return CheckResult("pass", method, max_err,
                           f"agrees within float64 rounding at {names}{_more(group)}: {text}"
                           ), None
    return CheckResult("pass", method, max_err, None), None


def _more(items: list) -> str:
    return f" (and {len(items) - SHOWN} more)" if len(items) > SHOWN else ""


# --------------------------------------------------------------------------- finite differences


def _finite_differences(job: _Job, reason: str) -> CheckResult:
    """Central differences along the recorded path; one-sided ones tell kinks apart."""
    from gradcalc.backends.numeric import NumericBackend
    from gradcalc.backends.symbolic import run_replayed

    point = {n: job.inputs[n] for n in job.wrt}
    env_base = {**job.constants, **job.inputs}

    def run(values: dict[str, Any]) -> Any:
        env = {**env_base, **values}
        return run_replayed(job.program, NumericBackend(job.limits), env, job.path, job.of,
                            job.limits)

    if job.kind == "hessian":
        from gradcalc.engine.functional import grad
        from gradcalc.engine.tensor import Tensor

        def f(*tensors: Any) -> Any:
            out = run(dict(zip(job.wrt, tensors, strict=True)))
            return out if isinstance(out, Tensor) else Tensor(out)

        def F(values: dict[str, np.ndarray]) -> np.ndarray:
            g = grad(f, tuple(values[n] for n in job.wrt))
            return np.concatenate([np.asarray(x, dtype=np.float64).ravel() for x in g])
    else:
        w = job.weights

        def F(values: dict[str, np.ndarray]) -> np.ndarray:
            out = _float(run(values))
            if job.kind == "jacobian":
                return out.ravel()
            if job.kind == "vjp":
                return np.atleast_1d(np.sum(np.where(w != 0, w * out, 0.0)))
            return out.reshape(1) if out.size == 1 else np.atleast_1d(np.sum(out))

    started = time.monotonic()
    f0 = F(point)
    once = max(time.monotonic() - started, 1e-6)
    sizes = {n: point[n].size for n in job.wrt}
    total = sum(sizes.values())
    allowance = job.fd_seconds
    elementwise = total <= FD_MAX_ELEMENTS and 2 * total * once <= allowance
    if not elementwise and 4 * once > allowance:
        return CheckResult("skipped", "none", None,
                           f"{reason}; one run of the program takes {once:.3g} s, too long "
                           "for finite differences")
    rng = np.random.default_rng(0)
    entries: list[_Entry] = []
    directions: list[tuple[str, dict[str, np.ndarray], float]] = []
    if elementwise:
        for n in job.wrt:
            for k, idx in enumerate(np.ndindex(*point[n].shape)):
                d = {m: np.zeros(point[m].shape) for m in job.wrt}
                d[n].reshape(-1)[k] = 1.0
                x = float(point[n][idx]) if point[n].ndim else float(point[n])
                step = FD_STEP * max(1.0, abs(x))
                step = (x + step) - x
                directions.append((_label(n, idx), d, step))
    else:
        count = int(min(FD_DIRECTIONS, max(2, allowance // (2 * once))))
        scale = max([1.0] + [float(np.max(np.abs(point[n]))) for n in job.wrt if sizes[n]])
        for i in range(count):
            d = {n: rng.standard_normal(point[n].shape) for n in job.wrt}
            norm = math.sqrt(sum(float(np.sum(v * v)) for v in d.values())) or 1.0
            d = {n: v / norm for n, v in d.items()}
            directions.append((f"random direction {i + 1}", d, FD_STEP * scale))
    rows = _row_labels(job)

    def shifted(d: dict[str, np.ndarray], t: float) -> np.ndarray:
        return F({n: point[n] + t * d[n] for n in job.wrt})

    for label, d, step in directions:
        plus, minus = shifted(d, step), shifted(d, -step)
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
                FD_ABS_TOL + FD_REL_TOL * np.maximum(np.abs(predicted), np.abs(central))
                + rounding)
        if np.any(off & ~kink):
            # a jump (e.g. the gradient at a tie of maximum) makes the quotient scale with
            # 1/step: compare with a quarter step before calling it a mismatch
            small = step / 4
            with np.errstate(all="ignore"):
                refined = (shifted(d, small) - shifted(d, -small)) / (2 * small)
                jump = ~(np.abs(refined - central) <= 1e-3 * (1 + np.abs(central))
                         + 40 * rounding)
            kink = kink | (jump & np.isfinite(central))
        for r in range(central.size):
            name = rows[r].replace("{}", label) if rows else label
            excuse = None
            if kink[r]:
                excuse = ("kink", "one-sided differences disagree (the tape gives "
                                  f"{float(predicted[r]):.10g})")
            entries.append(_Entry(name, float(predicted[r]), float(central[r]), None,
                                  float(rounding[r]), excuse))
    how = ("central finite differences" if elementwise else
           f"central finite differences along {len(directions)} random directions")
    result, _ = _verdict(entries, "finite-difference", "finite differences", FD_ABS_TOL,
                         FD_REL_TOL)
    prefix = f"{reason}; checked by {how}"
    result.detail = prefix if result.detail is None else f"{prefix}; {result.detail}"
    return result


def _row_labels(job: _Job) -> list[str]:
    """Per row of F, a label with '{}' where the perturbed input goes."""
    if job.kind == "jacobian":
        return [f"d{_label(job.of, idx)}/d{{}}" for idx in np.ndindex(*job.output.shape)]
    if job.kind == "hessian":
        return [f"d²{job.of}/d{_label(n, idx)}d{{}}" for n in job.wrt
                for idx in np.ndindex(*job.inputs[n].shape)]
    return []


def _dot(m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """m (rows x d.size) times d, skipping d's zeros (so a nan elsewhere stays out)."""
    used = np.flatnonzero(d)
    return m[:, used] @ d.ravel()[used]


def _predict(job: _Job, d: dict[str, np.ndarray]) -> np.ndarray:
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
