"""A verdict's receipt: everything that decided it, so anyone can judge it again later.

The receipt names gradcalc's version, both texts as given, the inputs differentiated, the
settings (seed, samples, tolerances, proof), the method, and at every sampled point both
sides' values; for a problem beyond the first derivative, its kind (order, partial, at,
implicit, antiderivative, constant, shape, integers, domain: the registry's settings, by
name). A row of a parametrised problem adds its variant (`variant`: the problem, the
student, the term's seed, the values drawn, the key's template and params; its function
is the variant's text) and a problem with the teacher's hints adds them as put on the
variant (`hints`), so that a replay can draw the variant and fire the hints again.
`settings_of` and `kind_of` read them back for a replay.
"""

from __future__ import annotations

import math
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import PLAIN, SETTING, Kind


def _number(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def _numbers(x: Any) -> Any:
    """Values (nested lists for a tensor's entries) with nan and inf as text."""
    if isinstance(x, (list, tuple)):
        return [_numbers(y) for y in x]
    return _number(float(x))


def receipt(function: str, answer: str, wrt: list[str] | None, settings: Settings,
            verdict: Verdict | None = None, kind: Kind = PLAIN) -> dict[str, Any]:
    """The receipt of one judgement (without a verdict: of a row that could not be read)."""
    from gradcalc import __version__

    out: dict[str, Any] = {
        "version": __version__, "function": function, "answer": answer,
        "wrt": list(wrt) if wrt else None, "seed": settings.seed,
        "samples": settings.samples, "rtol": settings.rtol, "atol": settings.atol,
        "prove": settings.prove}
    if not kind.plain:
        out["kind"] = kind.as_json()
    if verdict is not None:
        values = verdict.values or {}
        expected, answered = values.get("expected", []), values.get("answer", [])
        out["method"] = verdict.method
        out["points"] = [{"at": {n: _numbers(x) for n, x in at.items()},
                          "expected": _numbers(expected[k]) if k < len(expected) else None,
                          "answer": _numbers(answered[k]) if k < len(answered) else None}
                         for k, at in enumerate(verdict.points)]
    return out


def with_variant(rec: dict[str, Any], variant: dict[str, Any] | None,
                 hints: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A row's receipt: its verdict's, with the student's variant and the hints (each
    only when there is one), last."""
    if variant is None and hints is None:
        return rec
    out = dict(rec)
    if variant is not None:
        out["variant"] = variant
    if hints is not None:
        out["hints"] = hints
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


def kind_of(rec: dict[str, Any]) -> Kind:
    """The kind of problem a receipt was judged as (the first derivative when it names
    none); GradcalcError when it cannot be read."""
    saved = rec.get("kind")
    if saved is None:
        return PLAIN
    if not isinstance(saved, dict) or not set(saved) <= set(SETTING):
        raise GradcalcError("the receipt's kind is not valid", kind="usage")
    try:
        return Kind.from_json(saved)
    except (AttributeError, TypeError, ValueError) as exc:
        raise GradcalcError(f"the receipt's kind is not valid ({exc})", kind="usage") from None

