"""The command line: a thin shell that reads arguments, calls the computations, and
hands their results to a format's writers (`gradcalc.render.formats`).

Each command is declared in its own module on the one typer app (`cli.declaring`), its
options as data: the derivative commands (`differentiate`), a student's check (`checking`)
and worked solution (`deriving`), a teacher's grade and replay (`classes`), the sheets
handed out (`handouts`), batch (`scripting`) and plot (`plotting`). A run imports the
module of its command alone (`COMMANDS`); `gradcalc.cli.app` is the whole app. One place
(`main`) maps every failure to an `error:` line and an exit code: 0 success, 1 a check
failed, 2 bad input or usage. No traceback ever reaches the user.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

import typer

try:  # typer >= 0.2x carries its own copy of click (click is not installed with it)
    from typer._click.exceptions import ClickException, NoSuchOption, UsageError
except ImportError:  # older typer, built on click
    from click.exceptions import ClickException, NoSuchOption, UsageError

from gradcalc.cli.stdout import printable
from gradcalc.errors import GradcalcError, failure
from gradcalc.render.formats import JSON, RICH, Format

#: each command and the module of gradcalc.cli that declares it, in the order --help
#: lists them
COMMANDS = {"grad": "differentiate", "jacobian": "differentiate", "hessian": "differentiate",
            "batch": "scripting", "plot": "plotting", "check": "checking", "derive": "deriving",
            "grade": "classes", "replay": "classes", "sheets": "handouts",
            "autograder": "autograding", "autograde": "autograding"}

#: commands whose output is JSON whatever the options say (their errors are JSON too)
JSON_COMMANDS = ("batch",)


def _fail(fmt: Format, category: str, message: str) -> int:
    message = printable(message)
    fmt.error(category, message, sys.stdout)
    sys.stderr.write(f"error: {message}\n")
    return 2


#: options that were removed, and the command that does their work now
MOVED = {"--replay": "saved verdicts are judged again by `gradcalc replay FILE.jsonl`",
         "--file": "a class file is graded by `gradcalc grade FILE --key KEY.csv`"}


def _elsewhere(exc: NoSuchOption, command: object) -> str:
    """For an option that another command has (`check --key`), which command it is; for
    a removed one, its new home."""
    name, here = exc.option_name, getattr(command, "commands", {})
    if name in MOVED:
        return f": {MOVED[name]}"
    hosts = [n for n, c in here.items() if any(name in getattr(p, "opts", ())
                                               for p in c.params)]
    return f" ({name} is an option of gradcalc {' and '.join(hosts)})" if hosts else ""


def _asks_json(args: list[str]) -> bool:
    """Whether the arguments ask for JSON (--json, --format json): errors are JSON too."""
    pairs = zip(args, [*args[1:], ""])
    return "--json" in args or "--format=json" in args or ("--format", "json") in pairs


def whole_app() -> typer.Typer:
    """The typer app with every command declared, in the order --help lists them."""
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"gradcalc.cli.{module}")
    from gradcalc.cli.declaring import app

    order = {name: k for k, name in enumerate(COMMANDS)}  # any other command after them
    app.registered_commands.sort(key=lambda c: order.get(c.name, len(order)))
    return app


def __getattr__(name: str) -> typer.Typer:
    """`gradcalc.cli.app`: the whole app (for typer's CliRunner and the docs' help pages)."""
    if name != "app":
        raise AttributeError(f"module 'gradcalc.cli' has no attribute {name!r}")
    return whole_app()


def _app_for(args: list[str]) -> typer.Typer:
    """The app with only the command that `args` start with: its module alone is imported
    and typer builds that command's options alone (the others' cost every run about
    10 ms); the whole app for anything else (its --help, --version, a name that is no
    command)."""
    import copy

    if not args or args[0] not in COMMANDS:
        return whole_app()
    importlib.import_module(f"gradcalc.cli.{COMMANDS[args[0]]}")
    from gradcalc.cli.declaring import app

    one = copy.copy(app)
    one.registered_commands = [c for c in app.registered_commands if c.name == args[0]]
    return one


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gradcalc` script: run the app, map failures to exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    from gradcalc.render.encoding import tolerate_narrow_streams

    tolerate_narrow_streams()
    first = next((a for a in args if not a.startswith("-")), None)
    fmt = JSON if _asks_json(args) or first in JSON_COMMANDS else RICH
    from typer.main import get_command

    from gradcalc.cli.options import protect_dash_program

    command = get_command(_app_for(args))
    if not args:
        args = ["--help"]  # bare `gradcalc`: the help, and success
    try:
        code = command.main(args=protect_dash_program(args, command), prog_name="gradcalc",
                            standalone_mode=False)
        return code if isinstance(code, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except NoSuchOption as exc:
        moved = exc.option_name in MOVED
        said = f"No such option: {exc.option_name}" if moved else exc.format_message()
        return _fail(fmt, "usage", said + _elsewhere(exc, get_command(whole_app())))
    except UsageError as exc:
        return _fail(fmt, "usage", exc.format_message())
    except ClickException as exc:
        return _fail(fmt, "usage", exc.format_message())
    except typer.Abort:
        return _fail(fmt, "usage", "aborted")
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a clean line
        if os.environ.get("GRADCALC_DEBUG") and not isinstance(
                exc, (GradcalcError, RecursionError, MemoryError)):
            raise
        return _fail(fmt, *failure(exc, "set GRADCALC_DEBUG=1 for a traceback and please "
                                   "report it"))


#: the script's youngest generation: collected after this many new objects, not 700
#: (importing sympy makes some 300,000; at 700 each, some 200 collections pass over the
#: older objects again: 25 to 35 ms of a check's start-up). Every command's smallest job
#: keeps about 140,000 tracked objects, sympy's mostly: below this it collects none (at
#: 50,000 two collections took 27 ms); a larger job walks each young object once either
#: way (docs/performance.md, W5)
YOUNGEST_GENERATION = 200_000

#: OpenBLAS's setting of how long its idle worker threads spin, as a power of two of CPU
#: cycles, before they sleep (its default, 28, is a quarter of a second's cycles). NumPy
#: loads OpenBLAS with a thread per core, and each spins that long at once though no
#: command has asked it for anything: 45 to 65 ms of CPU on every start, on the other
#: core. At 4 (OpenBLAS's least) they sleep at once; a matrix product still gets every
#: core, woken when it is asked for (docs/performance.md, W3 and W5).
OPENBLAS_SPIN = ("OPENBLAS_THREAD_TIMEOUT", "4")


def _quiet_openblas() -> None:
    """OpenBLAS's idle threads told not to spin (`OPENBLAS_SPIN`), unless the user set
    their own timeout; only before NumPy is imported does OpenBLAS read it."""
    if "numpy" in sys.modules:
        return
    name, cycles = OPENBLAS_SPIN
    if name not in os.environ and "GOTO_THREAD_TIMEOUT" not in os.environ:
        os.environ[name] = cycles


def run() -> None:
    """The `gradcalc` script and `python -m gradcalc`: `main`, with the collector's
    youngest generation larger (YOUNGEST_GENERATION), then the exit without the
    interpreter's last garbage collections. Those pass over every object the run made
    (after a check, sympy's: 70 to 150 ms of CPU, docs/performance.md, W5) to find
    cycles that the process's end frees anyway; `gc.freeze()` hides them from the
    collector. The rest of the exit is Python's: atexit handlers, flushed streams,
    modules torn down. sympy's tensor module is loaded when a tensor is used, not on
    sympy's first sum (`cli.deferred`), and OpenBLAS's idle threads do not spin
    (`OPENBLAS_SPIN`). In-process callers (tests, CliRunner) call `main` and keep their
    collector, imports and environment as they were."""
    from gradcalc.cli.deferred import defer_sympy_tensors

    _quiet_openblas()
    defer_sympy_tensors()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNGEST_GENERATION, middle, oldest)
    code = main()
    gc.freeze()
    sys.exit(code)
