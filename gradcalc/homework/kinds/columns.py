"""What a key's problem (or a batch line's check) asks for, read from its kind columns
into a `Kind`, by the registry (`gradcalc.homework.kinds.registry`).

The columns, as a teacher writes them (an empty cell is the plain first derivative):

- `kind`: the kind of problem by name: `derivative` (the default), `antiderivative`,
  `implicit` or `tensor`;
- `order`: the N-th derivative, e.g. 2 (with several wrt: the Hessian);
- `partial`: a mixed partial, the variables in the order differentiated, e.g. `x;y`;
- `at`: the derivative's value at a point, e.g. `x=2; y=1`;
- `implicit`: the dependent variable of an equation, for dy/dx (default `y` when the
  kind is `implicit`; naming it alone makes the problem implicit);
- `constant`: an antiderivative's `+ C`: `required`, `optional` (default), `forbidden`;
- `shape`: tensor inputs, e.g. `W=3x2; x=2` (naming them makes the problem a tensor one);
- `integers`: `true` draws the tensor inputs as small whole numbers (with `shape`);
- `domain`: where answers are judged, e.g. `x > 0`, `-1 < x < 1`, `x in [1, 10]` or
  `x > 0; y > 0` (a derivative or an antiderivative; default: the function's whole real
  domain).

Lists in a cell are separated by `;` (or by commas in a quoted cell). Every error names the
key's line and column in these words, never a command-line option.
"""

from __future__ import annotations

import re

from gradcalc.errors import GradcalcError
from gradcalc.homework.kinds.registry import (
    COLUMNS,
    KIND,
    KINDS,
    PLAIN,
    SETTING,
    SETTINGS,
    Kind,
    ProblemKind,
    misfit,
    read_setting,
)

#: the texts of a yes/no cell
YES, NO = ("true", "yes", "y", "1"), ("false", "no", "n", "0", "")
_OPTION = re.compile(r"--(" + "|".join(s.name for s in SETTINGS) + r")\b")
#: a marker's words in a key (the kind column names a flag's kind)
_WORD = {k.marker: k.word for k in KINDS if k.marker and k.word}


def teacher_words(message: str) -> str:
    """An option's message in the key's words: `--order 2` becomes `order 2`."""
    return _OPTION.sub(lambda m: _WORD.get(m.group(1), m.group(1)), message)


def _error(part: str, where: str, column: str, message: str) -> GradcalcError:
    return GradcalcError(f"{where}, {part} {column}: {teacher_words(message)}", kind="usage")


def _list(text: str) -> str:
    return ",".join(p.strip() for p in text.replace(";", ",").split(","))


def kind_of(cells: dict[str, str], where: str, part: str = "column") -> Kind:
    """The Kind of one key row from its kind cells (column -> text); GradcalcError naming
    WHERE (the key and line) and the column (or the PART so named) when a cell is
    wrong."""
    cells = {c: (cells.get(c) or "").strip() for c in COLUMNS}
    if not any(cells.values()):
        return PLAIN
    named = cells["kind"].lower()
    if named and named not in KIND:
        raise _error(part, where, "kind", f"{cells['kind']!r} is not a kind of problem: give "
                     f"{', '.join(k.name for k in KINDS)} (or leave it empty for the "
                     "derivative)")
    entry = KIND[named] if named else _marked(cells)
    _check_flags(cells, entry, part, where)
    if entry.marker and SETTING[entry.marker].column and not cells[entry.marker]:
        if entry.marker_default is None:
            raise _error(part, where, "kind", f"{entry.article} {entry.name} problem names "
                         f"{entry.needs}: give the {entry.marker} column too")
        cells[entry.marker] = entry.marker_default
    wrong = misfit(entry, [c for c in COLUMNS if cells[c] and c != "kind"])
    if wrong:
        column, message = wrong
        if not named and entry.marker not in (None, entry.name):  # the shape column's kind
            message += (f" (the {entry.marker} column makes it {entry.article} {entry.name} "
                        "problem)")
        raise _error(part, where, column, message)
    for s in SETTINGS:
        said = s.cell(cells[s.name]) if s.cell and cells.get(s.name) else None
        if said:
            raise _error(part, where, s.name, said)
    texts = {s.name: _cell_text(s.name, cells[s.name]) for s in SETTINGS
             if s.column and not s.flag}
    for column, text in texts.items():
        if text:  # each cell alone first, so an error names its column
            try:
                read_setting(column, text)
            except GradcalcError as exc:
                raise _error(part, where, column, exc.message) from None
    flags = {s.name: s.name == entry.marker or bool(cells.get(s.name))
             for s in SETTINGS if s.flag}
    try:
        return Kind.read(**texts, **flags)
    except GradcalcError as exc:
        raise GradcalcError(f"{where}: {teacher_words(exc.message)}", kind="usage") from None


def _marked(cells: dict[str, str]) -> ProblemKind:
    """The kind whose marker's column is given (the derivative when none is)."""
    return next((k for k in KINDS if k.marker and SETTING[k.marker].column
                 and cells[k.marker]), KIND["derivative"])


def _check_flags(cells: dict[str, str], entry: ProblemKind, part: str, where: str) -> None:
    """The cells read before the kind's: another kind's marker refused in the kind's
    words; a flag's yes or no (its 'no' left empty)."""
    for k in KINDS:
        text = cells.get(k.marker or "", "")
        if k.marks and text and k is not entry:
            raise _error(part, where, str(k.marker), f"{text!r} names {k.marks}, but the "
                         f"kind is {entry.name}")
    for s in SETTINGS:
        text = cells.get(s.name, "")
        if s.flag and s.column and text:
            if text.lower() not in YES + NO:
                raise _error(part, where, s.name, f"{text!r}: give true or false")
            cells[s.name] = "" if text.lower() in NO else text


def _cell_text(name: str, text: str) -> str | list[str]:
    """A cell as its setting reads it: a list's `;` as commas, a repeated one's parts."""
    s = SETTING[name]
    if s.repeatable:
        return [p for p in text.split(";") if p.strip()]
    return _list(text) if s.listed else text
