"""The assembled matrix of a derivative with several inputs, as plain and labelled rows."""

from __future__ import annotations

from gradcalc.commands.matrix import Matrix
from gradcalc.render.digits import Numbers, scale_of


def plain_rows(matrix: Matrix, numbers: Numbers) -> list[str]:
    """One line per row, numbers separated by single spaces (for awk, cut, read)."""
    scale = scale_of(matrix.values)
    return [" ".join(numbers.one(v, scale) for v in row) for row in matrix.values]


def labelled_rows(matrix: Matrix, numbers: Numbers) -> list[str]:
    """The matrix with its column labels on top and its row labels on the left, aligned,
    with no trailing spaces."""
    scale = scale_of(matrix.values)
    cells = [[numbers.one(v, scale) for v in row] for row in matrix.values]
    widths = [max([len(matrix.columns[j])] + [len(row[j]) for row in cells])
              for j in range(len(matrix.columns))]
    left = max(len(r) for r in matrix.rows)
    head = " " * left + "  " + "  ".join(c.rjust(w) for c, w in zip(matrix.columns, widths))
    lines = [head.rstrip()]
    for label, row in zip(matrix.rows, cells):
        lines.append(label.ljust(left) + "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))
    return lines
