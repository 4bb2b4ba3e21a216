"""The sheets handed out, as data: for each student of a roster, each problem of the key on
the student's own variant, with what is asked in gradcalc's words, the function as a
formula (sympy's, for LaTeX and MathML) and its answer (the teacher's copy).

What is asked and how the function reads come from the judge itself (an answer of 0
judged on the variant): the same `f'(x)`, `f_xy`, `F(x)`, `dy/dx` that the verdicts
print, and the same expected answer. Nothing here writes a file (render/sheets.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gradcalc.errors import GradcalcError
from gradcalc.grading.key import Key, Problem
from gradcalc.grading.params import Values
from gradcalc.grading.variants import equation, require_defined, variant_of
from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind, input_shapes, kind_of
from gradcalc.ingest.headers import read_table, source_of
from gradcalc.limits import DEFAULT_LIMITS, Limits

#: the most students of one roster
MAX_STUDENTS = 100_000


@dataclass(frozen=True)
class Item:
    """One problem on one student's sheet."""

    problem: str
    points: float
    prompt: str  # what is asked, e.g. "Find f'(x)."
    label: str  # the function's name as read ("f(x)"; "" for an equation or a program)
    function: str  # the variant's text, as a submission of this student is judged on
    read: str  # the function as gradcalc reads it, in the student's notation
    formula: Any  # sympy: an expression, a list of them, or (left, right); None: text
    values: Values  # the parameters drawn (() for a problem without any)
    answer: str  # the expected answer, as the verdicts print it
    answer_formula: Any  # sympy, as `formula`; None: the answer as text


@dataclass(frozen=True)
class Sheet:
    student: str
    columns: tuple[tuple[str, str], ...]  # the roster's other columns (a name, a section)
    items: tuple[Item, ...]


