"""Start-up: sympy only when a symbolic check runs; rich only for the readable output."""

from __future__ import annotations

import subprocess
import sys

import pytest


def modules_after(code: str, stdin: str | None = None) -> set[str]:
    """Run `code` in a fresh interpreter; the top-level modules it had imported at the end."""
    script = (code + "\nimport sys\nprint('\\nMODULES', ' '.join(sorted({m.split('.')[0] "
              "for m in sys.modules})), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          input=stdin, timeout=120)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, proc.stderr
    return set(line[-1].split()[1:])


def cli(*args: str, stdin: str | None = None) -> set[str]:
    return modules_after(f"from gradcalc.cli import main\ntry:\n    main({list(args)!r})\n"
                         "except SystemExit:\n    pass", stdin)


@pytest.mark.parametrize("args", [
    ("grad", "y = 2*x**2", "--at", "x=1", "--no-check"),
    ("grad", "y = 2*x**2", "--at", "x=1", "--no-check", "--json"),
    ("jacobian", "y = [x, x**2]", "--at", "x=1", "--no-check", "--plain"),
    ("--help",),
    ("grad", "--help"),
    ("grad", "y = (", "--at", "x=1"),
])
def test_sympy_is_not_imported_without_a_check(args):
    assert "sympy" not in cli(*args)


def test_sympy_is_not_imported_by_batch_and_points_without_checks():
    job = '{"command": "grad", "program": "y = x**2", "at": "x=1"}\n'
    assert "sympy" not in cli("batch", "--no-check", "-", stdin=job)
    assert "sympy" not in cli("grad", "y = x**2", "--points", "-", "--no-check",
                              stdin="x\n1\n2\n")


def test_the_check_does_import_sympy():
    assert "sympy" in cli("grad", "y = 2*x**2", "--at", "x=1", "--json")


def test_machine_output_does_not_import_rich():
    mods = cli("grad", "y = 2*x**2", "--at", "x=1", "--no-check", "--json")
    assert "rich" not in mods
    assert "rich" in cli("grad", "y = 2*x**2", "--at", "x=1", "--no-check")


def test_the_library_and_the_parser_import_neither_sympy_nor_the_cli_stack():
    mods = modules_after("import gradcalc\nfrom gradcalc.language.parse import parse\n"
                         "parse('y = sin(x)**2')\n"
                         "gradcalc.tensor([1.0], requires_grad=True).sum().backward()")
    assert not {"sympy", "rich", "typer"} & mods


def test_the_library_makes_its_random_stream_on_first_use():
    """numpy.random is start-up time every command would pay; only the library's random
    constructors and dropout need it."""
    code = ("import sys, gradcalc.cli\nprint('numpy.random' in sys.modules)\n"
            "import gradcalc\ngradcalc.manual_seed(0)\nprint('numpy.random' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.split() == ["False", "True"], proc.stderr
