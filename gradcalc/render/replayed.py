"""Saved verdicts judged again (`gradcalc replay`), written: one line per verdict that
differs (JSON: one object per verdict, in the format's writer), then the count; the exit
code, 1 when any differs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gradcalc.render.formats import Format


def write_replay(replayed: Iterable[Any], fmt: Format, out: Any, err: Any) -> int:
    """Each verdict judged again (`grading.replay.replay_file`'s), as it comes."""
    assert fmt.replayed is not None and fmt.replay_end is not None
    total = differ = 0
    versions: set[str] = set()
    for r in replayed:
        total += 1
        differ += not r.same
        if r.version:
            versions.add(r.version)
        fmt.replayed(r, f"line {r.line}" + (f" ({r.ident})" if r.ident else ""), out)
        out.flush()
    said = (f"{total} verdict{'s' * (total != 1)} judged again: {total - differ} the same, "
            f"{differ} differ{'s' * (differ == 1)}")
    if versions:
        said += f" (saved by gradcalc {', '.join(sorted(versions))})"
    fmt.replay_end(total, differ, said, out, err)
    return 1 if differ else 0
