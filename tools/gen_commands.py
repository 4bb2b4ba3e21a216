"""docs/commands.md, the command reference, written from the command line itself.

The page's prose (above the marker line) is written by hand; below it, one section per
command holds exactly what `gradcalc COMMAND --help` prints in an 80-column terminal
without colour. The page is committed as generated text, so it reads the same on GitHub
as on the site, and tests/docs/test_commands.py fails, saying how to regenerate it, when
an option changes:

    python -m tools.gen_commands          # rewrite docs/commands.md
    python -m tools.gen_commands --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "commands.md"
MARKER = "<!-- Generated below by `python -m tools.gen_commands`: do not edit by hand. -->"
REGENERATE = "python -m tools.gen_commands"


def help_text(command: str | None) -> str:
    """What `gradcalc COMMAND --help` (or `gradcalc --help`) prints in an 80-column
    terminal: the installed CLI itself, run as a program."""
    args = ([command] if command else []) + ["--help"]
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-m", "gradcalc", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"gradcalc {' '.join(args)} exited with {proc.returncode}: "
                           f"{proc.stderr}")
    text = proc.stdout.replace("python -m gradcalc", "gradcalc")
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def command_names() -> list[str]:
    """The commands, in the order `gradcalc --help` lists them."""
    from gradcalc.cli import app

    return [c.name or c.callback.__name__ for c in app.registered_commands]


def section(command: str | None) -> str:
    title = command or "gradcalc"
    shown = f"gradcalc {command} --help" if command else "gradcalc --help"
    return f"## {title}\n\n```text\n$ {shown}\n{help_text(command)}\n```\n"


def generate(page: str) -> str:
    """The page: its hand-written part as it is, then every command's help."""
    if MARKER not in page:
        raise ValueError(f"{PAGE.name} has no marker line {MARKER!r}")
    head = page[: page.index(MARKER)]
    parts = [section(None), *(section(c) for c in command_names())]
    return head + MARKER + "\n\n" + "\n".join(parts)


def main(argv: list[str]) -> int:
    current = PAGE.read_text(encoding="utf-8")
    fresh = generate(current)
    if "--check" in argv:
        if fresh != current:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run `{REGENERATE}`")
            return 1
        return 0
    if fresh != current:
        PAGE.write_text(fresh, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
