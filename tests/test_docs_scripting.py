"""Every shell example of docs/scripting.md runs and prints what the page says."""

from __future__ import annotations

from docs_examples import ROOT, examples, run

PAGE = ROOT / "docs" / "scripting.md"
EXAMPLES = examples(PAGE)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 10


def test_the_page_runs_in_order(tmp_path):
    """One test for the whole page, in one scratch folder: later examples read files
    earlier ones made, so the page cannot be split between test workers."""
    for example in EXAMPLES:
        lines, code = run(example, tmp_path)
        assert lines == example.expected, f"{example.id}\n" + "\n".join(lines)
        assert code == example.exit_code, f"{example.id}: exit {code}"
