"""The readable rendering for a terminal: a rich table of inputs, output, derivative and
check, with large arrays summarised; and a progress bar for long --points tables.

rich is imported only here, and only when a person is reading (start-up is the product).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from gradcalc.render.digits import Numbers, scale_of
from gradcalc.render.labels import derivative_label
from gradcalc.render.matrix_rows import labelled_rows

if TYPE_CHECKING:
    from gradcalc.commands.one_point import Result

#: a progress bar is shown (on a terminal) for tables of at least this many points
PROGRESS_MIN_POINTS = 10_000


def console_on(out: Any) -> Any:
    """A rich console writing to `out` that does not colour numbers by itself."""
    from rich.console import Console

    return Console(file=out, highlight=False)


def draw(render: Any, out: Any) -> None:
    """Call `render(console)` on `out`; in a pipe or a file, without the spaces rich pads
    lines with (a script reading the readable view gets no trailing blanks)."""
    console = console_on(out)
    if console.is_terminal:
        render(console)
        return
    with console.capture() as captured:
        render(console)
    out.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


class Bar:
    """The progress bar: rich's, on stderr, only when stderr is a terminal and the work is
    long (`least` steps at least). A run reports a stage (`bar(stage, done, total)`, a
    `backends.batched.Progress`) or steps done (`bar.advance(n)`)."""

    def __init__(self, total: int, stage: str = "reading",
                 least: int = PROGRESS_MIN_POINTS) -> None:
        self.bar: Any = None
        if total >= least and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True,
                                redirect_stdout=False, redirect_stderr=False)
            self.bar.start()
            self.task = self.bar.add_task(stage, total=total)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=stage, completed=done, total=total)

    def advance(self, steps: int = 1) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, steps)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _check_line(check: Any) -> tuple[str, str]:
    style = {"pass": "green", "fail": "bold red", "skipped": "yellow"}[check.status]
    mark = {"pass": "✓", "fail": "✗", "skipped": "–"}[check.status]
    text = f"{mark} {check.status}"
    if check.method != "none":
        text += f" ({check.method}"
        if check.max_abs_error is not None:
            text += f", max |error| {check.max_abs_error:.3g}"
        text += ")"
    if check.detail:
        text += f": {check.detail}"
    return text, style


def show(result: Result, console: Any, numbers: Numbers | None = None) -> None:
    """The rich rendering for a terminal."""
    from rich.table import Table
    from rich.text import Text

    numbers = numbers or Numbers()
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for name, value in result.inputs.items():
        role = "input" if name in result.wrt or not result.wrt else "constant"
        table.add_row(role, Text(f"{name} = {_inline(value, numbers)}"))
    if result.weights is not None:
        table.add_row("weights", Text(_inline(result.weights, numbers)))
    shape = "scalar" if result.output.shape == () else f"shape {result.output.shape}"
    output = _inline(result.output, numbers, f"   ({shape})")
    table.add_row("output", Text(f"{result.output_name} = {output}"))
    for label, block in _derivative_rows(result, numbers):
        table.add_row(Text(label), Text(block))
    text, style = _check_line(result.check)
    table.add_row("check", Text(text, style=style))
    if result.expectation is not None:
        ok = result.expectation.ok
        text = result.expectation.text(numbers.one, sep="\n")
        table.add_row("expect", Text(("✓ " if ok else "✗ ") + text,
                                     style="green" if ok else "bold red"))
    for note in [*result.notes, numbers.note()]:
        if note:
            table.add_row("note", Text(note))
    for warning in result.warnings:
        table.add_row("warning", Text(warning, style="yellow"))
    if result.explain is not None:
        from gradcalc.render.explanations import show_explanation

        show_explanation(result, console)
    console.print(table)
    if result.formulas is not None:
        from gradcalc.render.explanations import show_formulas

        show_formulas(result, console)


def _derivative_rows(result: Result, numbers: Numbers) -> list[tuple[str, str]]:
    """(label, text) of the derivative: one row per input, or with several inputs the
    assembled Jacobian or Hessian, its rows and columns labelled."""
    matrix = result.matrix() if result.command != "grad" else None
    if matrix is None:
        return [(derivative_label(result, name), _block(value, numbers))
                for name, value in result.derivative.items()]
    y, inputs = result.output_name, ", ".join(result.wrt)
    label = f"∂²{y}/∂({inputs})²" if result.command == "hessian" else f"∂{y}/∂({inputs})"
    if matrix.values.size > SHOW_MAX_ENTRIES:
        return [(label, _summary(matrix.values, numbers))]
    return [(label, "\n".join(labelled_rows(matrix, numbers)))]


#: the terminal rendering shows arrays up to this many entries in full; larger ones are
#: summarised (first and last entries), with a note that --json and --plain give them all
SHOW_MAX_ENTRIES = 400


def _summary(a: np.ndarray, numbers: Numbers, suffix: str = "") -> str:
    scale = scale_of(a)
    text = np.array2string(a, separator=", ", threshold=0, edgeitems=3,
                           formatter={"float_kind": lambda v: numbers.one(v, scale)},
                           max_line_width=78)
    return f"{text}{suffix}\n({a.size:,} entries; --json or --plain prints them all)"


def _inline(value: np.ndarray, numbers: Numbers, suffix: str = "") -> str:
    """An array as a list literal (then `suffix`), or a summary when it is large."""
    a = np.asarray(value, dtype=np.float64)
    return numbers.literal(a) + suffix if a.size <= SHOW_MAX_ENTRIES else \
        _summary(a, numbers, suffix)


def _block(value: np.ndarray, numbers: Numbers) -> str:
    """A vector inline; a matrix as aligned rows; a large array as a summary."""
    a = np.asarray(value, dtype=np.float64)
    if a.size > SHOW_MAX_ENTRIES:
        return _summary(a, numbers)
    if a.ndim < 2:
        return numbers.literal(a)
    lines = numbers.rows(a)
    width = max((len(c) for line in lines for c in line.split()), default=1)
    return "\n".join(" ".join(c.rjust(width) for c in line.split()) for line in lines)
