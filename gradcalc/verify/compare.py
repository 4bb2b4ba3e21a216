"""Comparing the tape's entries with another method's (sympy, finite differences) and the
verdict: pass, fail, or skipped where the two conventions differ (kinks, singular points)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gradcalc.verify.result import CheckResult

#: symbolic comparison: |tape - sympy| <= ABS_TOL + REL_TOL * max(|tape|, |sympy|)
ABS_TOL, REL_TOL = 1e-9, 1e-7
#: entries named in a detail message
SHOWN = 3
#: reasons why the other side has a value that is not a plain number
NONREAL = ("complex", "complex infinity", "undefined")

Excuse = tuple[str, str]  # (category, text)


@dataclass
class Entry:
    """One compared entry: the tape's value and the other method's."""

    label: str
    tape: float
    other: float
    reason: str | None = None  # why the other side has no plain value
    tol_extra: float = 0.0
    excuse: Excuse | None = None  # what turns a mismatch into a skip


def label(name: str, idx: tuple) -> str:
    """x, or x[1,2] for an entry of an array."""
    return name if not idx else f"{name}[{','.join(str(i) for i in idx)}]"


def differ(t: float, o: float, atol: float = ABS_TOL, rtol: float = REL_TOL) -> bool:
    """Two finite values farther apart than the tolerance."""
    return (math.isfinite(t) and math.isfinite(o)
            and abs(t - o) > atol + rtol * max(abs(t), abs(o)))


def _agree_nonfinite(t: float, o: float) -> bool:
    if math.isnan(t) and math.isnan(o):
        return True
    return math.isinf(t) and math.isinf(o) and (t > 0) == (o > 0)


def _show(v: float, reason: str | None) -> str:
    if reason in NONREAL:
        return {"complex": "a complex value", "complex infinity": "complex infinity (zoo)",
                "undefined": "nan (undefined)"}[reason]
    if reason:
        return reason
    return "nan" if math.isnan(v) else f"{v:.10g}"


def _more(items: list) -> str:
    return f" (and {len(items) - SHOWN} more)" if len(items) > SHOWN else ""


def _entries(n: int) -> str:
    return f"entr{'y' if n == 1 else 'ies'}"


@dataclass
class _Sorted:
    """The entries by outcome."""

    max_err: float
    mismatches: list[tuple[float, Entry]]
    skipped: dict[Excuse, list[Entry]]
    rounding: dict[Excuse, list[Entry]]


def _sort(entries: list[Entry], other_name: str, atol: float, rtol: float) -> _Sorted:
    out = _Sorted(0.0, [], {}, {})
    for e in entries:
        t, o = e.tape, e.other
        if e.reason and e.reason not in NONREAL:
            why = ("kink", f"sympy's derivative has {e.reason} there, which has no value")
            out.skipped.setdefault(why, []).append(e)
            continue
        if math.isfinite(t) and math.isfinite(o):
            err = abs(t - o)
            if err > atol + rtol * max(abs(t), abs(o)) + e.tol_extra:
                if e.excuse and e.excuse[0] == "rounding":  # agreement as far as float64 goes
                    out.rounding.setdefault(e.excuse, []).append(e)
                elif e.excuse:
                    out.skipped.setdefault(e.excuse, []).append(e)
                    continue
                else:
                    out.mismatches.append((err, e))
            out.max_err = max(out.max_err, err)
            continue
        if not _agree_nonfinite(t, o):
            why = ("singular point", f"{other_name} gives {_show(o, e.reason)} where the tape "
                                     f"gives {_show(t, None)}")
            out.skipped.setdefault(why, []).append(e)
    return out


def _skip_detail(skipped: dict[Excuse, list[Entry]], checked: int) -> str:
    parts = []
    for (category, text), group in list(skipped.items())[:SHOWN]:
        names = ", ".join(e.label for e in group[:SHOWN])
        parts.append(f"{category} at {names}{_more(group)}: {text}")
    rest = sum(len(g) for g in list(skipped.values())[SHOWN:])
    if rest:
        parts.append(f"{rest} more singular or kink {_entries(rest)}")
    detail = "; ".join(parts)
    if any(category in ("kink", "singular point") for category, _ in skipped):
        detail += "; the tape follows PyTorch's convention there"
    if checked:
        detail += f"; the other {checked} {_entries(checked)} agree"
    return detail


def verdict(entries: list[Entry], method: str, other_name: str, atol: float,
            rtol: float) -> tuple[CheckResult, str | None]:
    """pass / fail / skipped from compared entries, and the label of the worst mismatch;
    max_abs_error over finite pairs.

    A finite mismatch fails unless the entry carries an excuse (a kink, an undefined
    point); a non-finite value on one side only is a singular point: skipped, not failed.
    """
    s = _sort(entries, other_name, atol, rtol)
    n_skipped = sum(len(v) for v in s.skipped.values())
    if s.mismatches:
        s.mismatches.sort(key=lambda p: -p[0])
        err, e = s.mismatches[0]
        more = f" (and {len(s.mismatches) - 1} more)" if len(s.mismatches) > 1 else ""
        detail = (f"mismatch at {e.label}: the tape gives {e.tape:.10g}, {other_name} gives "
                  f"{e.other:.10g} (difference {err:.3g}){more}")
        if n_skipped:
            detail += f"; {n_skipped} singular or kink {_entries(n_skipped)} skipped"
        return CheckResult("fail", method, s.max_err, detail), e.label
    if s.skipped:
        checked = len(entries) - n_skipped
        return CheckResult("skipped", method, s.max_err if checked else None,
                           _skip_detail(s.skipped, checked)), None
    if s.rounding:
        (_, text), group = next(iter(s.rounding.items()))
        names = ", ".join(e.label for e in group[:SHOWN])
        return CheckResult("pass", method, s.max_err,
                           f"agrees within float64 rounding at {names}{_more(group)}: {text}"
                           ), None
    return CheckResult("pass", method, s.max_err, None), None
