"""Higher and mixed derivatives of one entry at K points, on the tape.

A path such as ("x", "x") (f'') or ("x", "y") (f_xy: ∂/∂x, then ∂/∂y) is followed by
reverse sweeps that are themselves recorded (`create_graph`), each sweep differentiating
the previous one's result, so every order comes from the same tape rules that `grad`
uses. Formulas that `sample.vectorisable` accepts run for all K points at once (each
point's value depends on its own inputs only, so a seed of ones gives every point's
derivative); others point by point.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradcalc.backends.numeric import as_function
from gradcalc.engine import tape
from gradcalc.engine.functional import record, sweep
from gradcalc.engine.tensor import Tensor, as_array
from gradcalc.homework.problem import Entry
from gradcalc.homework.sample import _per_point, vectorisable
from gradcalc.language.program import RESULT_NAME
from gradcalc.limits import DEFAULT_LIMITS, Limits

Path = tuple[str, ...]


def along(entry: Entry, points: dict[str, np.ndarray], paths: tuple[Path, ...],
          limits: Limits = DEFAULT_LIMITS) -> dict[Path, np.ndarray]:
    """The derivative along each path at every point: path -> (K,)."""
    k = len(next(iter(points.values())))
    if vectorisable(entry.program):
        return _at_once(entry, points, paths, k, limits)
    parts = [_at_once(entry, {n: v[i:i + 1].reshape(()) for n, v in points.items()}, paths,
                      1, limits) for i in range(k)]
    return {p: np.concatenate([q[p] for q in parts]) for p in paths}


def _at_once(entry: Entry, points: dict[str, Any], paths: tuple[Path, ...], k: int,
             limits: Limits) -> dict[Path, np.ndarray]:
    names = list(dict.fromkeys(n for p in paths for n in p))
    rest = {n: v for n, v in points.items() if n not in names}
    f, _ = as_function(entry.program, names, rest, of=RESULT_NAME, limits=limits)
    leaves = [Tensor(as_array(np.asarray(points[n], dtype=np.float64)), requires_grad=True)
              for n in names]
    out: dict[Path, np.ndarray] = {}
    with np.errstate(all="ignore"):
        top, t = record(f, leaves)
        with tape.recording(onto=t):
            for path in paths:
                g: Any = top
                for n in path:
                    value = np.asarray(g.value if isinstance(g, Tensor) else g)
                    if not isinstance(g, Tensor) or g.node is None:
                        g = np.zeros(value.shape)
                        continue
                    g = sweep(g, np.ones(value.shape), leaves, create_graph=True,
                              on=t)[names.index(n)]
                raw = np.asarray(g.value if isinstance(g, Tensor) else g, dtype=np.float64)
                out[path] = _per_point(raw, k)
    return out
