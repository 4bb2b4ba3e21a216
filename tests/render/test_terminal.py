"""gradcalc.render.terminal.Bar: the one progress bar, for a table's points (stages) and a
class file's rows (steps), shown only on a terminal and for long work."""

from __future__ import annotations

import io
import sys

from gradcalc.render.terminal import Bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_for_short_work_or_off_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())  # in the test: capture resets it
    assert Bar(9, "checking", least=10).bar is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert Bar(10**6).bar is None


def test_a_bar_counts_steps_and_stages(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bar = Bar(20, "checking", least=10)
    try:
        assert bar.bar is not None
        bar.advance(3)
        bar.advance()
        task = bar.bar.tasks[0]
        assert (task.description, task.completed, task.total) == ("checking", 4, 20)
        bar("evaluating", 7, 30)
        assert (task.description, task.completed, task.total) == ("evaluating", 7, 30)
    finally:
        bar.close()
