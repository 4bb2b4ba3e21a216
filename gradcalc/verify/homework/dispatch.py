"""One answer judged as its kind asks: the module of each kind, chosen here.

The kinds' modules (order.py, implicit.py, antiderivative.py, tensors.py) sit below this
one and import only `Kind` (kinds.py, data); so imports go one way, and a caller that
knows only the settings (the command line, a class file, a batch) asks here.
"""

from __future__ import annotations

from dataclasses import replace

from gradcalc.limits import DEFAULT_LIMITS, Limits
from gradcalc.verify.homework import antiderivative, implicit, order, tensors
from gradcalc.verify.homework.judge import Settings, Verdict, judge
from gradcalc.verify.homework.kinds import PLAIN, Kind

DEFAULT_SETTINGS = Settings()


def check(function: str, answer: str, wrt: list[str] | None, kind: Kind = PLAIN,
          settings: Settings = DEFAULT_SETTINGS, limits: Limits = DEFAULT_LIMITS) -> Verdict:
    """The verdict on one answer of the given kind; GradcalcError when a text cannot be
    read or the settings do not fit the function."""
    if kind.implicit:
        return implicit.judge_implicit(function, answer, kind, settings, limits)
    if kind.antiderivative:
        return antiderivative.judge_antiderivative(function, answer, wrt, kind, settings,
                                                   limits)
    if kind.shape:
        return tensors.judge_tensor(function, answer, wrt, kind, settings, limits)
    problem = order.read(function, answer, wrt, kind, limits)
    if problem.pinned and len(problem.pinned) == len(problem.inputs):
        settings = replace(settings, samples=1)
    verdict = judge(problem, settings, limits)
    verdict.read = order.relabel(verdict.read, problem)
    return verdict


def forget() -> int:
    """Empty what every kind keeps between rows (a benchmark's cold start): the functions'
    formulas and what hangs on them (`judge.forget_formulas`) and the implicit equations'
    points and formulas; how many entries were kept."""
    from gradcalc.verify.homework.judge import forget_formulas

    return forget_formulas() + implicit.forget()
