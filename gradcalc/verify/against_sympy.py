"""The symbolic check: the program runs on sympy along the numeric run's path, sympy
differentiates, and each entry is compared with the tape's. At kinks and singular points
where the two conventions differ (sympy's nan where PyTorch defines a value), an entry is
skipped with the reason, never a false `fail`; a mismatch gets a second look at 40 digits
before it counts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from gradcalc.verify import memo
from gradcalc.verify.compare import ABS_TOL, REL_TOL, Entry, Excuse, differ, label, verdict
from gradcalc.verify.result import CheckResult
from gradcalc.verify.tape_check import TapeCheck

EPS = float(np.finfo(np.float64).eps)
RANGE_EXCUSE = ("float64 range", "an intermediate value underflows or overflows float64 "
                "there (sympy's numbers have no such limit)")
UNDEFINED_EXCUSE = ("undefined point", "the output is not finite there, so any derivative "
                    "is a convention")
INFINITE_EXCUSE = ("infinite input", "the input is ±inf there, where a derivative is a "
                   "convention (sympy's formula, simplified, may have a finite limit)")


class _ShapeFail(Exception):
    """The tape's result does not have the derivative's shape."""


def symbolic_check(job: TapeCheck) -> CheckResult:
    """The symbolic check of `job` (sympy's budget and time errors propagate)."""
    comparison = _Comparison(job)
    try:
        if job.kind == "hessian":
            comparison.hessian()
        else:
            comparison.derivatives()
    except _ShapeFail as exc:
        return CheckResult("fail", "symbolic", None, str(exc))
    return comparison.result()


class _Comparison:
    """The sympy side of one check, and the entries compared so far."""

    def __init__(self, job: TapeCheck) -> None:
        from gradcalc.backends import symbolic as sym
        from gradcalc.backends import symbolic_derivatives as symd

        self.sym, self.symd, self.job = sym, symd, job
        kinks: list[tuple[str, frozenset]] = []
        self.out, self.symbols = sym.symbolic_output(
            job.program, job.inputs, job.wrt, job.constants, job.of, job.path, job.limits,
            kinks=kinks)
        self.budget = sym.SymbolicBackend(job.limits)
        self.budget.spend(sum(s.size for s in self.symbols.values()))  # the inputs, as run
        self.subs = symd.point_subs(self.symbols, {n: job.inputs[n] for n in job.wrt})
        self.forward, _ = symd.evaluate_array(self.out, self.subs)
        self.on_kink = frozenset().union(*(k[1] for k in kinks))
        self.kink_excuse = ("kink", "the point is on a kink of "
                            + ", ".join(sorted({k[0] for k in kinks}))
                            + ", where the tape's convention has no symbolic counterpart")
        self.precise: dict[Any, Any] = {}
        self.entries: list[Entry] = []
        self.texts: dict[str, Any] = {}

    def second_look(self, t: float, o: float, expr: Any) -> tuple[float, Excuse | None]:
        """A mismatch: sympy again with 40 digits (its float64-precision value may be the
        inaccurate one), then float64's range and rounding as excuses."""
        symd = self.symd
        if not self.precise:
            self.precise.update(symd.point_subs(
                self.symbols, {n: self.job.inputs[n] for n in self.job.wrt}, 40))
        exact, _ = symd.evaluate_expr(expr, self.precise, 40)
        if math.isfinite(exact) and not differ(t, exact):
            return exact, None
        if expr.is_Add and math.isfinite(exact):
            # a sum that cancels: float64 can only be as close as its largest terms allow
            terms = [abs(symd.evaluate_expr(a, self.subs)[0]) for a in expr.args]
            scale = math.fsum(x for x in terms if math.isfinite(x))
            if abs(t - exact) <= 64 * EPS * scale:
                return exact, ("rounding", "the derivative is a sum that cancels to "
                                           f"{exact:.3g} from terms of size {scale:.3g}, "
                                           "below float64's resolution")
        if symd.leaves_float64_range(expr, self.subs) or any(
                symd.leaves_float64_range(e, self.subs) for e in self.out.flat):
            return o, RANGE_EXCUSE
        if math.isfinite(exact) and differ(o, exact):
            return exact, ("ill-conditioned point",
                           f"float64 rounding dominates there (sympy at float64 precision "
                           f"gives {o:.10g}, exactly {exact:.10g})")
        return (exact if math.isfinite(exact) else o), None

    def add(self, label_of: Callable[[tuple], str], tape: np.ndarray, exprs: np.ndarray,
            symbols_of: Callable[[tuple], set], nan_of: Callable[[tuple], bool]) -> None:
        """Compare an array of sympy derivatives with the tape's, entry by entry."""
        values, reasons = self.symd.evaluate_array(exprs, self.subs)
        tape = np.broadcast_to(tape, values.shape) if tape.shape != values.shape else tape
        for idx in np.ndindex(*values.shape):
            name = label_of(idx)
            excuse = None
            if nan_of(idx):
                excuse = UNDEFINED_EXCUSE
            elif any(_infinite(self.subs.get(s)) for s in symbols_of(idx)):
                excuse = INFINITE_EXCUSE
            elif self.on_kink & symbols_of(idx):
                excuse = self.kink_excuse
            t, o = float(tape[idx]), float(values[idx])
            if excuse is None and differ(t, o):
                o, excuse = self.second_look(t, o, exprs[idx])
            self.entries.append(Entry(name, t, o, reasons[idx], excuse=excuse))
            self.texts[name] = exprs[idx]

    def hessian(self) -> None:
        job, out, symbols = self.job, self.out, self.symbols
        if out.size != 1:
            raise _ShapeFail(f"the output has shape {out.shape}; a Hessian needs a scalar")
        undefined = not bool(np.isfinite(job.output).all())
        blocks = memo.derivatives("hessian", self.symd.hessian_exprs, out.reshape(()),
                                  symbols, self.budget.spend)
        for key, block in self.on_the_tape(blocks, lambda key: f"Hessian block {key}"):
            a, b = key
            sa = symbols[a].ndim
            self.add(lambda idx, a=a, b=b, sa=sa: (
                f"d²{job.of}/d{label(a, idx[:sa])}d{label(b, idx[sa:])}"),
                job.tape[key], block,
                lambda idx, a=a, b=b, sa=sa: {symbols[a][idx[:sa]], symbols[b][idx[sa:]]},
                lambda idx: undefined)

    def on_the_tape(self, found: dict[Any, np.ndarray], what: Callable[[Any], str]
                    ) -> Iterator[tuple[Any, np.ndarray]]:
        """sympy's derivatives that the tape has too, each of the tape's shape (else a
        _ShapeFail naming `what(key)`)."""
        tape = self.job.tape
        for key, block in found.items():
            if key not in tape:
                continue
            if tape[key].shape != block.shape:
                raise _ShapeFail(f"{what(key)} has shape {tape[key].shape}, expected "
                                 f"{block.shape}")
            yield key, block

    def target(self) -> tuple[np.ndarray, np.ndarray]:
        """What is differentiated (the output, or the weighted sum of a vjp), and where the
        output is not finite (per row of the target)."""
        job, out = self.job, self.out
        nan_rows = ~np.isfinite(np.broadcast_to(job.output, out.shape))
        if job.kind == "vjp":
            if job.weights.shape != out.shape:
                raise _ShapeFail(f"weights have shape {job.weights.shape}; the output has "
                                 f"shape {out.shape}")
            target = np.empty((), dtype=object)
            pairs = zip(job.weights.flat, out.flat, strict=True)
            to_sympy = self.sym.to_sympy
            target[()] = sum((to_sympy(w) * e for w, e in pairs if w != 0), start=to_sympy(0.0))
            return target, np.array(bool((nan_rows & (job.weights != 0)).any()))
        if job.kind == "gradient":
            if out.size != 1:
                raise _ShapeFail(f"the output has shape {out.shape}; a gradient needs a "
                                 "scalar (or weights)")
            return out.reshape(()), nan_rows.reshape(())
        return out, nan_rows

    def derivatives(self) -> None:
        job, symbols = self.job, self.symbols
        target, nan_rows = self.target()
        no = target.ndim
        exprs = memo.derivatives("first", self.symd.derivative_exprs, target, symbols,
                                 self.budget.spend)
        for name, d in self.on_the_tape(exprs, lambda name: f"the derivative for {name}"):
            if job.kind == "jacobian":
                def label_of(idx: tuple, name: str = name) -> str:
                    return f"d{label(job.of, idx[:no])}/d{label(name, idx[no:])}"
            else:
                def label_of(idx: tuple, name: str = name) -> str:
                    return label(name, idx)
            self.add(label_of, job.tape[name], d,
                     lambda idx, name=name: {symbols[name][idx[no:]]},
                     lambda idx: bool(nan_rows[idx[:no]]))

    def result(self) -> CheckResult:
        result, worst = verdict(self.entries, "symbolic", "sympy", ABS_TOL, REL_TOL)
        if worst in self.texts:
            result.detail = (f"{result.detail}; sympy's derivative there: "
                             f"{self.symd.expression_text(self.texts[worst], 80)}")
        note = _forward_note(self.job.output, self.forward)
        if note and result.status == "fail":
            # sympy's form is not the tape's function here (z/cos(atan2(x, z)) at z = 0 is
            # 0/0 on the tape, √(x² + z²) once sympy simplifies): no derivative to compare
            result.status = "skipped"
            result.detail = (f"sympy's form of the output is not the tape's here, so its "
                             f"derivative is not compared ({note}): {result.detail}")
        elif note:
            result.detail = note if result.detail is None else f"{result.detail}; {note}"
        return result


def _infinite(value: Any) -> bool:
    """Whether an input's value at the point is ±inf."""
    try:
        return value is not None and math.isinf(float(value))
    except (TypeError, ValueError):
        return False


def _forward_note(tape: np.ndarray, sym: np.ndarray) -> str | None:
    """A note when sympy's value of the output differs from the tape's (e.g. rounding)."""
    tape = np.broadcast_to(tape, sym.shape) if tape.shape != sym.shape else tape
    bad = []
    for idx in np.ndindex(*sym.shape):
        t, s = float(tape[idx]), float(sym[idx])
        if math.isfinite(t) and math.isfinite(s) and differ(t, s):
            bad.append((idx, t, s))
    if not bad:
        return None
    _, t, s = bad[0]
    return (f"the output's value differs from sympy's at {len(bad)} entr"
            f"{'y' if len(bad) == 1 else 'ies'} (the tape gives {t:.17g}, sympy {s:.17g})")
