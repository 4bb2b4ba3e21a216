"""`check --replay`: one line per verdict that differs (JSON: one object per verdict),
then the count; exit 1 when any differs."""

from __future__ import annotations

import json
from typing import Any

from gradcalc.limits import Limits


def write_replay(file: str, fmt: str, limits: Limits, out: Any, err: Any) -> int:
    from gradcalc.commands.replay import replay_file

    total = differ = 0
    versions: set[str] = set()
    for r in replay_file(file, limits):
        total += 1
        differ += not r.same
        if r.version:
            versions.add(r.version)
        name = f"line {r.line}" + (f" ({r.ident})" if r.ident else "")
        if fmt == "json":
            out.write(json.dumps({"line": r.line, "id": r.ident, "same": r.same,
                                  "differences": r.differences}) + "\n")
        else:
            for d in r.differences:
                out.write(f"{name}: {d}\n")
        out.flush()
    said = (f"{total} verdict{'s' * (total != 1)} judged again: {total - differ} the same, "
            f"{differ} differ{'s' * (differ == 1)}")
    if versions:
        said += f" (saved by gradcalc {', '.join(sorted(versions))})"
    if fmt == "json":
        out.write(json.dumps({"summary": {"verdicts": total, "same": total - differ,
                                          "differ": differ}}) + "\n")
    else:
        err.write(said + "\n")
    return 1 if differ else 0
