"""Gradescope's autograder end to end: the zip (setup.sh, run_autograder, the key, the
settings, gradcalc's own wheel), then a week of submissions judged in a simulated
/autograder tree: each student the platform's user on their own variant, late
submissions penalised, expected answers hidden until the due date, results.json with
the fields and types Gradescope documents; and the zip installed in a fresh virtual
environment from its wheel alone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from gradescope_results import check_results_json

from gradcalc.grading.key import load_key
from gradcalc.grading.variants import variant_of
from gradcalc.run.autograder import autograde

KEY = ("problem,function,params,term,points\n1,a sin(b x),a = 2..9; b = 2..5,fall,2\n"
       "2,x^3,,,1\n")
DUE, LATE = "2027-09-14T23:59:00.000000-07:00", "2027-09-16T23:59:00.000000-07:00"


def build(invoke, tmp_path: Path, *options: str) -> Path:
    (tmp_path / "key.csv").write_text(KEY)
    out = tmp_path / "autograder.zip"
    r = invoke("autograder", "--key", str(tmp_path / "key.csv"), "--out", str(out),
               *options)
    assert r.code == 0, r.err
    return out


def tree(tmp_path: Path, zipped: Path, email: str, answers: str, created: str,
         name: str = "answers.txt", users: list | None = None) -> Path:
    """A fresh /autograder tree: the zip in source/, one submission and its metadata."""
    root = tmp_path / "autograder"
    shutil.rmtree(root, ignore_errors=True)
    (root / "submission").mkdir(parents=True)
    with zipfile.ZipFile(zipped) as z:
        z.extractall(root / "source")
    (root / "submission" / name).write_text(answers)
    meta = {"id": 7, "created_at": created, "previous_submissions": [],
            "assignment": {"due_date": DUE, "late_due_date": LATE, "title": "Week 1"},
            "users": users or [{"email": email, "id": 11, "name": "A Student"}]}
    (root / "submission_metadata.json").write_text(json.dumps(meta))
    return root


def right(student: str) -> str:
    """The right answers on STUDENT's variant."""
    values = dict(variant_of(load_key_cached().problems["1"].template, student).values)
    return f"1: {values['a'] * values['b']} cos({values['b']} x)\n2: 3x^2\n"


_KEY: list = []


def load_key_cached():
    if not _KEY:
        path = Path(os.environ.get("TMPDIR", "/tmp")) / "gradcalc-autograder-key.csv"
        path.write_text(KEY)
        _KEY.append(load_key(str(path)))
    return _KEY[0]


def test_the_zip_holds_the_scripts_the_key_the_settings_and_gradcalcs_wheel(invoke,
                                                                              tmp_path):
    zipped = build(invoke, tmp_path, "--show-answers", "after-due", "--late-penalty", "0.2")
    with zipfile.ZipFile(zipped) as z:
        names = z.namelist()
        assert names[:4] == ["setup.sh", "run_autograder", "key.csv", "settings.json"]
        wheel = names[4]
        assert wheel.startswith("gradcalc-") and wheel.endswith("-py3-none-any.whl")
        assert z.read("key.csv").decode() == KEY
        assert json.loads(z.read("settings.json"))["answers"] == "after-due"
        setup = z.read("setup.sh").decode()
        assert f"pip3 install ./{wheel}" in setup and setup.count("pip3 install") == 1
        assert z.getinfo("run_autograder").external_attr >> 16 & 0o111
        inner = zipfile.ZipFile(__import__("io").BytesIO(z.read(wheel)))
    meta = next(n for n in inner.namelist() if n.endswith("dist-info/METADATA"))
    text = inner.read(meta).decode()
    assert "Requires-Dist: numpy>=1.24" in text and "extra ==" not in text
    assert "gradcalc/cli/__init__.py" in inner.namelist()
    first = zipped.read_bytes()
    assert build(invoke, tmp_path, "--show-answers", "after-due", "--late-penalty",
                 "0.2").read_bytes() == first  # the same key, the same zip


