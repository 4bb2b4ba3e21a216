"""The shell examples of the README and docs/: ```console blocks of `$ command` lines.

After each command come the lines it prints (stdout, then stderr), and `[exit N]` when it
exits with N != 0. Lines are compared without trailing spaces. Commands run in bash in a
scratch folder, with COLUMNS=80 and NO_COLOR=1, through the installed `gradcalc`.

A page's examples are cut into *segments* (`segments`): runs of consecutive examples that
share the files they name, each a self-contained test in its own scratch folder, so that
the test workers can share a long page out. A plain `gradcalc ...` command (no pipe,
redirection, variable or glob: `in_process_argv`) may run in-process through
`gradcalc.cli.main`, the function the installed script calls, which skips starting
Python and importing numpy and sympy again for each example; the README's examples and
the first of every page still go through the installed command.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.S)
ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}


@dataclass
class Example:
    file: str
    command: str
    expected: list[str]
    exit_code: int

    @property
    def id(self) -> str:
        return f"{self.file}: {self.command[:60]}"


def examples(path: Path) -> list[Example]:
    found = []
    for block in BLOCK.findall(path.read_text(encoding="utf-8")):
        current: Example | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = Example(path.name, line[2:], [], 0)
                found.append(current)
            elif current is not None:
                m = re.fullmatch(r"\[exit (\d+)\]", line.strip())
                if m:
                    current.exit_code = int(m.group(1))
                else:
                    current.expected.append(line.rstrip())
    return found


def _tidy(text: str) -> list[str]:
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return [line.rstrip() for line in lines]


def run(example: Example, cwd: Path) -> tuple[list[str], int]:
    """Run the example as a user would type it: in bash, through the installed command."""
    env = {**os.environ, **ENV}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-c", example.command], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)
    return _tidy(proc.stdout + proc.stderr), proc.returncode


# --------------------------------------------------------------------------- in-process

#: outside quotes, any of these makes the line more than one plain command for bash
#: (pipes, redirection, lists, variables, globs, escapes, comments, subshells)
SHELL_SYNTAX = set("|&;<>()$`\\*?[]{}~#!\n")
#: options that start processes or clusters of their own: those belong to a real process
OWN_PROCESSES = ("--jobs", "--engine")


def in_process_argv(command: str) -> list[str] | None:
    """The arguments of `gradcalc ARGS` when bash would pass them through unchanged (only
    plain words, '...' and "..." without `$`, backquote or backslash), else None."""
    quote = None
    for c in command:
        if quote == "'":
            quote = None if c == "'" else quote
        elif quote == '"':
            if c in "$`\\":
                return None
            quote = None if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c in SHELL_SYNTAX:
            return None
    if quote is not None:
        return None
    words = shlex.split(command)
    if not words or words[0] != "gradcalc" or "-" in words[1:]:  # `-`: standard input
        return None
    if any(w.split("=")[0] in OWN_PROCESSES for w in words):
        return None
    return words[1:]


@contextlib.contextmanager
def _as_the_shell_would(cwd: Path) -> Iterator[None]:
    """The scratch folder as working directory and the harness's variables, undone after."""
    saved = {k: os.environ.get(k) for k in ENV}
    before = Path.cwd()
    os.environ.update(ENV)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_in_process(argv: list[str], cwd: Path) -> tuple[list[str], int]:
    """`gradcalc ARGV` through `gradcalc.cli.main` (what the installed script runs), with
    stdout and stderr captured as the shell would: stdout's lines, then stderr's."""
    from gradcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _as_the_shell_would(cwd), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = main(list(argv))
    return _tidy(out.getvalue() + err.getvalue()), code


def run_fast(example: Example, cwd: Path, installed: bool = False) -> tuple[list[str], int]:
    """In-process when the line is one plain `gradcalc` command (and `installed` is not
    asked for), else as `run` does."""
    argv = None if installed else in_process_argv(example.command)
    return run(example, cwd) if argv is None else run_in_process(argv, cwd)


# --------------------------------------------------------------------------- segments

#: a file's name: a word with an extension (`key.csv`, `parts/part-0.csv`)
FILE_NAME = re.compile(r"[A-Za-z_][\w-]*(?:/[\w.-]+)*\.[A-Za-z]\w*")
#: commands whose plain arguments are files or folders (`ls pwned`, `mkdir parts`)
FILE_TOOLS = {"cat", "cp", "diff", "grep", "head", "ls", "mkdir", "mv", "rm", "sed", "sort",
              "tail", "touch", "wc"}
WORD = re.compile(r"[A-Za-z_][\w./-]*")


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # a quote shlex cannot read ($'...'): plain whitespace words
        return command.split()


def file_names(command: str) -> set[str]:
    """The files and folders a command names: words with an extension (and the folders
    of their paths), and the plain arguments of file tools."""
    names: set[str] = set()
    tool = False
    for token in _tokens(command):
        if token and set(token) <= set("|&;<>()"):
            tool = False
            continue
        if re.search(r"\s", token):
            continue
        if FILE_NAME.fullmatch(token):
            names.add(token)
            parts = token.split("/")
            names.update("/".join(parts[:k]) for k in range(1, len(parts)))
        elif tool and not token.startswith("-") and WORD.fullmatch(token):
            names.add(token)
        if not tool:
            tool = os.path.basename(token) in FILE_TOOLS
    return names


def mentions(command: str, name: str) -> bool:
    """Whether `command` names `name` anywhere (inside quotes too: `'touch pwned'`)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", command) is not None


def segments(found: list[Example]) -> list[range]:
    """The page cut where no example names a file that an example before the cut names:
    each range of examples is a self-contained run in its own scratch folder."""
    spans: list[list[int]] = [[i, i] for i in range(len(found))]
    names = set().union(*(file_names(e.command) for e in found)) if found else set()
    for name in names:
        where = [i for i, e in enumerate(found) if mentions(e.command, name)]
        if where:
            spans.append([where[0], where[-1]])
    merged: list[list[int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    return [range(start, stop + 1) for start, stop in merged]


def made_files(folder: Path) -> set[str]:
    """What a run left in its scratch folder: each path, and each folder on it."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def run_segment(found: list[Example], part: range, cwd: Path,
                installed: set[int] = frozenset()) -> None:
    """Run examples `part` of a page in order in `cwd` and compare each with the page;
    then check the cut: no example outside `part` names a file that `part` made."""
    for i in part:
        example = found[i]
        lines, code = run_fast(example, cwd, installed=i in installed)
        assert lines == example.expected, f"{example.id}\n" + "\n".join(lines)
        assert code == example.exit_code, f"{example.id}: exit {code}"
    made = made_files(cwd)
    for i, example in enumerate(found):
        if i in part:
            continue
        for name in sorted(made):
            assert not mentions(example.command, name), (
                f"{example.id} names {name}, which examples {part.start + 1}-{part.stop} "
                f"of the page made: `segments` should have kept them together")
