"""An answer key: one row per problem, read once, so a class's submissions need only say
which problem each answer is for.

Columns: `problem,function` and optionally `wrt, order, partial, kind, implicit,
constant, shape, rtol, atol, points, at, steps, params, term, hints`; header names as
`gradcalc.ingest.headers` matches them. A problem's `points` is its maximum score (default
1); `rtol`/`atol` replace the command's tolerances for that problem; `steps` (yes/no) shows
the problem's worked solution in each answer's feedback (a verdict line, a Gradescope
result). The kind columns (`gradcalc.homework.kinds.columns`) say what the problem asks
for: the N-th derivative, a mixed partial, a value at a point, dy/dx of an equation, an
antiderivative, a tensor gradient. `params` declares parameters drawn per student
(`gradcalc.grading.params`; the function and the `at` cell use them,
`gradcalc.grading.variants`), `term` is the term's seed of the draw (a problem without one
takes the key's first), and `hints` the teacher's own hints (`gradcalc.grading.hints`).
Every parametrised problem is checked here, before any answer is judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.grading.hints import Hint, read_hints
from gradcalc.grading.variants import Template
from gradcalc.homework.kinds.columns import kind_of
from gradcalc.homework.kinds.registry import COLUMNS, PLAIN, Kind, variables
from gradcalc.ingest.headers import Sheet, SheetRow, read_table, source_of

#: a parametrised problem's columns: what is drawn, the term's seed, the teacher's hints
VARIANT_COLUMNS = ("params", "term", "hints")
#: the key's columns: required, then optional
REQUIRED = ("problem", "function")
OPTIONAL = ("wrt", "rtol", "atol", "points", "steps", "answers", *COLUMNS, *VARIANT_COLUMNS)
#: when students are shown the expected answers (the key's `answers` column)
ANSWERS = ("never", "after-due", "always")
#: a steps cell's texts
YES, NO = ("true", "yes", "y", "1"), ("false", "no", "n", "0", "")
#: the names a function's variables go by: never a parameter's in that function
VARIABLES = frozenset({"x", "y", "z"})
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
    template: Template | None = None  # with parameters: what each student's variant is of
    hints: tuple[Hint, ...] = ()  # the teacher's hints, in order
    variants: int = 1  # the combinations of its parameters' values (or of a probe's draws)
    steps: bool = False  # show the worked solution in the feedback


@dataclass
class Key:
    problems: dict[str, Problem]
    source: str
    lower: dict[str, Problem] = field(default_factory=dict)
    #: the course's rules the submissions are graded by (gradcalc.grading.course.Course)
    course: Any = None
    answers: str = ""  # when students see the expected answers ('' : not said)

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
    term = next((r.get("term").strip() for r in table.rows if r.get("term").strip()), "")
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
        points = _number(row.get("points"), "points", where, positive=True)
        problem = Problem(
            name, function, row.get("wrt").strip(),
            _number(row.get("rtol"), "rtol", where), _number(row.get("atol"), "atol", where),
            1.0 if points is None else points, row.line, steps=_steps(row.get("steps"), where))
        problems[name] = _with_variants(problem, row, where, row.get("term").strip() or term)
        seen[name.lower()] = problems[name]
        if len(problems) > MAX_PROBLEMS:
            raise GradcalcError(f"{source} has over {MAX_PROBLEMS:,} problems", kind="limit")
    if not problems:
        raise GradcalcError(f"{source} has no problems: one row per problem under the "
                            "header problem,function", kind="usage")
    return Key(problems, source, answers=_answers(table, source))


def _answers(table: Sheet, source: str) -> str:
    """The key's `answers` cell (its first one given): never, after-due or always."""
    for row in table.rows:
        cell = row.get("answers").strip().lower()
        if cell and cell not in ANSWERS:
            raise GradcalcError(f"{source}, line {row.line}, column answers: {cell!r}: give "
                                f"{', '.join(ANSWERS)}", kind="usage")
        if cell:
            return cell
    return ""


def _with_variants(problem: Problem, row: SheetRow, where: str, term: str) -> Problem:
    """The problem with its kind, its parameters (checked: every variant can be drawn,
    reads as the template and is defined somewhere) and its hints (read on the variants
    tried)."""
    from dataclasses import replace

    from gradcalc.grading import variants
    from gradcalc.grading.params import read as read_params

    cells = {c: row.get(c) for c in COLUMNS}
    hints = read_hints(row.get("hints"), where)
    spec = row.get("params").strip()
    if not spec:
        return replace(problem, kind=kind_of(cells, where), hints=hints)
    names = {n.strip() for n in problem.wrt.replace(";", ",").split(",") if n.strip()}
    found = read_params(spec, where, frozenset(names))
    used = {c for c in variants.PARAMETRISED
            if variants.names_in(cells.get(c) or "") & set(found.names)}
    kind = kind_of({**cells, **dict.fromkeys(used, "")}, where)
    clash = sorted(set(found.names) & _variables(kind))
    if clash:
        raise GradcalcError(f"{where}, column params: {clash[0]!r} is a variable of the "
                            "problem (its kind columns name it), not a parameter",
                            kind="usage")
    named = sorted(set(found.names) & VARIABLES & variants.names_in(problem.function))
    if named:
        raise GradcalcError(f"{where}, column params: {named[0]!r} is a variable of the "
                            f"function {problem.function!r}, not a parameter: name the "
                            "parameter otherwise (a, b, c, n, ...)", kind="usage")
    template = Template(problem.name, problem.function, found, term, where, kind,
                        tuple(cells.items()) if used else (), problem.wrt)
    count, tried = variants.check_template(template)
    for values in tried:
        for hint in hints:
            hint.put(values, where)
    return replace(problem, kind=kind, template=template, hints=hints, variants=count)


def _variables(kind: Kind) -> set[str]:
    """The names a problem's kind columns make its variables."""
    return variables(kind)
