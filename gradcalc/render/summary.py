"""The class picture in the terminal (`--summary`): the report's tables as rich tables."""

from __future__ import annotations

from typing import Any

from gradcalc.grading.gradebook import Picture
from gradcalc.homework.read_as import text_read
from gradcalc.render.classview import points_text, shown

#: mistakes shown per problem in the terminal (the HTML report shows all)
TOP_MISTAKES = 3


def show_picture(pic: Picture, console: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    problems = Table(title="Problems", show_edge=False, header_style="bold")
    for name in ("problem", "correct", "incorrect", "undetermined", "unreadable"):
        problems.add_column(name, justify="left" if name == "problem" else "right")
    for p in pic.problems:
        problems.add_row(Text(shown(p.name)), *(str(p.counts[s]) for s in
                                         ("correct", "incorrect", "undetermined",
                                          "unreadable")))
    console.print(problems)
    _show_variants(pic, console)
    mistakes = Table(title="Most common mistakes", show_edge=False, header_style="bold")
    for name in ("problem", "mistake", "n", "e.g."):
        mistakes.add_column(name, overflow="fold", justify="right" if name == "n" else "left")
    for p in pic.problems:
        for m in p.mistakes[:TOP_MISTAKES]:
            example = m.examples[0] + (f" on {text_read(m.variants[0])}" if m.variants
                                       else "")
            mistakes.add_row(Text(shown(p.name)), Text(shown(m.label)), str(m.count),
                             Text(shown(example)))
    if mistakes.row_count:
        console.print(mistakes)
    book = pic.book
    students = Table(title="Students", show_edge=False, header_style="bold")
    students.add_column("student")
    students.add_column(f"total (of {points_text(book.max_total)})", justify="right")
    for student in book.students:
        students.add_row(Text(shown(student)), points_text(round(book.total(student), 3)))
    console.print(students)


def _show_variants(pic: Picture, console: Any) -> None:
    """The parametrised problems: their parameters, how many variants, and one."""
    from rich.table import Table
    from rich.text import Text

    drawn = [p for p in pic.problems if p.params]
    if not drawn:
        return
    table = Table(title="Parameters", show_edge=False, header_style="bold")
    for name in ("problem", "params", "variants", "e.g."):
        table.add_column(name, overflow="fold", justify="right" if name == "variants"
                         else "left")
    for p in drawn:
        example = (f"{p.example.student}: {text_read(p.example.function)}"
                   if p.example is not None else "")
        table.add_row(Text(shown(p.name)), Text(shown(p.params)), f"{p.variants:,}",
                      Text(shown(example)))
    console.print(table)


def draw_to(stream: Any, render: Any) -> None:
    """`render(console)` written to `stream` (standard error beside JSON or plain lines),
    without the spaces rich pads lines with."""
    from rich.console import Console

    console = Console(file=stream, highlight=False)
    with console.capture() as captured:
        render(console)
    stream.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
