"""gradcalc.cli's table of commands: a run declares its own command alone, the whole app
(`gradcalc.cli.app`, for --help and typer's CliRunner) has them all in the same order."""

from __future__ import annotations

import subprocess
import sys

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


def test_a_run_imports_the_module_of_its_command_alone():
    code = ("import sys\nfrom gradcalc.cli import main\nmain(['plot', '--help'])\n"
            "print('MODULES', *sorted(m for m in sys.modules if m.startswith('gradcalc.cli.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("MODULES ")]
    assert set(line.split()[1:]) == {"gradcalc.cli.declaring", "gradcalc.cli.options",
                                     "gradcalc.cli.plotting", "gradcalc.cli.stdout"}, line
