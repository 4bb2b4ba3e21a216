"""Every shell example of docs/scripting.md runs and prints what the page says."""

from __future__ import annotations

import pytest

from docs_examples import ROOT, examples, run_segment, segments

PAGE = ROOT / "docs" / "scripting.md"
EXAMPLES = examples(PAGE)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("part", segments(EXAMPLES),
                         ids=lambda r: f"{r.start + 1}-{r.stop}" if len(r) > 1 else f"{r.stop}")
def test_the_page_runs(part, tmp_path):
    """Consecutive examples that share files run together, in order, in one scratch
    folder (`segments`); the page's first example through the installed command."""
    run_segment(EXAMPLES, part, tmp_path, installed={0})
