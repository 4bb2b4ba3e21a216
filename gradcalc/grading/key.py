"""An answer key: one row per problem, read once, so a class's submissions need only say
which problem each answer is for.

Columns: `problem,function` and optionally `wrt, order, partial, kind, implicit,
constant, shape, rtol, atol, points, at, steps`; header names as `gradcalc.tables.headers`
matches them. A problem's `points` is its maximum score (default 1); `rtol`/`atol` replace
the command's tolerances for that problem; `steps` (yes/no) shows the problem's worked
solution in each answer's feedback (a verdict line, a Gradescope result). The kind
columns (`gradcalc.homework.kinds.columns`) say what the problem asks for: the N-th
derivative, a mixed partial, a value at a point, dy/dx of an equation, an
antiderivative, a tensor gradient.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gradcalc.errors import GradcalcError
from gradcalc.homework.kinds.columns import kind_of
from gradcalc.homework.kinds.registry import COLUMNS, PLAIN, Kind
from gradcalc.tables.headers import Sheet, read_table, source_of

#: the key's columns: required, then optional
REQUIRED = ("problem", "function")
OPTIONAL = ("wrt", "rtol", "atol", "points", "steps", *COLUMNS)
#: a steps cell's texts
YES, NO = ("true", "yes", "y", "1"), ("false", "no", "n", "0", "")
#: the most problems in one key
MAX_PROBLEMS = 10_000


@dataclass(frozen=True)
class Problem:
    """One problem of the key: its function, how to judge it and what it is worth."""

    name: str
    function: str
    wrt: str = ""
    rtol: float | None = None
    atol: float | None = None
    points: float = 1.0
    line: int = 0
    kind: Kind = PLAIN  # what the problem asks for (the kind columns)
    steps: bool = False  # show the worked solution in the feedback


@dataclass
class Key:
    problems: dict[str, Problem]
    source: str
    lower: dict[str, Problem] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lower = {n.lower(): p for n, p in self.problems.items()}

    @property
    def names(self) -> list[str]:
        return list(self.problems)

    @property
    def max_points(self) -> float:
        return sum(p.points for p in self.problems.values())

    def find(self, name: str) -> Problem:
        problem = self.problems.get(name.strip()) or self.lower.get(name.strip().lower())
        if problem is None:
            shown = ", ".join(self.names[:10]) + (", ..." if len(self.names) > 10 else "")
            raise GradcalcError(f"problem {name.strip()!r} is not in the key "
                                f"({self.source}: {shown})", kind="input")
        return problem


def _number(text: str, what: str, where: str, positive: bool = False) -> float | None:
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise GradcalcError(f"{where}: {what} {text.strip()!r} is not a number",
                            kind="usage") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise GradcalcError(f"{where}: {what} must be a finite number "
                            f"{'above' if positive else 'at least'} 0, not {text.strip()}",
                            kind="usage")
    return value


def _steps(text: str, where: str) -> bool:
    cell = text.strip().lower()
    if cell not in YES + NO:
        raise GradcalcError(f"{where}: steps {text.strip()!r}: give yes or no", kind="usage")
    return cell in YES


def load_key(file: str) -> Key:
    """The key in FILE (a CSV); GradcalcError (exit 2) on anything wrong with it."""
    return key_from(read_table(file, "key", REQUIRED, OPTIONAL, "the answer key"))


def key_from(table: Sheet) -> Key:
    source = source_of(table)
    problems: dict[str, Problem] = {}
    seen: dict[str, Problem] = {}
    for row in table.rows:
        where = f"{source}, line {row.line}"
        if row.overflow:
            raise GradcalcError(f"{where}: the row has more cells than the header",
                                kind="usage")
        name, function = row.get("problem").strip(), row.get("function").strip()
        if not name or not function:
            raise GradcalcError(f"{where}: the {'problem' if not name else 'function'} is "
                                "empty", kind="usage")
        twin = seen.get(name.lower())
        if twin is not None:
            raise GradcalcError(f"{where}: problem {name!r} is in the key twice (first on "
                                f"line {twin.line})", kind="usage")
        kind = kind_of({c: row.get(c) for c in COLUMNS}, where)
        points = _number(row.get("points"), "points", where, positive=True)
        problems[name] = Problem(
            name, function, row.get("wrt").strip(),
            _number(row.get("rtol"), "rtol", where), _number(row.get("atol"), "atol", where),
            1.0 if points is None else points, row.line, kind, _steps(row.get("steps"), where))
        seen[name.lower()] = problems[name]
        if len(problems) > MAX_PROBLEMS:
            raise GradcalcError(f"{source} has over {MAX_PROBLEMS:,} problems", kind="limit")
    if not problems:
        raise GradcalcError(f"{source} has no problems: one row per problem under the "
                            "header problem,function", kind="usage")
    return Key(problems, source)
