"""Gradescope's autograder, both halves.

`build` writes the zip a teacher uploads: `setup.sh` (installs gradcalc from its wheel,
which is in the zip, and gradcalc's dependencies: nothing else), `run_autograder`, the
key and `settings.json` (when answers are shown, the late penalty). The wheel is made
from the gradcalc that runs the command (its package's files and its metadata), so the
autograder judges exactly as the teacher's own gradcalc does.

`autograde` is what `run_autograder` runs for each submission, under the autograder's
root (`/autograder`, or `$GRADCALC_AUTOGRADER_ROOT`): it reads `source/key.csv`,
`source/settings.json`, `submission_metadata.json` and the submission's answers file
(`gradcalc.grading.gradescope`), judges each answer as the platform's user, and writes
`results/results.json`.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradcalc.errors import GradcalcError

#: the environment variable naming the autograder's root (Gradescope's: /autograder)
ROOT_VARIABLE, ROOT = "GRADCALC_AUTOGRADER_ROOT", "/autograder"
#: a zip entry's fixed time: the same key gives the same zip
EPOCH = (1980, 1, 1, 0, 0, 0)

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, when the autograder is built: it installs gradcalc from its
# wheel (beside this script) and gradcalc's dependencies, nothing else.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v pip3 > /dev/null; then
    apt-get update && apt-get install -y python3 python3-pip
fi
pip3 install ./{wheel}
"""
RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: gradcalc judges the answers file as the
# platform's user and writes results/results.json.
exec gradcalc autograde --root "${{{variable}:-{root}}}"
"""


@dataclass(frozen=True)
class Settings:
    """What the teacher decided when building the zip (settings.json)."""

    answers: str = "never"  # when students see the expected answers
    late_penalty: float | None = None  # the share a late submission loses

    def as_json(self) -> dict[str, Any]:
        from gradcalc import __version__

        return {"answers": self.answers, "late_penalty": self.late_penalty,
                "gradcalc": __version__}


def _entry(name: str, mode: int = 0o644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, EPOCH)
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def wheel() -> tuple[str, bytes]:
    """The running gradcalc as a wheel: its file name and its bytes (its package's files,
    its version, its dependencies without the extras, its `gradcalc` command)."""
    import importlib.metadata as metadata

    import gradcalc

    version, package = gradcalc.__version__, Path(gradcalc.__file__).parent
    info = f"gradcalc-{version}.dist-info"
    try:
        dist = metadata.distribution("gradcalc")
        needs = [r for r in dist.requires or [] if "extra ==" not in r]
        python = dist.metadata.get("Requires-Python") or ">=3.10"
    except metadata.PackageNotFoundError:
        raise GradcalcError("gradcalc is not installed: its dependencies are unknown (pip "
                            "install it, then build the autograder)", kind="usage") from None
    files = [(f"gradcalc/{p.relative_to(package).as_posix()}", p.read_bytes())
             for p in sorted(package.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    files += [
        (f"{info}/METADATA", "".join([
            "Metadata-Version: 2.1\nName: gradcalc\n", f"Version: {version}\n",
            f"Requires-Python: {python}\n",
            *(f"Requires-Dist: {r}\n" for r in needs)]).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: gradcalc\nRoot-Is-Purelib: true\n"
                          b"Tag: py3-none-any\n"),
        (f"{info}/entry_points.txt", b"[console_scripts]\ngradcalc = gradcalc.cli:main\n")]
    record = "".join(f"{n},{_hash(d)},{len(d)}\n" for n, d in files) + f"{info}/RECORD,,\n"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in [*files, (f"{info}/RECORD", record.encode())]:
            z.writestr(_entry(name), data)
    return f"gradcalc-{version}-py3-none-any.whl", out.getvalue()


def build(key_file: str, out: str, settings: Settings) -> list[str]:
    """The autograder's zip written to OUT (whole or not at all), the key checked first;
    the names of its files."""
    from gradcalc.grading.key import load_key
    from gradcalc.render.files import writable

    writable(out, "--out")
    load_key(key_file)
    name, data = wheel()
    files = [("setup.sh", SETUP.format(wheel=name).encode(), 0o755),
             ("run_autograder", RUN.format(variable=ROOT_VARIABLE, root=ROOT).encode(),
              0o755),
             ("key.csv", Path(key_file).read_bytes(), 0o644),
             ("settings.json", (json.dumps(settings.as_json(), indent=2) + "\n").encode(),
              0o644),
             (name, data, 0o644)]
    staged = io.BytesIO()
    with zipfile.ZipFile(staged, "w") as z:
        for file, content, mode in files:
            z.writestr(_entry(file, mode), content)
    temp = f"{out}.part"
    Path(temp).write_bytes(staged.getvalue())
    os.replace(temp, out)
    return [f for f, _, _ in files]


def root_of(given: str | None) -> Path:
    """The autograder's root: given, else $GRADCALC_AUTOGRADER_ROOT, else /autograder."""
    return Path(given or os.environ.get(ROOT_VARIABLE) or ROOT)