def roster(file: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The students of a roster CSV (a student column by its usual names; other columns
    kept), in order; GradcalcError naming the line of an empty or repeated student."""
    table = read_table(file, "roster", ("student",), (), "the roster (one row per student)")
    out, seen = [], {}
    for row in table.rows:
        student, where = row.get("student").strip(), f"{source_of(table)}, line {row.line}"
        if not student:
            raise GradcalcError(f"{where}: the student is empty", kind="usage")
        if student in seen:
            raise GradcalcError(f"{where}: student {student!r} is in the roster twice "
                                f"(first on line {seen[student]})", kind="usage")
        seen[student] = row.line
        out.append((student, row.extras))
    if not out:
        raise GradcalcError(f"{source_of(table)} has no students", kind="usage")
    if len(out) > MAX_STUDENTS:
        raise GradcalcError(f"{source_of(table)} has over {MAX_STUDENTS:,} students",
                            kind="limit")
    return out


def sheets(key: Key, students: list[tuple[str, tuple[tuple[str, str], ...]]],
           limits: Limits = DEFAULT_LIMITS) -> list[Sheet]:
    """Every student's sheet, every variant checked first (defined somewhere), so that a
    bad one is an error before anything is written."""
    for student, _ in students:
        for p in key.problems.values():
            if p.template is not None:
                require_defined(variant_of(p.template, student, limits),
                                f"{p.template.where} (the variant of {student!r})", limits)
    return [Sheet(student, columns, tuple(item(p, student, limits)
                                          for p in key.problems.values()))
            for student, columns in students]


def item(problem: Problem, student: str, limits: Limits = DEFAULT_LIMITS) -> Item:
    """One problem on STUDENT's sheet (the same for every student without parameters)."""
    function, kind, values, wrt = problem.function, problem.kind, (), problem.wrt
    if problem.template is not None:
        variant = variant_of(problem.template, student, limits)
        function, kind, values, wrt = (variant.function, variant.kind, variant.values,
                                       variant.wrt)
    return _item(problem.name, problem.points, function, wrt, kind, values, limits)


@lru_cache(maxsize=4096)
def _item(name: str, points: float, function: str, wrt: str, kind: Kind, values: Values,
          limits: Limits) -> Item:
    from gradcalc.homework import answer as judging
    from gradcalc.homework.answer import split_wrt

    probe = _zeros(input_shapes(kind), wrt)
    verdict = judging.run(judging.AnswerJob(function, probe, split_wrt(wrt), Settings(),
                                             limits, wrt_from="the key's wrt", kind=kind))
    read = verdict.read or {}
    shown = read.get("function", function)
    label, sep, _ = shown.partition(" = ")
    asked = read.get("answer", "").rpartition(" = ")[0]
    prompt = _prompt(kind, asked, verdict.wrt)
    if kind.domain:  # where the answer is judged, as a verdict says it
        from gradcalc.homework.domain import read_domain
        from gradcalc.homework.domain import shown as domain_shown

        prompt = f"{prompt[:-1]}, for {domain_shown(read_domain(kind.domain, limits))}."
    return Item(name, points, prompt, label if sep and
                not equation(kind) else "", function, shown, _formula(function, kind, limits),
                values, verdict.expected, _answer_formula(verdict.expected, kind, limits))


def _zeros(shapes: dict[str, tuple[int, ...]], wrt: str) -> str:
    """The sheet's probe answer: 0, or zeros of the first wrt's shape (a tensor input)."""
    dims = shapes.get(wrt.split(",")[0].strip(), ())
    return f"zeros({', '.join(str(d) for d in dims)})" if dims else "0"


def _prompt(kind: Kind, asked: str, wrt: tuple[str, ...]) -> str:
    """What the sheet asks, in the judge's own notation for the answer (the kind's
    `prompt`)."""
    from gradcalc.homework.dispatch import prompt

    return prompt(kind, asked, wrt)


def _formula(function: str, kind: Kind, limits: Limits) -> Any:
    """The function as sympy (an expression, a list, or an equation's two sides); None
    where it is a program (a tensor loss, control flow) or sympy cannot follow."""
    if not kind_of(kind).formulas:
        return None
    try:
        if equation(kind):
            from gradcalc.homework.kinds.implicit import split_equation

            return tuple(_exprs(side, limits) for side in split_equation(function))
        return _exprs(function, limits)
    except Exception:  # noqa: BLE001 - no formula: the sheet shows the text
        return None


@lru_cache(maxsize=4096)
def formula_of(text: str, kind: Kind, limits: Limits = DEFAULT_LIMITS) -> Any:
    """A function's text as sympy for a page (its parameters' names as symbols), or
    None where it is a program or cannot be read."""
    return _formula(text, kind, limits)


@lru_cache(maxsize=4096)
def answer_formula_of(text: str, kind: Kind, limits: Limits = DEFAULT_LIMITS) -> Any:
    """An answer's text (the expected one, or a student's) as sympy for a page, or None
    where it cannot be read (then the page shows the text)."""
    return _answer_formula(text, kind, limits)


def _answer_formula(text: str, kind: Kind, limits: Limits) -> Any:
    if not kind_of(kind).formulas or text.startswith("("):  # "(no formula: ...)"
        return None
    try:
        return _exprs(text, limits)
    except Exception:  # noqa: BLE001 - the answer as text
        return None


def _exprs(text: str, limits: Limits) -> Any:
    """A text's sympy expression (a list for a vector, nested for a matrix)."""
    from gradcalc.homework import proof
    from gradcalc.homework.problem import free_names, read_side
    from gradcalc.homework.reading.claims import vector
    from gradcalc.language.program import EULER

    side = read_side(vector(text), "function", 2, limits)
    if not side.straight:
        return None
    inputs = tuple(n for n in free_names(side.program) if n != EULER)
    exprs = proof.side_exprs(side, inputs, dict.fromkeys(inputs, 0.5), limits)
    if not side.shape:
        return exprs[0]
    if len(side.shape) == 1:
        return list(exprs)
    cols = side.shape[1]
    return [list(exprs[r * cols:(r + 1) * cols]) for r in range(side.shape[0])]
