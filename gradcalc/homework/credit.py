"""Partial credit: a list answer judged entry by entry.

An entry is wrong when the answer and the derivative differ there at some valid point
beyond the tolerances, the difference confirmed in 30-digit arithmetic as for the whole
verdict (a float64 mismatch that is rounding does not count). The score is the share of
right entries; a wrong shape scores 0, a correct answer 1, an undetermined one nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.homework import proof

#: mismatching points confirmed in exact arithmetic per entry, at most
MAX_CONFIRM = 2


def index(i: int, shape: tuple[int, ...]) -> list[int]:
    """Entry i (row-major) as its index in the answer's shape."""
    return [int(j) for j in np.unravel_index(i, shape)] if shape else []


def wrong_entries(points: dict[str, np.ndarray], expected: list[np.ndarray],
                  answer: list[np.ndarray], d_exprs: list, a_exprs: list, rtol: float,
                  atol: float, known: int | None = None) -> list[bool]:
    """Per entry: whether it is wrong (a confirmed mismatch at some point); entry `known`
    is already confirmed wrong (its mismatch is not confirmed again)."""
    exact = bool(a_exprs) and len(a_exprs) == len(d_exprs) == len(answer)
    out = []
    for i, (a, e) in enumerate(zip(answer, expected, strict=True)):
        if i == known:
            out.append(True)
            continue
        with np.errstate(all="ignore"):
            bad = np.flatnonzero(~(np.abs(a - e) <= atol + rtol * np.maximum(np.abs(a),
                                                                              np.abs(e))))
        wrong = False
        for k in bad[:MAX_CONFIRM]:
            pt = {n: float(v[k]) for n, v in points.items()}
            differs = (proof.differ_exactly(d_exprs[i], a_exprs[i], pt, rtol, atol)
                       if exact else None)
            if differs is not False:
                wrong = True
                break
        out.append(wrong)
    return out


def entries(wrong: list[bool], shape: tuple[int, ...], labels: list[str]
            ) -> tuple[list[dict[str, Any]] | None, float]:
    """(the entries' verdicts, or None for a one-entry answer; the score)."""
    score = (len(wrong) - sum(wrong)) / len(wrong) if wrong else 0.0
    if len(wrong) < 2:
        return None, score
    return [{"index": index(i, shape), "of": labels[i] if i < len(labels) else "",
             "verdict": "incorrect" if w else "correct"} for i, w in enumerate(wrong)], score


def labels(kind: str, wrt: tuple[str, ...], paths: tuple[tuple[str, ...], ...] | None,
           shape: tuple[int, ...]) -> list[str]:
    """What each entry is the derivative of, e.g. d/dy, row 2 d/dx, f_xy."""
    cols = [("f_" + "".join(p) if all(len(n) == 1 for n in p) else "f_" + ",".join(p))
            if len(p) > 1 else f"d/d{p[0]}" for p in paths] if paths else [
                f"d/d{w}" for w in wrt]
    if kind == "jacobian":
        return [f"row {r + 1} {c}" for r in range(shape[0]) for c in cols]
    return cols
