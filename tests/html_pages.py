"""What the HTML tests share: a page read into its tags and text, and the headless
browser that draws pages where one is installed."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

#: a headless Chromium, or None (the tests that draw a page skip without it)
BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(n)), None)


class Page(HTMLParser):
    """Every tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def read_page(html: str) -> Page:
    """An HTML text read whole."""
    page = Page()
    page.feed(html)
    page.close()
    return page


def read_file(path: Path) -> Page:
    return read_page(path.read_text(encoding="utf-8"))


#: put into a page's head: each <math> drawn (a MathML element, its size) and each
#: fraction's numerator above its denominator, in the page's data-math attribute
PROBE = """<script>
addEventListener("load", () => {
  const box = (e) => e.getBoundingClientRect();
  const maths = [...document.querySelectorAll("math")].map((m) => ({
    mathml: m instanceof MathMLElement, width: box(m).width, height: box(m).height}));
  const fractions = [...document.querySelectorAll("mfrac")].map((f) =>
    box(f.children[0]).bottom <= box(f.children[1]).top + 1);
  document.documentElement.dataset.math = JSON.stringify({maths, fractions});
});
</script>"""


def drawn_math(page: Path, scratch: Path) -> dict:
    """How headless Chromium draws a page's math, offline: {"maths": [...],
    "fractions": [...]} (PROBE)."""
    import json
    import re
    import subprocess
    from html import unescape

    probe = scratch / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>" + PROBE, 1),
                     encoding="utf-8")
    proc = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--host-resolver-rules=MAP * ~NOTFOUND",
                           "--virtual-time-budget=10000",
                           f"--user-data-dir={scratch / 'profile'}", "--dump-dom",
                           probe.as_uri()], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'data-math="([^"]*)"', proc.stdout)
    assert m, proc.stdout[:2000]
    return json.loads(unescape(m.group(1)))
