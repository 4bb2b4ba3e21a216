"""One answer judged as its kind asks, and its worked solution: the kind's module, found
in the registry.

Each kind of problem names its module (`gradcalc.homework.kinds.registry.KINDS`); that
module's `judge` decides and its solver (`solve`) writes the worked solution. Every
kind's answer is judged with its notation traps read both ways (`traps.judged`): the
module's `reading` says how it reads the two texts (else `traps.read_sides`), and its
`judge` decides on each reading (a reading that holds the problem read is handed to it,
`problem=`, so that it is not read twice). The module
is imported when a problem of its kind is first judged, so a class of derivatives never
loads the tensor or implicit judges, and a new kind is its module plus its registry
entry, with nothing to add here.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.registry import KINDS, PLAIN, Kind, ProblemKind, kind_of
from gradcalc.homework.traps import Reading, judged, read_sides
from gradcalc.limits import DEFAULT_LIMITS, Limits

DEFAULT_SETTINGS = Settings()


def module_of(entry: ProblemKind) -> ModuleType:
    """The module that judges problems of kind `entry`."""
    return importlib.import_module(f"gradcalc.homework.kinds.{entry.module}")


def check(function: str, answer: str, wrt: list[str] | None, kind: Kind = PLAIN,
          settings: Settings = DEFAULT_SETTINGS, limits: Limits = DEFAULT_LIMITS,
          wrt_from: str = "--wrt") -> Verdict:
    """The verdict on one answer of the given kind, with a note when another reading of
    a notation trap would change it; GradcalcError when a text cannot be read or the
    settings do not fit the function."""
    module = module_of(kind_of(kind))

    def read(f: str, a: str) -> Reading:
        return reading(f, a, wrt, kind, limits, wrt_from)

    def decide(f: str, a: str, reading: Reading | None) -> Verdict:
        given = {"problem": reading.problem} if reading and reading.problem else {}
        return module.judge(f, a, wrt, kind, settings, limits, wrt_from, **given)

    return judged(function, answer, read, decide)


def reading(function: str, answer: str, wrt: list[str] | None, kind: Kind = PLAIN,
            limits: Limits = DEFAULT_LIMITS, wrt_from: str = "--wrt") -> Reading:
    """How the kind reads the two texts (its module's `reading`, else `read_sides`), with
    the problem it decides on when it has one."""
    own = getattr(module_of(kind_of(kind)), "reading", None)
    if own is not None:
        return own(function, answer, wrt, kind, limits, wrt_from)
    return read_sides(function, answer, wrt, limits)


def solve(function: str, wrt: list[str] | None, kind: Kind = PLAIN,
          settings: Settings = DEFAULT_SETTINGS, limits: Limits = DEFAULT_LIMITS,
          wrt_from: str = "--wrt", answer: str | None = None) -> Any:
    """The worked solution of a problem of the given kind (`answer`, when there is one,
    is read too, for what it says of the problem: `∂f/∂y =` picks y)."""
    key = (function, tuple(wrt or ()), kind, settings, limits, wrt_from, answer)
    if key not in _SOLVED:
        entry = kind_of(kind)
        while len(_SOLVED) >= SOLVED_KEPT:
            del _SOLVED[next(iter(_SOLVED))]
        _SOLVED[key] = getattr(module_of(entry), entry.solver)(function, wrt, kind, settings,
                                                               limits, wrt_from, answer)
    return _SOLVED[key]


#: worked solutions already written (a class's rows of one problem share one), at most
#: SOLVED_KEPT; a solution is never changed once written
_SOLVED: dict[tuple, Any] = {}
SOLVED_KEPT = 256


def forget() -> int:
    """Empty what every kind keeps between rows (a benchmark's cold start): the functions'
    formulas and what hangs on them (`judge.forget_formulas`) and what each kind's module
    keeps (its `forget`, where it has one); how many entries were kept."""
    from gradcalc.homework.judge import forget_formulas

    kept = forget_formulas() + len(_SOLVED)
    _SOLVED.clear()
    for entry in KINDS:
        forgets = getattr(module_of(entry), "forget", None)
        kept += forgets() if forgets else 0
    return kept
