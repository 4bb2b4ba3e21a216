"""Output files written whole or not at all: each to a temporary file beside it, then all
renamed into place; on any error the temporary files are removed and no output changes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gradcalc.errors import GradcalcError


def writable(path: str, option: str) -> None:
    """Refuse, before any work, an output whose folder does not exist or is a file."""
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise GradcalcError(f"{option} {path}: the folder {str(folder)!r} does not exist",
                            kind="usage")
    if Path(path).is_dir():
        raise GradcalcError(f"{option} {path}: is a folder, not a file", kind="usage")


def write_all(files: dict[str, str]) -> None:
    """Write every (path, text) atomically: all of them, or (on error) none."""
    staged: list[tuple[str, str]] = []
    mask = os.umask(0)
    os.umask(mask)
    try:
        for path, text in files.items():
            folder = str(Path(path).resolve().parent)
            fd, temp = tempfile.mkstemp(prefix=".gradcalc-", suffix=".tmp", dir=folder)
            staged.append((temp, path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            os.chmod(temp, 0o666 & ~mask)
        for temp, path in staged:
            os.replace(temp, path)
    except OSError as exc:
        for temp, _ in staged:
            if os.path.exists(temp):
                os.unlink(temp)
        raise GradcalcError(f"cannot write {exc.filename or 'an output file'}: "
                            f"{exc.strerror}", kind="usage") from None
