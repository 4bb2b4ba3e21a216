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
    SETTINGS,
    Kind,
    misfit,
    read_setting,
)

#: the texts of a yes/no cell
YES, NO = ("true", "yes", "y", "1"), ("false", "no", "n", "0", "")
_OPTION = re.compile(r"--(" + "|".join(s.name for s in SETTINGS) + r")\b")
#: a marker's words in a key: the kind column names the kind with no value of its own
_WORD = {"antiderivative": "kind antiderivative", "implicit": "implicit",
         "integers": "integers"}


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
    what = named or ("implicit" if cells["implicit"] else
                     "tensor" if cells["shape"] else "derivative")
    if cells["implicit"] and what != "implicit":
        raise _error(part, where, "implicit", f"{cells['implicit']!r} names an equation's "
                     f"dependent variable, but the kind is {what}")
    if cells["implicit"] and not re.fullmatch(r"[^\W\d]\w*", cells["implicit"]):
        raise _error(part, where, "implicit", f"{cells['implicit']!r} is not a variable's name: "
                     "name the dependent variable, e.g. y")
    if cells["integers"].lower() not in YES + NO:
        raise _error(part, where, "integers", f"{cells['integers']!r}: give true or false")
    if cells["integers"].lower() in NO:
        cells["integers"] = ""
    if what == "tensor" and not cells["shape"]:
        raise _error(part, where, "kind", "a tensor problem names its inputs' shapes: give "
                     "the shape column too")
    entry = KIND[what]
    wrong = misfit(entry, [c for c in COLUMNS if cells[c] and c != "kind"])
    if wrong:
        column, message = wrong
        if not named and entry.marker not in (None, entry.name):  # the shape column's kind
            message += (f" (the {entry.marker} column makes it {entry.article} {entry.name} "
                        "problem)")
        raise _error(part, where, column, message)
    order = cells["order"]
    if order and not (order.isdigit() and 1 <= int(order) <= 10):
        raise _error(part, where, "order", f"{order!r}: give a whole number from 1 to 10, e.g. 2 "
                     "for the second derivative")
    fields = {"order": order, "partial": _list(cells["partial"]),
              "at": [p for p in cells["at"].split(";") if p.strip()],
              "implicit": cells["implicit"] or ("y" if what == "implicit" else ""),
              "constant": cells["constant"].lower(), "shape": _list(cells["shape"]),
              "domain": cells["domain"]}
    for column, text in fields.items():
        if text:  # each cell alone first, so an error names its column
            try:
                read_setting(column, text)
            except GradcalcError as exc:
                raise _error(part, where, column, exc.message) from None
    try:
        return Kind.read(**fields, antiderivative=what == "antiderivative",
                         integers=bool(cells["integers"]))
    except GradcalcError as exc:
        raise GradcalcError(f"{where}: {teacher_words(exc.message)}", kind="usage") from None
