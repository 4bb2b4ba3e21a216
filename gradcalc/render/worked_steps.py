"""A worked solution for people and scripts: rich (numbered steps, each with its rule, its
own equation and the whole expression after it), plain lines, and JSON; with the verdict
beside it for `check --steps` (the step where the answer left the path marked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gradcalc.homework.judge import Verdict
    from gradcalc.homework.solutions.worked import Solution, Step


def solution_json(solution: Solution, verdict: Verdict | None = None) -> dict[str, Any]:
    """`derive`'s object; with a verdict, the verdict's object with the solution's
    `steps` and `departs_at` beside it (and the rest of the solution as `solution`)."""
    out = solution.as_json()
    if verdict is None:
        return {"command": "derive", **out}
    from gradcalc.render.verdicts import verdict_json

    rest = {k: v for k, v in out.items() if k not in ("steps", "departs_at")}
    return {**verdict_json(verdict), "steps": out["steps"],
            "departs_at": out["departs_at"], "solution": rest}


def checked_text(solution: Solution) -> str:
    """How the steps were checked, in a line."""
    steps = len(solution.steps)
    if not steps:
        return solution.note or "no steps could be verified"
    said = solution.how or (f"every step at {solution.points} points on the tape; "
                            f"{solution.symbolic} of {steps} also by sympy")
    if solution.merged:
        said += (f"; {solution.merged} smaller step{'s' * (solution.merged != 1)} did not "
                 "verify and are shown merged")
    return said


def part_head(part: Any) -> str:
    """A part's first line: `f'(x) = d/dx(...)`, or `solve for y': 2x + 2y·y' = 0`."""
    sep = ": " if " = " in part.start + part.title or part.title == part.start else " = "
    return f"{part.title}{sep}{part.start}"


def _departs(solution: Solution, n: int) -> bool:
    """Whether step n is where the answer left the path."""
    return bool(solution.departs_at and solution.departs_at.get("step") == n
                and solution.departs_at.get("said"))


def own(step: Step) -> bool:
    """Whether the step's own equation already ends in the whole expression after it:
    its last side is that expression (`= 2x`, `⇒ y' = ...`), not merely ends with its
    text (`= -d/dx(u)/v` does not state that the whole is `d/dx(u)/v`)."""
    return step.text == step.after or any(
        step.text.endswith(sep + step.after) for sep in (" = ", " ⇒ ", ": "))


def step_lines(solution: Solution) -> list[str]:
    """The plain view: each part's start, one line per step (its number, its rule, its
    equation), the answer and how it was checked."""
    out: list[str] = []
    if solution.problem:
        out.append(solution.problem)
    numbered = solution.steps
    for k, part in enumerate(solution.parts):
        out.append(part_head(part))
        for n, p, step in numbered:
            if p != k:
                continue
            line = f"{n}. {step.name}" + (f" [{step.shape}]" if step.shape else "")
            if step.note:
                line += f" ({step.note})"
            line += f": {step.text}"
            if not own(step):
                line += f"; = {step.after}"
            if _departs(solution, n):
                line += f"  <- {solution.departs_at['said']}"  # type: ignore[index]
            out.append(line)
    if solution.answer:
        out.append(f"answer: {solution.answer}")
    out.append(f"checked: {checked_text(solution)}")
    return out


def show(solution: Solution, console: Any, verdict: Verdict | None = None) -> None:
    """The rich rendering: the verdict (when there is one), then the solution."""
    from rich.table import Table
    from rich.text import Text

    if verdict is not None:
        from gradcalc.render.verdicts import show as show_verdict

        show_verdict(verdict, console)
        console.print(Text("worked solution", style="bold"))
    if solution.problem and verdict is None:
        console.print(Text(solution.problem, style="bold"))
    numbered = solution.steps
    for k, part in enumerate(solution.parts):
        console.print(Text(part_head(part), style="bold cyan"))
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", style="bold")
        table.add_column()
        for n, p, step in numbered:
            if p != k:
                continue
            body = Text(step.name + (f" [{step.shape}]" if step.shape else ""), style="cyan")
            if step.note:
                body.append(f" ({step.note})", style="dim")
            body.append("\n" + step.text)
            if not own(step):
                body.append("\n= " + step.after)
            if _departs(solution, n):
                body.append("\n✗ " + solution.departs_at["said"], style="bold red")  # type: ignore[index]
            table.add_row(str(n), body)
        console.print(table)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    if solution.answer:
        grid.add_row("answer", Text(solution.answer))
    grid.add_row("checked", Text(checked_text(solution)))
    console.print(grid)


def plain_text(solution: Solution, verdict: Verdict | None = None) -> str:
    """--plain: the verdict's line (when there is one), then the solution's lines."""
    lines = step_lines(solution)
    if verdict is not None:
        from gradcalc.render.verdicts import plain

        lines.insert(0, plain(verdict))
    return "\n".join(lines)


def inline_text(solution: Solution) -> str:
    """The solution in one line (a class's verdict line, a gradebook's feedback)."""
    parts = [f"({n}) {step.name}: {step.text}" + (
        f" [{solution.departs_at['said']}]" if _departs(solution, n) else "")  # type: ignore[index]
        for n, _, step in solution.steps]
    if solution.answer:
        parts.append(f"answer {solution.answer}")
    return "worked solution: " + " ".join(parts) if parts else ""
