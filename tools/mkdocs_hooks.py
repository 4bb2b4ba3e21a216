"""MkDocs hooks of the documentation site (mkdocs.yml names this file).

- The command reference (docs/commands.md) is written from the CLI itself at build time:
  each `<!-- help: COMMAND -->` marker becomes that command's `--help` text, so the page
  cannot drift from the options gradcalc has.
- Pages listed in the nav that do not exist yet are left out (instead of failing the
  strict build), so the nav can name a page before it is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"<!-- help: ([a-z]+) -->")


def help_text(command: str | None) -> str:
    """What `gradcalc COMMAND --help` (or `gradcalc --help`) prints in an 80-column
    terminal: the installed CLI itself, run as a program."""
    import os
    import subprocess
    import sys

    args = ([command] if command else []) + ["--help"]
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-m", "gradcalc", *args], capture_output=True,
                          text=True, env=env, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"gradcalc {' '.join(args)} exited with {proc.returncode}: "
                           f"{proc.stderr}")
    text = proc.stdout.replace("python -m gradcalc", "gradcalc")
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def command_names() -> list[str]:
    from gradcalc.cli import app

    return [c.name or c.callback.__name__ for c in app.registered_commands]


def expand(markdown: str) -> str:
    """Every help marker replaced by a fenced block of that command's help."""
    def block(m: re.Match[str]) -> str:
        name = None if m.group(1) == "gradcalc" else m.group(1)
        return f"```text\n$ gradcalc {name + ' ' if name else ''}--help\n{help_text(name)}\n```"

    return MARKER.sub(block, markdown)


def _existing(nav: list[Any], docs: Path) -> list[Any]:
    out = []
    for item in nav:
        if isinstance(item, dict):
            (title, target), = item.items()
            if isinstance(target, list):
                out.append({title: _existing(target, docs)})
            elif isinstance(target, str) and not (docs / target).exists():
                continue
            else:
                out.append(item)
        elif isinstance(item, str) and not (docs / item).exists():
            continue
        else:
            out.append(item)
    return out


def on_config(config: Any) -> Any:
    if config.get("nav"):
        config["nav"] = _existing(config["nav"], Path(config["docs_dir"]))
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return expand(markdown) if MARKER.search(markdown) else markdown
