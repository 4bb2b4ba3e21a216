"""Start-up: sympy only when a symbolic check runs; rich only for the readable output;
the fast extra (polars, pyarrow, numexpr) and plotext only where a job uses them. Every
command's smallest job is here: what it imports is its start-up's work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def all_modules_after(code: str, stdin: str | None = None) -> set[str]:
    """Run `code` in a fresh interpreter; every module it had imported at the end."""
    script = code + "\nimport sys\nprint('\\nMODULES', ' '.join(sys.modules), file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          input=stdin, timeout=120)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, proc.stderr
    return set(line[-1].split()[1:])


def modules_after(code: str, stdin: str | None = None) -> set[str]:
    """Run `code` in a fresh interpreter; the top-level modules it had imported at the end."""
    return {m.split(".")[0] for m in all_modules_after(code, stdin)}


def cli_code(*args: str) -> str:
    return (f"from gradcalc.cli import main\ntry:\n    main({list(args)!r})\n"
            "except SystemExit:\n    pass")


def cli(*args: str, stdin: str | None = None) -> set[str]:
    return modules_after(cli_code(*args), stdin)


def cli_modules(*args: str, stdin: str | None = None) -> set[str]:
    """Every module (`gradcalc.render.terminal`, `sympy.tensor.tensor`) a CLI job imports."""
    return all_modules_after(cli_code(*args), stdin)


def script_modules(*args: str) -> set[str]:
    """Every module loaded from a file by the script's whole process (`gradcalc.cli.run`,
    what `gradcalc` and `python -m gradcalc` run, as the benchmark times it), listed as
    the process exits; the job must succeed."""
    code = ("import atexit, sys\natexit.register(lambda: print('\\nMODULES', *[m for m, v in "
            "list(sys.modules.items()) if getattr(v, '__file__', None)], file=sys.stderr))\n"
            f"sys.argv = ['gradcalc', *{list(args)!r}]\nfrom gradcalc.cli import run\nrun()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line and proc.returncode == 0, proc.stderr
    return set(line[-1].split()[1:])


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


def test_the_command_line_does_not_load_the_library():
    """`import gradcalc.cli` runs gradcalc/__init__.py, which takes the library's names
    (gradcalc.api, gradcalc.autograd) only on their first use."""
    mods = cli_modules("grad", "y = 2*x**2", "--at", "x=1", "--no-check")
    assert not {"gradcalc.api", "gradcalc.autograd"} & mods


def test_a_command_declares_its_own_options_alone():
    """grad neither imports the other commands' modules nor what they declare options
    from (check's kinds registry)."""
    mods = cli_modules("grad", "y = 2*x**2", "--at", "x=1", "--no-check")
    assert not {"gradcalc.cli.checking", "gradcalc.cli.classes", "gradcalc.cli.handouts",
                "gradcalc.homework.kinds.registry"} & mods


def test_the_library_is_loaded_by_its_first_name():
    code = ("import sys, gradcalc\nprint('gradcalc.api' in sys.modules)\n"
            "gradcalc.tensor([1.0])\nprint('gradcalc.api' in sys.modules)\n"
            "from gradcalc import nn, autograd\nprint(autograd.grad is gradcalc.autograd.grad)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.split() == ["False", "True", "True"], proc.stderr


def test_the_library_makes_its_random_stream_on_first_use():
    """numpy.random is start-up time every command would pay; only the library's random
    constructors and dropout need it."""
    code = ("import sys, gradcalc.cli\nprint('numpy.random' in sys.modules)\n"
            "import gradcalc\ngradcalc.manual_seed(0)\nprint('numpy.random' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.split() == ["False", "True"], proc.stderr


@pytest.fixture
def files(tmp_path):
    """A class, an answer key, a roster, saved verdicts and a job: the smallest inputs of
    the class commands and batch."""
    (tmp_path / "class.csv").write_text("id,function,answer\n1,x^2,2x\n")
    (tmp_path / "key.csv").write_text("problem,function,points,wrt\n1,x^2,1,\n")
    (tmp_path / "roster.csv").write_text("Email,Name\nana@uni.edu,Ana\n")
    (tmp_path / "job.jsonl").write_text('{"command": "grad", "program": "y = x**2", '
                                        '"at": "x=1"}\n')
    (tmp_path / "points.csv").write_text("x\n1\n2\n")
    verdict = subprocess.run([sys.executable, "-m", "gradcalc", "check", "x^2", "--answer",
                              "2x", "--json"], capture_output=True, text=True, timeout=120)
    (tmp_path / "verdicts.jsonl").write_text(verdict.stdout)
    autograder_root(tmp_path / "ag", tmp_path / "key.csv")
    return tmp_path


def autograder_root(root: Path, key: Path) -> None:
    """The smallest tree `gradcalc autograde` judges: the key and settings of the
    autograder's zip, one user's metadata, a one-line answers file."""
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    (root / "source" / "key.csv").write_text(key.read_text())
    (root / "source" / "settings.json").write_text('{"answers": "never"}\n')
    (root / "submission_metadata.json").write_text('{"users": [{"email": "ana@uni.edu"}]}\n')
    (root / "submission" / "answers.txt").write_text("1: 2x\n")


#: each command's smallest job (FILES: the fixture's folder), and whether it shows its
#: result through rich (the readable default) and checks on sympy
SMALLEST = [
    (("grad", "y = 2*x**2", "--at", "x=1"), True, True),
    (("jacobian", "y = [x, x**2]", "--at", "x=1"), True, True),
    (("hessian", "y = x**3", "--at", "x=1"), True, True),
    (("grad", "y = x**2", "--points", "FILES/points.csv", "--no-check"), False, False),
    (("batch", "FILES/job.jsonl"), False, True),
    (("plot", "y = x**2", "--over", "x=-1:1"), False, False),
    (("check", "x^2", "--answer", "2x"), True, True),
    (("check", "x^2", "--answer", "2x", "--plain"), False, True),
    (("check", "x^2", "--answer", "2x", "--json"), False, True),
    (("derive", "x^2"), True, True),
    (("derive", "x^2", "--plain"), False, True),
    (("grade", "FILES/class.csv", "--plain"), False, True),
    (("grade", "FILES/class.csv", "--json"), False, True),
    (("replay", "FILES/verdicts.jsonl"), False, True),
    (("sheets", "--key", "FILES/key.csv", "--roster", "FILES/roster.csv", "--plain"),
     False, True),
    (("autograder", "--key", "FILES/key.csv", "--out", "FILES/ag.zip"), False, False),
    (("autograde", "--root", "FILES/ag"), False, True),
]
#: imported by no command's smallest job: numpy.ma (np.unique imports it), the library
UNUSED = {"numpy.ma", "gradcalc.api", "gradcalc.autograd"}
#: imported only by the jobs that use them
EXTRAS = {"polars", "pyarrow", "numexpr", "plotext", "matplotlib", "dask", "distributed"}


@pytest.mark.parametrize("args,readable,checked", SMALLEST, ids=lambda a: " ".join(a)
                         if isinstance(a, tuple) else None)
def test_every_commands_smallest_job_imports_only_what_it_uses(files, args, readable,
                                                                 checked):
    every = script_modules(*(a.replace("FILES", str(files)) for a in args))
    mods = {m.split(".")[0] for m in every}
    assert ("rich" in mods) is readable
    assert ("sympy" in mods) is checked
    assert mods & EXTRAS == ({"plotext"} if args[0] == "plot" else set())
    assert not UNUSED & every


def test_a_small_points_table_does_not_import_the_fast_extra():
    """polars' import costs more than its reader and writer save on a small table."""
    mods = cli("grad", "y = x**2", "--points", "-", "--no-check", stdin="x\n1\n2\n")
    assert not {"polars", "pyarrow", "numexpr"} & mods


@pytest.mark.parametrize("command", ["grad", "jacobian", "hessian", "batch", "plot", "check",
                                     "derive", "grade", "replay", "sheets", "autograder",
                                     "autograde"])
def test_every_commands_help_imports_neither_sympy_nor_rich(command):
    assert not ({"sympy", "rich"} | EXTRAS) & cli(command, "--help")


#: the other kinds' judges (and what only they import): a derivative's job loads none
OTHER_KINDS = {"gradcalc.homework.kinds.antiderivative", "gradcalc.homework.kinds.implicit",
               "gradcalc.homework.kinds.tangent", "gradcalc.homework.kinds.tensor_loss",
               "gradcalc.homework.kinds.at_point", "gradcalc.homework.kinds.on_curve",
               "gradcalc.homework.kinds.curve", "gradcalc.homework.backprop"}


@pytest.mark.parametrize("args", [("derive", "x^2"), ("check", "x^2", "--answer", "2x")])
def test_a_derivatives_job_imports_no_other_kinds_module(args):
    assert not OTHER_KINDS & cli_modules(*args)


@pytest.mark.parametrize("args", [args for args, _, checked in SMALLEST if checked],
                         ids=" ".join)
def test_the_checks_of_the_script_load_no_tensor_module_of_sympy(files, args):
    """sympy's first sum would import sympy.tensor.tensor and sympy.combinatorics (about
    20 ms); the script loads them only for a tensor (gradcalc.cli.deferred)."""
    every = script_modules(*(a.replace("FILES", str(files)) for a in args))
    assert "sympy" in every
    assert not {m for m in every if m.startswith(("sympy.tensor.tensor",
                                                  "sympy.combinatorics"))}