def test_a_simulated_week_each_student_graded_as_the_platforms_user(invoke, tmp_path):
    zipped = build(invoke, tmp_path, "--show-answers", "after-due", "--late-penalty", "0.2")
    students = [f"s{k:02d}@uni.edu" for k in range(30)]
    for k, student in enumerate(students):
        # on time: problem 2 right; late: both right (s05 copies s06's file and email)
        answers = {"early": "1: cos(x)\n2: 3x^2\n", "late": right(student)}
        if student == "s05@uni.edu":
            answers["late"] = "student,problem,answer\n" + "".join(
                f"s06@uni.edu,{line.replace(': ', ',', 1)}\n"
                for line in right("s06@uni.edu").splitlines())
        for when, created in (("early", "2027-09-14T12:00:00-07:00"),
                              ("late", "2027-09-15T12:00:00-07:00")):
            name = "answers.csv" if answers[when].startswith("student,") else "answers.txt"
            root = tree(tmp_path, zipped, student.upper() if k == 3 else student,
                        answers[when], created, name)
            results = autograde(root)
            assert json.loads((root / "results" / "results.json").read_text()) == results
            check_results_json(results)  # every field Gradescope names, of its type
            assert results["extra_data"]["student"] == student
            assert results["extra_data"]["late"] is (when == "late")
            one, two = results["tests"][:2]
            assert results["output"].startswith(f"Graded as {student}.")
            assert "expected" not in one["output"] + two["output"]
            if when == "early":
                assert (one["score"], two["score"]) == (0.0, 1.0)
                assert one["status"] == "failed" and two["status"] == "passed"
                assert results["tests"][2]["visibility"] == "after_due_date"
                assert "expected" in results["tests"][2]["output"]
            elif student == "s05@uni.edu":  # s06's answers are wrong on s05's variant
                assert one["score"] == 0.0 and two["score"] == pytest.approx(0.8)
                assert "The file names s06@uni.edu: ignored" in results["output"]
                assert results["extra_data"]["claimed"] == "s06@uni.edu"
            else:
                assert results["score"] == pytest.approx(2.4)  # 3 points less 20 %
                assert "late: 20% of the points taken off" in one["output"]


def test_a_group_is_graded_once_on_its_first_members_variant(invoke, tmp_path):
    zipped = build(invoke, tmp_path)
    users = [{"email": "s01@uni.edu", "id": 1, "name": "One"},
             {"email": "s02@uni.edu", "id": 2, "name": "Two"}]
    root = tree(tmp_path, zipped, "", right("s01@uni.edu"), "2027-09-14T12:00:00-07:00",
                users=users)
    results = autograde(root)
    assert results["score"] == 3.0 and "for the group (s01@uni.edu, s02@uni.edu)" in \
        results["output"]
    assert len(results["tests"]) == 2  # never: no answers test, none in the outputs


def test_always_shows_the_expected_answer_and_a_missing_file_scores_zero(invoke,
                                                                         tmp_path):
    zipped = build(invoke, tmp_path, "--show-answers", "always")
    root = tree(tmp_path, zipped, "s01@uni.edu", "2: 2x\n", "2027-09-14T12:00:00-07:00")
    results = autograde(root)
    assert "expected 3x^2" in results["tests"][1]["output"]
    assert results["tests"][0]["output"] == "no answer submitted"
    (root / "submission" / "answers.txt").unlink()
    (root / "submission" / "photo.png").write_bytes(b"\x89PNG")
    results = autograde(root)
    assert results["score"] == 0.0 and "no answers file" in results["output"]


def test_autograder_refuses_a_bad_policy_and_a_bad_key(invoke, tmp_path):
    (tmp_path / "key.csv").write_text(KEY)
    r = invoke("autograder", "--key", str(tmp_path / "key.csv"), "--out",
               str(tmp_path / "a.zip"), "--show-answers", "sometimes")
    assert r.code == 2 and "give never, after-due, always" in r.err
    (tmp_path / "bad.csv").write_text("problem,function\n1,\n")
    r = invoke("autograder", "--key", str(tmp_path / "bad.csv"), "--out",
               str(tmp_path / "a.zip"))
    assert r.code == 2 and not (tmp_path / "a.zip").exists()


def test_the_zip_installs_in_a_fresh_environment_and_grades(invoke, tmp_path):
    """setup.sh run with a fresh virtual environment's pip3 first on the PATH, offline
    (gradcalc's dependencies are the machine's: --system-site-packages), then
    run_autograder: the gradcalc that grades is the wheel's. Bounded: about 30 s."""
    zipped = build(invoke, tmp_path)
    root = tree(tmp_path, zipped, "s01@uni.edu", right("s01@uni.edu"),
                "2027-09-14T12:00:00-07:00")
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "GRADCALC_AUTOGRADER_ROOT": str(root), "PYTHONPATH": ""}
    env.pop("VIRTUAL_ENV", None)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env,
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert setup.returncode == 0, setup.stderr
    installed = list(venv.glob("lib/python*/site-packages/gradcalc/run/autograder.py"))
    assert installed, "gradcalc was not installed from the wheel"
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert str(venv) in subprocess.run(["bash", "-c", "command -v gradcalc"], env=env,
                                       capture_output=True, text=True).stdout
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 3.0
