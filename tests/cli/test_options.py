"""Forgiving command lines (cli/options.py)."""

from __future__ import annotations

import pytest

from gradcalc.cli.options import check_not_a_file, protect_dash_program, tidy
from gradcalc.errors import GradcalcError


@pytest.fixture(scope="module")
def group():
    import typer.main

    from gradcalc.cli import app

    return typer.main.get_command(app)


@pytest.mark.parametrize("args,expected", [
    (["grad", "-x^2", "--at", "x=1"], ["grad", " -x^2", "--at", "x=1"]),
    (["grad", "--at", "x=1", "-x"], ["grad", "--at", "x=1", " -x"]),
    (["grad", "-ax=1", "-a*b"], ["grad", "-ax=1", " -a*b"]),
    (["grad", "--json", "-2*x"], ["grad", "--json", " -2*x"]),
    (["grad", "y = x", "-a", "x=1"], ["grad", "y = x", "-a", "x=1"]),
    (["grad", "-", "--at", "x=1"], ["grad", "-", "--at", "x=1"]),
    (["grad", "--bogus", "y"], ["grad", "--bogus", "y"]),
    (["--help"], ["--help"]),
])
def test_protect_dash_program(group, args, expected):
    assert protect_dash_program(args, group) == expected


def test_tidy():
    assert tidy("  x**2 \n") == "x**2"
    assert tidy("\n  if x > 0:\n    y = x\n") == "if x > 0:\n  y = x"


def test_a_file_name_gets_a_hint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chain.txt").write_text("y = x")
    original = GradcalcError("attribute access")
    assert "did you mean @chain.txt?" in check_not_a_file("chain.txt", original).message
    assert check_not_a_file("other.txt", original) is original
