"""Forgiving command lines: what a user types that an option parser would misread.

A program that starts with `-` (`grad "-x^2" --at x=1`) looks like an option to click,
so before parsing, such an argument in the program's place gets a leading space (which
the program reader strips). A program argument that names an existing file and is not a
program gets "did you mean @FILE?".
"""

from __future__ import annotations

import os
import textwrap
from typing import Any

from gradcalc.errors import GradcalcError


def _options(command: Any) -> tuple[set[str], set[str]]:
    """(every option name of `command`, the names of options that take a value)."""
    names: set[str] = {"--help", "-h"}
    valued: set[str] = set()
    for param in getattr(command, "params", []):
        opts = [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]
        if not any(o.startswith("-") for o in opts):
            continue
        names.update(opts)
        if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
            valued.update(opts)
    return names, valued


def _is_option(token: str, names: set[str], valued: set[str]) -> bool:
    """Whether click would read `token` as one of the command's options (`--at`,
    `--at=x=1`, `-a`, `-ax=1`, `-w[1,1]`)."""
    if token in names or token.split("=", 1)[0] in names and token.startswith("--"):
        return True
    short, rest = token[:2], token[2:]
    if short in valued and rest:
        return "=" in rest or (short == "-w" and rest[:1] in "[(0123456789.")
    return False


def protect_dash_program(args: list[str], group: Any) -> list[str]:
    """`args` with a program that starts with '-' (in the program's place, after the
    command name) given a leading space, so the option parser takes it as the program."""
    commands = getattr(group, "commands", {})
    start = next((k for k, a in enumerate(args) if not a.startswith("-")), None)
    if start is None or args[start] not in commands:
        return args
    command = commands[args[start]]
    if not any(getattr(p, "param_type_name", "") == "argument" for p in command.params):
        return args
    names, valued = _options(command)
    out = list(args)
    k = start + 1
    while k < len(out):
        token = out[k]
        if token == "--" or not token.startswith("-") or token == "-":
            return out  # the program's place is taken (or everything after is positional)
        if _is_option(token, names, valued):
            k += 2 if token in valued else 1
            continue
        if token.startswith("--"):
            return out  # an unknown --option: click says so
        out[k] = " " + token
        return out
    return out


def tidy(text: str) -> str:
    """The program text without its surrounding whitespace (and a common indent), so
    `" x**2"` is `x**2`, not an unexpected indent."""
    return textwrap.dedent(text).strip()


def check_not_a_file(text: str, error: GradcalcError) -> GradcalcError:
    """`error` (the program did not parse), or an error that asks "did you mean @FILE?"
    when the program text is the name of an existing file."""
    name = text.strip()
    if name and "\n" not in name and len(name) < 4096 and os.path.isfile(name):
        return GradcalcError(f"{name!r} is a file, not a program: did you mean @{name}? "
                             "(@FILE reads the program from a file)", kind="usage")
    return error
