"""A verdict's receipt: everything that decided it, so anyone can judge it again later.

The receipt names gradcalc's version, both texts as given, the inputs differentiated, the
settings (seed, samples, tolerances, proof), the method, and at every sampled point both
sides' values. `settings_of` reads the settings back for a replay.
"""

from __future__ import annotations

import math
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.verify.homework.judge import Settings, Verdict


def _number(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def receipt(function: str, answer: str, wrt: list[str] | None, settings: Settings,
            verdict: Verdict | None = None) -> dict[str, Any]:
    """The receipt of one judgement (without a verdict: of a row that could not be read)."""
    from gradcalc import __version__

    out: dict[str, Any] = {
        "version": __version__, "function": function, "answer": answer,
        "wrt": list(wrt) if wrt else None, "seed": settings.seed,
        "samples": settings.samples, "rtol": settings.rtol, "atol": settings.atol,
        "prove": settings.prove}
    if verdict is not None:
        values = verdict.values or {}
        expected, answered = values.get("expected", []), values.get("answer", [])
        out["method"] = verdict.method
        out["points"] = [{"at": {n: _number(x) for n, x in at.items()},
                          "expected": [_number(x) for x in expected[k]] if k < len(expected)
                          else None,
                          "answer": [_number(x) for x in answered[k]] if k < len(answered)
                          else None}
                         for k, at in enumerate(verdict.points)]
    return out


def settings_of(rec: dict[str, Any]) -> Settings:
    """The settings a receipt was judged with; GradcalcError when it does not say."""
    try:
        settings = Settings(rtol=float(rec["rtol"]), atol=float(rec["atol"]),
                            samples=int(rec["samples"]), seed=int(rec["seed"]),
                            prove=bool(rec.get("prove", False)))
    except (KeyError, TypeError, ValueError) as exc:
        raise GradcalcError(f"the receipt has no valid {exc}", kind="usage") from None
    if not (1 <= settings.samples <= 1000 and settings.rtol >= 0 and settings.atol >= 0):
        raise GradcalcError("the receipt's settings are out of range", kind="usage")
    return settings
