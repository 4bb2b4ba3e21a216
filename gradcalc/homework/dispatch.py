"""One answer judged as its kind asks, and its worked solution: the kind's module, found
in the catalog.

Each kind of problem (`gradcalc.homework.kinds.registry.KINDS`) has its module in
`gradcalc.homework.kinds.catalog`; that module's `judge` decides, its `solve` writes the
worked solution and its `prompt` says what a sheet asks. Every
kind's answer is judged with its notation traps read both ways (`traps.judged`): the
module's `reading` says how it reads the two texts (else `traps.read_sides`), and its
`judge` decides on each reading (a reading that holds the problem read is handed to it,
`problem=`, so that it is not read twice). The module
is registered as an object: a new kind is its module plus its entry in the registry and
the catalog, with nothing to add here.
"""

from __future__ import annotations

from typing import Any

from gradcalc.homework.judge import Settings, Verdict
from gradcalc.homework.kinds.catalog import module_of
from gradcalc.homework.kinds.registry import KINDS, PLAIN, Kind, kind_of
from gradcalc.homework.traps import Reading, judged, read_sides
from gradcalc.limits import DEFAULT_LIMITS, Limits

DEFAULT_SETTINGS = Settings()


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
        _SOLVED[key] = module_of(entry).solve(function, wrt, kind, settings, limits,
                                              wrt_from, answer)
    return _SOLVED[key]


def prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What a sheet asks for a problem of this kind, in the judge's notation for the
    answer (`asked`: "f'(x)", "∂L/∂W", "dy/dx")."""
    return str(module_of(kind_of(kind)).prompt(kind, asked, wrt))


def hint_problem(kind: Kind, answer: str, foreseen: str, wrt: tuple[str, ...], t: str
                 ) -> tuple[str, str, list[str], Kind] | None:
    """The problem whose correct answer says that a student's `answer` is a hint's
    `foreseen` one (the kind's `hint_problem`: function, answer, wrt, kind; `t` a name
    neither uses), or None for the derivative's way (t·foreseen, differentiated in t)."""
    own = getattr(module_of(kind_of(kind)), "hint_problem", None)
    return None if own is None else own(kind, answer, foreseen, wrt, t)


def hint_same(kind: Kind, answer: str, foreseen: str, settings: Settings,
              limits: Limits = DEFAULT_LIMITS) -> bool | None:
    """Whether a student's `answer` is a hint's `foreseen` one, as the kind decides it
    itself (its module's `hint_same`: two lines are one line), or None when the kind
    judges it as a problem (`hint_problem`)."""
    own = getattr(module_of(kind_of(kind)), "hint_same", None)
    return None if own is None else bool(own(kind, answer, foreseen, settings, limits))


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


def departure(kind: Kind, solution: Any, answer: str, limits: Limits) -> Any:
    """A wrong answer's departure from the worked solution, where the kind's module marks
    one beyond a located misconception (its `departure`); else the solution unchanged."""
    own = getattr(module_of(kind_of(kind)), "departure", None)
    return solution if own is None else own(solution, answer, limits)
