"""MkDocs hooks of the documentation site (mkdocs.yml names this file).

- Pages listed in the nav that do not exist yet are left out (instead of failing the
  strict build), so the nav can name a page before it is written.
- Mermaid is served from the site itself (tools/vendor_mermaid.py says why and how): each
  page with a diagram loads the site's copy before the theme's script, which then uses it
  instead of fetching one from a CDN, so diagrams render with no network.
- Terminal plots keep their columns: a font without braille draws `gradcalc plot`'s dots
  from a fallback font of another width, so each braille cell and dot in a code block is
  set one column (1ch) wide.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import vendor_mermaid  # beside this file (mkdocs loads hooks with their folder on the path)

#: the theme's own script, before which a page with diagrams loads the site's Mermaid
THEME_SCRIPT = re.compile(r'<script src="([^"]*)assets/javascripts/bundle\.')
MERMAID_DIR = "assets/javascripts"
#: the marks of a terminal plot whose width a code font may not match, inside <pre>
PLOT_MARK = re.compile("[\u2800-\u28ff•]")
PRE = re.compile(r"<pre[ >].*?</pre>", re.S)
CELL_STYLE = ("<style>.md-typeset pre .gc-cell{display:inline-block;width:1ch;"
              "text-align:center}</style>")


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


def with_plot_cells(html: str) -> str:
    """A built page whose code blocks draw plots, each plot mark in a one-column cell."""
    if not PLOT_MARK.search(html):
        return html

    def cells(m: re.Match[str]) -> str:
        return PLOT_MARK.sub(lambda c: f'<span class="gc-cell">{c.group(0)}</span>',
                             m.group(0))

    out, count = PRE.subn(cells, html)
    return out.replace("</head>", CELL_STYLE + "</head>", 1) if count else html


def on_config(config: Any) -> Any:
    from mkdocs.exceptions import PluginError


    if config.get("nav"):
        config["nav"] = _existing(config["nav"], Path(config["docs_dir"]))
    try:
        vendor_mermaid.fetch()
    except vendor_mermaid.VendorError as exc:
        raise PluginError(str(exc)) from None
    return config


def on_post_page(output: str, page: Any, config: Any) -> str:
    return with_plot_cells(with_mermaid(output))


def on_post_build(config: Any) -> None:
    import shutil


    target = Path(config["site_dir"]) / MERMAID_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in vendor_mermaid.FILES.values():
        shutil.copyfile(vendor_mermaid.fetch() / name, target / name)
