"""The shell examples of the README and docs/: ```console blocks of `$ command` lines.

After each command come the lines it prints (stdout, then stderr), and `[exit N]` when it
exits with N != 0. Lines are compared without trailing spaces. Commands run in bash in a
scratch folder, with COLUMNS=80 and NO_COLOR=1, through the installed `gradcalc`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


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


def run(example: Example, cwd: Path) -> tuple[list[str], int]:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(["bash", "-c", example.command], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)
    lines = (proc.stdout + proc.stderr).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return [line.rstrip() for line in lines], proc.returncode