def autograde(root: Path) -> dict[str, Any]:
    """One submission judged under ROOT: results.json's object, also written to
    ROOT/results/results.json. A submission that cannot be read scores 0 and says why."""
    from gradcalc.grading import gradescope as platform

    source = root / "source"
    settings = _settings(source / "settings.json")
    meta = platform.read_metadata(root / "submission_metadata.json")
    found = platform.find_submission(root / "submission")
    try:
        if found is None:
            raise GradcalcError("no answers file: submit answers.txt (one line per "
                                "problem, PROBLEM: ANSWER) or answers.csv (problem,answer)",
                                kind="usage")
        results = _judged(source / "key.csv", platform.read_submission(found), meta,
                          settings)
    except GradcalcError as exc:
        from gradcalc import __version__
        from gradcalc.render.lms import results_head

        results = {**results_head(0.0, 0.0, f"Not graded: {exc.message}",
                                  {"gradcalc": __version__, "student": meta.student,
                                   "answers": settings.answers}), "tests": []}
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(
        json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return results


def _settings(path: Path) -> Settings:
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        return Settings(str(data.get("answers") or "never"), data.get("late_penalty"))
    except (OSError, ValueError, AttributeError) as exc:
        raise GradcalcError(f"cannot read {path.name}: {exc}", kind="usage") from None


def _judged(key_file: Path, submission: Any, meta: Any, settings: Settings
            ) -> dict[str, Any]:
    """The submission's answers judged as META's student, results.json's object."""
    from gradcalc.grading.classfile import iter_tasks, judge_task
    from gradcalc.grading.course import Course, Deadline
    from gradcalc.grading.gradebook import Gather
    from gradcalc.grading.key import load_key
    from gradcalc.homework.judge import Settings as Judging
    from gradcalc.ingest.headers import Sheet, SheetRow
    from gradcalc.render.lms import gradescope

    key = load_key(str(key_file))
    # Gradescope takes late submissions only until the late due date (or an extension's)
    late = Deadline(meta.due, meta.late_due, settings.late_penalty or 0.0) \
        if meta.due and meta.late_due else Deadline()
    key.course = Course(deadline=late)
    when = meta.created_at.isoformat() if meta.created_at else ""
    table = Sheet(submission.source, ["student", "problem", "answer", "created_at"],
                  {"student": 0, "problem": 1, "answer": 2}, ["created_at"])
    rows = [SheetRow(line, {"student": meta.student, "problem": problem, "answer": answer},
                     (("created_at", when),)) for problem, answer, line in submission.answers]
    gather = Gather(key)
    for task in iter_tasks(table, rows, key, Judging()):
        gather.add(judge_task(task))
    return gradescope(list(gather.last.values()), gather.book, settings.answers,
                      _header(meta, submission),
                      {"student": meta.student, "group": list(meta.members),
                       "claimed": submission.claimed or None,
                       "late": bool(meta.due and meta.created_at and
                                    meta.created_at > meta.due)})


def _header(meta: Any, submission: Any) -> str:
    """The results' first lines: who was graded, and what the file claimed otherwise."""
    said = f"Graded as {meta.student}"
    if len(meta.members) > 1:
        said += (f", for the group ({', '.join(meta.members)}): every member's answers are "
                 f"judged on {meta.student}'s variant")
    said += ".\n\n"
    if submission.claimed and submission.claimed != meta.student:
        said += (f"The file names {submission.claimed}: ignored (the student is the "
                 "Gradescope user who submitted).\n\n")
    return said
