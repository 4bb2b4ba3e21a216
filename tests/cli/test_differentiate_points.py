"""--points as a newcomer's table arrives, through `gradcalc.cli.main` (what the installed
`gradcalc` calls) in-process: quoted numbers, extra columns carried through, bad rows
reported in place, and hessian."""

from __future__ import annotations

import json

from conftest import run_main

TABLE = 'id,x,y,label\nq1,1,2,"a, b"\nq2,"3",4,c\nq3,abc,1,d\nq4,0.5,-1\n'


def test_quoted_numbers_are_numbers():
    run = run_main("grad", "z = x*y", "--points", "-", "--no-check", stdin='x,y\n"1",2\n3," 4"\n')
    assert run.code == 0, run.err
    assert run.out.splitlines() == ["x,y,z,dz/dx,dz/dy", "1,2,2,2,1", "3,4,12,4,3"]


def test_extra_columns_are_carried_and_bad_rows_reported_in_place(tmp_path):
    (tmp_path / "p.csv").write_text(TABLE)
    run = run_main("grad", "z = x*y", "--points", "p.csv", "--no-check", cwd=tmp_path)
    assert run.code == 2
    assert run.out.splitlines() == [
        "id,x,y,label,z,dz/dx,dz/dy,error",
        'q1,1,2,"a, b",2,2,1,',
        "q2,3,4,c,12,4,3,",
        "q3,abc,1,d,,,,row 3 (line 4): 'abc' is not a number (column x)",
        'q4,0.5,-1,,,,,"row 4 (line 5): 3 values, but the header names 4 columns"',
    ]
    assert run.err.startswith("error: --points: 2 of 4 rows could not be read, the others "
                              "were computed: row 3 (line 4)")
    assert "non-finite" not in run.err


def test_bad_rows_in_json_lines(tmp_path):
    (tmp_path / "p.csv").write_text(TABLE)
    run = run_main("grad", "z = x*y", "--points", "p.csv", "--json", "--no-check", cwd=tmp_path)
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert run.code == 2 and [line["point"] for line in lines] == [1, 2, 3, 4]
    assert lines[0]["columns"] == {"id": "q1", "label": "a, b"}
    assert lines[1]["gradient"] == {"x": 4.0, "y": 3.0}
    assert lines[2]["error"]["message"] == "row 3 (line 4): 'abc' is not a number (column x)"


def test_plain_keeps_one_line_per_row(tmp_path):
    (tmp_path / "p.csv").write_text(TABLE)
    run = run_main("grad", "z = x*y", "--points", "p.csv", "--plain", "--no-check", cwd=tmp_path)
    assert run.code == 2
    assert run.out.splitlines() == ["2 1", "4 3", "nan nan", "nan nan"]


def test_the_check_samples_rows_that_were_read(tmp_path):
    (tmp_path / "p.csv").write_text(TABLE)
    run = run_main("grad", "z = x*y", "--points", "p.csv", cwd=tmp_path)
    assert "on a sample of 2 of 4 points (rows 1, 2)" in run.err


def test_hessian_points():
    run = run_main("hessian", "y = a*a*b + b**3", "--points", "-", stdin="a,b\n1,2\n2,3\n")
    assert run.code == 0, run.err
    assert run.out.splitlines() == ["a,b,y,d2y/dada,d2y/dadb,d2y/dbda,d2y/dbdb",
                                    "1,2,10,4,2,2,12", "2,3,39,6,4,4,18"]
    assert "check: pass" in run.err


def test_hessian_points_of_a_vector_in_json():
    run = run_main("hessian", "y = x[0]**2*x[1] + x[1]**3", "--points", "-", "--json",
                  stdin="x[0],x[1]\n1,2\n3,4\n")
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert [line["hessian"]["x"] for line in lines] == [[[4, 2], [2, 12]], [[8, 6], [6, 24]]]


def test_hessian_points_needs_a_scalar_per_point():
    run = run_main("hessian", "y = x**3", "--points", "-", stdin="x[0],x[1]\n1,2\n")
    assert run.code == 2 and "scalar" in run.err


def test_carried_text_never_drives_the_terminal():
    run = run_main("grad", "y = x*2", "--points", "-", "--no-check",
                  stdin='id,x\n"\x1b[31mred\u202e",1\n')
    assert run.code == 0 and "\x1b" not in run.out and "\u202e" not in run.out
    assert "\\x1b[31mred\\u202e,1,2,2" in run.out
