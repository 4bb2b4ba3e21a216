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
