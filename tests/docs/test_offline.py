"""The documentation site works offline: every Mermaid diagram becomes a picture with no
network. The site serves its own Mermaid (tools/vendor_mermaid.py); the built pages are
opened in a real headless Chromium, from files, with every host name unresolvable, and
each diagram must have become an SVG with its nodes drawn."""

from __future__ import annotations

import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from html_pages import BROWSER

from docs_examples import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mkdocs_hooks  # noqa: E402 - the hooks file lives in tools/, outside the package
import vendor_mermaid  # noqa: E402

NEEDS_DOCS = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="the docs extra (mkdocs, mkdocs-material) is not installed")
NEEDS_BROWSER = pytest.mark.skipif(
    BROWSER is None, reason="no headless Chromium here (.ci/run installs Debian's chromium "
    "where it can: apt-get install chromium)")

#: put into a copy of a built page, first thing in <head>: the theme draws each diagram in
#: a closed shadow root, which this opens so the report can look inside; the report, on
#: the root element, says for each diagram whether it is an SVG and how many nodes it has
PROBE = """<script>
(() => {
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    return attach.call(this, Object.assign({}, init, {mode: "open"}));
  };
  setInterval(() => {
    const found = [...document.querySelectorAll(".mermaid")].map((host) => {
      const svg = (host.shadowRoot || host).querySelector("svg");
      return {svg: !!svg, nodes: svg ? svg.querySelectorAll(".node").length : 0};
    });
    document.documentElement.dataset.diagrams = JSON.stringify(found);
    const cell = document.querySelector("pre .gc-cell");
    if (cell) {  // a terminal plot: every mark as wide as a column of its code font
      const code = cell.closest("code") || cell.parentElement;
      const probe = document.createElement("span");
      probe.textContent = "0";
      code.appendChild(probe);
      const column = probe.getBoundingClientRect().width;
      probe.remove();
      const widths = [...code.querySelectorAll(".gc-cell")].map(
        (c) => c.getBoundingClientRect().width);
      document.documentElement.dataset.cells = JSON.stringify({column, widths});
    }
  }, 100);
})();
</script>"""
#: Chromium with no network: every host name fails to resolve
OFFLINE = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=20000"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def _pages_with_diagrams(site: Path) -> dict[Path, int]:
    pages = {}
    for page in sorted(site.rglob("*.html")):
        count = page.read_text(encoding="utf-8").count('<pre class="mermaid">')
        if count:
            pages[page] = count
    return pages


def _in_browser(page: Path, tmp_path: Path) -> str:
    probe = page.with_name("probe.html")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("<head>", "<head>\n" + PROBE, 1), encoding="utf-8")
    try:
        proc = subprocess.run([BROWSER, *OFFLINE, f"--user-data-dir={tmp_path / 'profile'}",
                               "--dump-dom", probe.as_uri()],
                              capture_output=True, text=True, timeout=180)
    finally:
        probe.unlink()
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _report(dom: str, name: str) -> Any:
    m = re.search(rf'data-{name}="([^"]*)"', dom)
    assert m, f"the page's scripts did not report {name}"
    return json.loads(html.unescape(m.group(1)))


def test_a_page_with_diagrams_loads_the_sites_mermaid_before_the_theme():
    page = ('<pre class="mermaid"><code>flowchart LR</code></pre>\n'
            '<script src="../assets/javascripts/bundle.abc.min.js"></script>')
    out = mkdocs_hooks.with_mermaid(page)
    assert out.index('src="../assets/javascripts/mermaid.min.js"') < out.index("bundle.abc")
    plain = '<p>no diagram</p><script src="assets/javascripts/bundle.abc.min.js"></script>'
    assert mkdocs_hooks.with_mermaid(plain) == plain


@NEEDS_DOCS
def test_the_site_ships_mermaid_and_its_licence(site):
    shipped = site / mkdocs_hooks.MERMAID_DIR
    script = (shipped / "mermaid.min.js").read_bytes()
    import hashlib

    assert hashlib.sha256(script).hexdigest() == vendor_mermaid.SCRIPT_SHA256
    assert "MIT License" in (shipped / "mermaid.LICENSE.txt").read_text(encoding="utf-8")
    pages = _pages_with_diagrams(site)
    assert site / "understanding-backward" / "index.html" in pages
    for page in pages:
        assert "assets/javascripts/mermaid.min.js" in page.read_text(encoding="utf-8"), page


@NEEDS_DOCS
@NEEDS_BROWSER
def test_every_diagram_renders_offline_in_chromium(site, tmp_path):
    pages = _pages_with_diagrams(site)
    assert pages
    for page, count in pages.items():
        found = _report(_in_browser(page, tmp_path), "diagrams")
        assert len(found) == count, (page, found)
        assert all(d["svg"] and d["nodes"] > 0 for d in found), (page, found)


def test_plot_marks_in_code_blocks_are_one_column_each():
    page = ("<head></head><p>• a bullet</p><pre><code> 1.0┤⢕⢕ y •• dy/dx│</code></pre>")
    out = mkdocs_hooks.with_plot_cells(page)
    assert out.count('<span class="gc-cell">') == 4 and "<p>• a bullet</p>" in out
    assert ".gc-cell{display:inline-block;width:1ch" in out
    assert mkdocs_hooks.with_plot_cells("<pre>no plot</pre>") == "<pre>no plot</pre>"


@NEEDS_DOCS
@NEEDS_BROWSER
def test_terminal_plots_keep_their_columns_in_chromium(site, tmp_path):
    cells = _report(_in_browser(site / "understanding-backward" / "index.html", tmp_path),
                    "cells")
    assert len(cells["widths"]) > 100
    # within 2 % (1ch and the font's own advance differ by rounding): under a pixel across
    # a 64-column plot, where a fallback braille font was a quarter narrower
    column = cells["column"]
    assert all(abs(w - column) < 0.02 * column for w in cells["widths"]), (
        column, sorted(set(cells["widths"])))


@NEEDS_DOCS
@NEEDS_BROWSER
def test_a_screenshot_of_the_graph_offline(site, tmp_path):
    """The page as a person sees it, taken with no network: a real picture (the diagrams'
    SVGs are checked above; this proves the browser draws the page)."""
    shot = tmp_path / "graph.png"
    page = site / "understanding-backward" / "index.html"
    proc = subprocess.run([BROWSER, *OFFLINE, f"--user-data-dir={tmp_path / 'profile'}",
                           "--window-size=1280,2400", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000


def test_without_the_vendored_script_a_build_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setattr(vendor_mermaid, "CACHE", tmp_path / "absent")
    monkeypatch.setattr(vendor_mermaid.shutil, "which", lambda name: None)
    with pytest.raises(vendor_mermaid.VendorError, match="needs npm"):
        vendor_mermaid.fetch()
