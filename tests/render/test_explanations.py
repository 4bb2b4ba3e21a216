"""--explain in every view: --plain prints the tape and the sweep as tab-separated rows,
--points explains one row of its table and batch one line (--explain-row N)."""

from __future__ import annotations

import json

from gradcalc.cli import main


def _rows(out: str, kind: str) -> list[list[str]]:
    return [line.split("\t")[1:] for line in out.splitlines() if line.startswith(kind + "\t")]


def test_plain_explain_prints_the_tape_and_the_sweep(capsys):
    assert main(["grad", "y = (a+b)*(b+c)", "--at", "a=1, b=2, c=3", "--explain",
                 "--plain"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "5 8 3"
    tape = _rows(out, "tape")
    assert tape[3] == ["4", "add", "a + b", "1,2", "", "3"]
    assert tape[5] == ["6", "mul", "(a + b) * (b + c)", "4,5", "y", "15"]
    sweep = _rows(out, "sweep")
    assert sweep[0] == ["1", "6", "1", "d#6 * the other factor", "4:5;5:3"]
    assert ["1", "2", "8", "input: its gradient", ""] in sweep  # b: 5 + 3
    assert _rows(out, "label") == [["1", "seeded with dy/dy = 1"]]


def test_plain_explain_of_a_jacobian_labels_each_row(capsys):
    assert main(["jacobian", "k = [m[0]**2, m[0]*m[1]]", "--at", "m=[2, 4]", "--explain",
                 "--plain"]) == 0
    out = capsys.readouterr().out
    labels = _rows(out, "label")
    assert [k for k, _ in labels] == ["1", "2"]
    assert "row 0 of the Jacobian" in labels[0][1] and "row 1" in labels[1][1]


def test_plain_explain_lists_every_step_of_a_loop(capsys):
    assert main(["grad", "y = x\nfor i in range(8): y = y * 1.5", "--at", "x=1", "--explain",
                 "--plain", "--no-check"]) == 0
    assert len(_rows(capsys.readouterr().out, "tape")) == 9  # no block cut short


def _table(tmp_path):
    path = tmp_path / "pts.csv"
    path.write_text("x,y\n1,2\n3,4\n", encoding="utf-8")
    return str(path)


def test_points_explains_the_chosen_row(tmp_path, capsys):
    assert main(["grad", "z = x*y + x", "--points", _table(tmp_path), "--explain-row",
                 "2"]) == 0
    captured = capsys.readouterr()
    assert "note: row 2 of 2 in the --points table: x=3, y=4" in captured.err
    assert "backward sweep, seeded with dz/dz = 1" in captured.out
    assert "∂z/∂x   5" in captured.out and "∂z/∂y   3" in captured.out


def test_points_explain_takes_the_first_row_and_every_format(tmp_path, capsys):
    assert main(["grad", "z = x*y + x", "--points", _table(tmp_path), "--explain",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gradient"] == {"x": 3.0, "y": 1.0} and data["explain"]["steps"]
    assert main(["grad", "z = x*y", "--points", _table(tmp_path), "--explain-row", "2",
                 "--graph", "mermaid"]) == 0
    assert 's1(["x = 3"])' in capsys.readouterr().out


def test_points_explain_row_errors(tmp_path, capsys):
    table = _table(tmp_path)
    assert main(["grad", "z = x*y", "--points", table, "--explain-row", "3"]) == 2
    assert "--explain-row 3: the table has 2 rows" in capsys.readouterr().err
    assert main(["grad", "z = x*y", "--at", "x=1, y=2", "--explain-row", "1"]) == 2
    assert "--explain-row N picks a row of the --points table" in capsys.readouterr().err


def test_batch_explains_the_chosen_line(tmp_path, capsys):
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text('{"command": "grad", "program": "y = x*x", "at": "x=3"}\n'
                    '{"command": "grad", "program": "y = x*x + x", "at": "x=3"}\n',
                    encoding="utf-8")
    assert main(["batch", str(jobs), "--explain-row", "2"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert "explain" not in first
    steps = second["explain"]["steps"]
    assert [s["op"] for s in steps] == ["input", "mul", "add"]
    (sweep,) = second["explain"]["sweeps"]
    assert sweep["cotangents"]["1"] == 7.0
