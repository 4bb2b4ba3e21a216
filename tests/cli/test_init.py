"""gradcalc.cli's table of commands: a run declares its own command alone, the whole app
(`gradcalc.cli.app`, for --help and typer's CliRunner) has them all in the same order;
the script's entry (`run`) ends with the garbage collector's objects frozen."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from gradcalc import cli


def test_the_table_names_every_command_of_the_whole_app_in_help_order():
    assert [c.name for c in cli.whole_app().registered_commands] == list(cli.COMMANDS)
    assert cli.app is cli.whole_app()


def test_the_help_order_holds_after_a_command_declared_alone():
    code = ("from gradcalc.cli import main, whole_app\nmain(['derive', 'x^2', '--plain'])\n"
            "main(['plot', '--help'])\n"
            "print('ORDER', *[c.name for c in whole_app().registered_commands])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    order = [line for line in proc.stdout.splitlines() if line.startswith("ORDER ")]
    assert order == ["ORDER " + " ".join(cli.COMMANDS)], proc.stderr


def test_a_command_outside_the_table_comes_after_its_commands():
    code = ("from gradcalc.cli import whole_app\nfrom gradcalc.cli.declaring import declare\n"
            "declare('toy', 'A toy.', [], lambda options: None)\n"
            "print('ORDER', *[c.name for c in whole_app().registered_commands])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    order = [line for line in proc.stdout.splitlines() if line.startswith("ORDER ")]
    assert order == ["ORDER " + " ".join([*cli.COMMANDS, "toy"])], proc.stderr


def test_a_run_imports_the_module_of_its_command_alone():
    code = ("import sys\nfrom gradcalc.cli import main\nmain(['plot', '--help'])\n"
            "print('MODULES', *sorted(m for m in sys.modules if m.startswith('gradcalc.cli.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("MODULES ")]
    assert set(line.split()[1:]) == {"gradcalc.cli.declaring", "gradcalc.cli.options",
                                     "gradcalc.cli.plotting", "gradcalc.cli.stdout"}, line


#: prints, at the very end of the process, whether the collector's objects were frozen
AT_EXIT = ("import atexit, gc, sys\n"
           "atexit.register(lambda: print('FROZEN', gc.get_freeze_count() > 0))\n")


@pytest.mark.parametrize("args,code", [(["derive", "x^2", "--plain"], 0),
                                       (["check", "x^2", "--answer", "3x", "--plain"], 1),
                                       (["grad", "y = (", "--at", "x=1"], 2)])
def test_the_script_exits_with_mains_code_and_the_collector_frozen(args, code):
    """The interpreter's last collections would pass over every object the run made."""
    script = AT_EXIT + f"sys.argv = ['gradcalc', *{args!r}]\nfrom gradcalc.cli import run\nrun()"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.splitlines()[-1] == "FROZEN True"


def _collections(entry: str) -> int:
    """The collections a whole `derive x^2` process starts, through `entry`: `run()`
    or `main(args)`."""
    script = ("import atexit, gc, sys\ncollections = []\n"
              "gc.callbacks.append(lambda phase, info: collections.append(phase))\n"
              "atexit.register(lambda: print('COLLECTED', collections.count('start')))\n"
              "sys.argv = ['gradcalc', 'derive', 'x^2', '--plain']\n"
              f"from gradcalc.cli import {entry}\n"
              + ("run()" if entry == "run" else "main(sys.argv[1:])"))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("COLLECTED ")]
    return int(line.split()[1])


def test_the_scripts_collector_passes_a_few_times_not_hundreds():
    """At 700 new objects a collection (`main` in-process keeps it), importing sympy
    alone collects about 200 times; the script's entry, a few tens at most (how many
    depends on what is compiled on the way)."""
    few, many = _collections("run"), _collections("main")
    assert few <= 60 and few * 3 < many, (few, many)
    assert gc.get_threshold()[0] == 700  # the test process's own collector is untouched


@pytest.mark.parametrize("args", [["derive", "x^2"], ["check", "x^2", "--answer", "2x"]])
def test_a_small_checks_script_collects_nothing_once_started(args):
    """A smallest job keeps about 140,000 objects (sympy's import most): under
    YOUNGEST_GENERATION, so no collection walks them (at 50,000, two took 27 ms). Only
    the few while `gradcalc.cli` itself is imported, at Python's 700, remain."""
    script = ("import atexit, gc, sys\nstarted = []\n"
              "gc.callbacks.append(lambda phase, info: phase == 'start' and "
              "started.append(gc.get_threshold()[0]))\n"
              "atexit.register(lambda: print('AFTER', sum(t != 700 for t in started)))\n"
              f"sys.argv = ['gradcalc', *{args!r}]\nfrom gradcalc.cli import run\nrun()")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.splitlines()[-1] == "AFTER 0", proc.stderr


def test_python_dash_m_and_the_installed_script_go_through_run():
    script = (AT_EXIT + "sys.argv = ['gradcalc', 'derive', 'x^2', '--plain']\n"
              "import runpy\nrunpy.run_module('gradcalc', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.splitlines()[-1] == "FROZEN True", proc.stderr
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["gradcalc"] == "gradcalc.cli:run"


def test_main_in_process_leaves_the_collector_as_it_was():
    import gc

    before = gc.get_freeze_count()
    cli.main(["derive", "x^2", "--plain"])
    assert gc.get_freeze_count() == before and gc.isenabled()


#: prints OpenBLAS's spin setting as NumPy is first imported (when OpenBLAS reads it)
AT_NUMPY = ("import builtins, os, sys\nseen = []\nplain = builtins.__import__\n"
            "def spy(name, *args, **kw):\n"
            "    if name == 'numpy' and not seen and 'numpy' not in sys.modules:\n"
            "        seen.append(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
            "        print('AT NUMPY', seen[0])\n"
            "    return plain(name, *args, **kw)\n"
            "builtins.__import__ = spy\n")


@pytest.mark.parametrize("preset,expected", [(None, "4"), ("20", "20")])
def test_the_script_tells_openblas_not_to_spin_before_numpy_loads_it(preset, expected):
    """OpenBLAS's idle threads spin 45-65 ms of CPU at NumPy's import unless told not to
    (`cli.OPENBLAS_SPIN`); a user's own setting is kept."""
    import os

    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")}
    if preset is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = preset
    script = (AT_NUMPY + "sys.argv = ['gradcalc', 'grad', 'y = 2*x**2', '--at', 'x=1', "
              "'--no-check']\nfrom gradcalc.cli import run\nrun()")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert f"AT NUMPY {expected}" in proc.stdout.splitlines()


def test_main_in_process_leaves_the_environment_as_it_was():
    import os

    before = dict(os.environ)
    cli.main(["grad", "y = 2*x**2", "--at", "x=1", "--no-check"])
    assert dict(os.environ) == before
