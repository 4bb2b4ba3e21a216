"""MkDocs hooks of the documentation site (mkdocs.yml names this file).

- The command reference (docs/commands.md) is written from the CLI itself at build time:
  each `<!-- help: COMMAND -->` marker becomes that command's `--help` text, so the page
  cannot drift from the options gradcalc has.
- Pages listed in the nav that do not exist yet are left out (instead of failing the
  strict build), so the nav can name a page before it is written.
- Mermaid is served from the site itself (tools/vendor_mermaid.py says why and how): each
  page with a diagram loads the site's copy before the theme's script, which then uses it
  instead of fetching one from a CDN, so diagrams render with no network.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import vendor_mermaid  # beside this file (mkdocs loads hooks with their folder on the path)

MARKER = re.compile(r"<!-- help: ([a-z]+) -->")
#: the theme's own script, before which a page with diagrams loads the site's Mermaid
THEME_SCRIPT = re.compile(r'<script src="([^"]*)assets/javascripts/bundle\.')
MERMAID_DIR = "assets/javascripts"


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


def with_mermaid(html: str) -> str:
    """A built page that has diagrams, loading the site's Mermaid before the theme's
    script (a page without diagrams is unchanged)."""
    if 'class="mermaid"' not in html:
        return html
    m = THEME_SCRIPT.search(html)
    if m is None:
        raise RuntimeError("the theme's script was not found: Mermaid cannot be placed")
    tag = f'<script src="{m.group(1)}{MERMAID_DIR}/mermaid.min.js"></script>\n    '
    return html[: m.start()] + tag + html[m.start():]


def on_config(config: Any) -> Any:
    from mkdocs.exceptions import PluginError


    if config.get("nav"):
        config["nav"] = _existing(config["nav"], Path(config["docs_dir"]))
    try:
        vendor_mermaid.fetch()
    except vendor_mermaid.VendorError as exc:
        raise PluginError(str(exc)) from None
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return expand(markdown) if MARKER.search(markdown) else markdown


def on_post_page(output: str, page: Any, config: Any) -> str:
    return with_mermaid(output)


def on_post_build(config: Any) -> None:
    import shutil


    target = Path(config["site_dir"]) / MERMAID_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in vendor_mermaid.FILES.values():
        shutil.copyfile(vendor_mermaid.fetch() / name, target / name)
