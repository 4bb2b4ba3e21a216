"""check --file streams: a class of any length is read, judged and written a chunk at a
time; the rows held at once are counted, whatever view and files are asked for."""

from __future__ import annotations

import io
import json
import weakref
from dataclasses import dataclass

import pytest

from gradcalc.grading import classfile
from gradcalc.grading import gradebook as grades
from gradcalc.homework.judge import Settings
from gradcalc.run import classrun

KEY = "problem,function,points\np1,x^2,1\np2,sin(x),2\np3,exp(3x),1\n"
ANSWERS = ("2x", "x^2", "cos(x)", "-cos(x)", "3exp(3x)", "exp(3x)")


def class_text(rows: int, keyed: bool) -> str:
    """A class of `rows` answers by rows // 3 students (few distinct answers: judged once)."""
    head = "student,problem,answer,section\n" if keyed else "student,function,answer\n"
    lines = []
    for k in range(rows):
        p = k % 3
        answer = ANSWERS[2 * p + (k // 3) % 2]
        if keyed:
            lines.append(f"s{k // 3},p{p + 1},{answer},{'AB'[k % 2]}\n")
        else:
            lines.append(f"s{k // 3},{('x^2', 'sin(x)', 'exp(3x)')[p]},{answer}\n")
    return head + "".join(lines)


@pytest.fixture
def held(monkeypatch):
    """The most verdicts alive at once while the class is judged."""
    live: list[weakref.ref] = []
    peak = [0]
    judge = classfile.judge_task

    def counted(task, limits=classfile.DEFAULT_LIMITS):
        result = judge(task, limits)
        live.append(weakref.ref(result))
        live[:] = [r for r in live if r() is not None]
        peak[0] = max(peak[0], len(live))
        return result

    monkeypatch.setattr(classfile, "judge_task", counted)
    return peak


def run(tmp_path, rows: int, keyed: bool, fmt: str = "json", chunk_rows: int = 50,
        **files) -> tuple[int, str, str]:
    path = tmp_path / "class.csv"
    path.write_text(class_text(rows, keyed))
    key = None
    if keyed:
        (tmp_path / "key.csv").write_text(KEY)
        key = str(tmp_path / "key.csv")
    job = classrun.ClassJob(str(path), fmt, Settings(), key=key, chunk_rows=chunk_rows,
                            **{k: str(tmp_path / v) if isinstance(v, str) else v
                               for k, v in files.items()})
    out, err = io.StringIO(), io.StringIO()
    code = classrun.write_class(job, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("keyed", [False, True])
@pytest.mark.parametrize("fmt", ["json", "plain", "rich"])
def test_rows_held_at_once_are_a_chunk_not_the_class(tmp_path, held, keyed, fmt,
                                                     capsys):
    code, out, err = run(tmp_path, 600, keyed, fmt, chunk_rows=20, grades="g.csv",
                         report="r.html", summary=True)
    # a chunk being judged, one being written (or of the readable view), the ten slowest
    # rows and each problem's last row
    assert held[0] <= 2 * 20 + grades.SLOWEST + 3
    assert code == 1
    book = (tmp_path / "g.csv").read_text().splitlines()
    assert len(book) == 2 + 200  # the header, the points possible, one row per student
    if fmt == "json":
        *rows, summary = [json.loads(line) for line in out.splitlines()]
        assert len(rows) == 600 and summary["summary"]["students"] == 200
        assert summary["summary"]["correct"] == 300
    if fmt == "rich":
        shown = out  # the readable view draws on the stream it is given
        assert shown.count("verdict") == 1  # the header once, over every chunk
        assert "600 rows: 300 correct, 300 incorrect" in shown


def test_the_gathered_gradebook_and_picture_are_the_whole_lists(tmp_path):
    path = tmp_path / "class.csv"
    path.write_text(class_text(90, True))
    (tmp_path / "key.csv").write_text(KEY)
    from gradcalc.grading.key import load_key

    key = load_key(str(tmp_path / "key.csv"))
    results = [classfile.judge_task(t) for t in classfile.tasks(classfile.load(str(path), key),
                                                                key, Settings())]
    gather = grades.Gather(key)
    for r in results:
        gather.add(r)
    whole = grades.picture(results, key)
    assert gather.picture().problems == whole.problems
    assert gather.book.students == whole.book.students
    assert [r.task.line for r in gather.picture().slowest] == \
        [r.task.line for r in sorted(results, key=lambda r: -r.seconds)[:grades.SLOWEST]]


def test_gradescope_from_standard_input_reads_it_twice(tmp_path, monkeypatch):
    (tmp_path / "key.csv").write_text(KEY)
    text = "student,problem,answer\nana,p1,2x\nana,p2,cos(x)\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    job = classrun.ClassJob("-", "json", Settings(), key=str(tmp_path / "key.csv"),
                            gradescope=str(tmp_path / "results.json"))
    assert classrun.write_class(job, io.StringIO(), io.StringIO()) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == 3.0 and results["max_score"] == 4.0


def test_a_line_too_long_is_refused_with_its_line(tmp_path, monkeypatch):
    path = tmp_path / "class.csv"
    path.write_bytes(b"student,function,answer\na,x^2," + b"x" * 200 + b"\n")
    table, rows = classfile.open_class(str(path), None)
    lines = classfile.text_lines(open(path, "rb"), "'class.csv'", 100)
    next(lines)
    with pytest.raises(classfile.GradcalcError, match="line 2: the line is over 100 bytes"):
        next(lines)
    assert len(list(rows)) == 1  # the default limit takes it


def test_a_byte_that_is_not_utf8_is_named_by_its_offset(invoke, tmp_path):
    path = tmp_path / "class.csv"
    path.write_bytes(b"student,function,answer\na,x^2,2x\nb,x^2,2\xff\n")
    r = invoke("grade", str(path), "--json")
    assert r.code == 2 and "is not UTF-8 text (byte 40)" in r.err


def test_spans_cut_between_records_and_keep_the_files_line_numbers(tmp_path):
    path = tmp_path / "class.csv"
    path.write_bytes('\ufeffstudent,function,answer\na,x^2,2x\n\nb,x^2,"2x\n+ 0"\n'
                     'c,"sin(x)",cos(x)\r\nd,x^3,"3x^2"\n'.encode())
    table, rows = classfile.open_class(str(path), None)
    whole = list(rows)
    for size in (1, 2, 3, 10):
        spans = list(classfile.spans(str(path), size))
        parts = [r for s in spans for r in classfile.span_rows(str(path), s, table)]
        assert parts == whole
    assert [r.line for r in whole] == [2, 5, 6, 7]  # a record's last line, as csv counts
    assert whole[1].get("answer") == "2x\n+ 0"


def test_jobs_workers_read_their_own_spans(tmp_path, monkeypatch):
    path = tmp_path / "class.csv"
    path.write_text(class_text(60, False))
    sent = []
    from gradcalc.run import workers as parallel

    real = parallel.ordered_map

    def spy(fn, items, jobs=1, preload=(), workers=None):
        items = list(items)
        sent.extend(items)
        return real(fn, items, 1)

    monkeypatch.setattr(parallel, "ordered_map", spy)
    out = io.StringIO()
    job = classrun.ClassJob(str(path), "json", Settings(), jobs=2, chunk_rows=25)
    classrun.write_class(job, out, io.StringIO())
    # three spans, all sent as spans (the first span's first row of each function is
    # judged here before the workers fork, so they start with its formulas)
    assert all(isinstance(s, classfile.Span) for s in sent) and len(sent) == 3
    one = io.StringIO()
    classrun.write_class(classrun.ClassJob(str(path), "json", Settings()), one, io.StringIO())
    assert out.getvalue() == one.getvalue()


def test_jobs_workers_start_with_the_first_spans_formulas(tmp_path, monkeypatch):
    """The first span's functions are judged before the workers fork: they inherit each
    problem's formulas, so no worker builds again a function the first span has."""
    from gradcalc.homework import judge
    from gradcalc.run import workers as parallel

    path = tmp_path / "class.csv"
    path.write_text(class_text(60, False))
    classfile.forget()  # no verdict remembered from an earlier test: each row judged
    judge.forget_formulas()
    seen = []

    def spy(fn, items, jobs=1, preload=(), workers=None):
        seen.append(dict(judge._CACHE))  # what the forked workers would start with
        return parallel.ordered_map.__wrapped__(fn, items, 1)

    spy.__wrapped__ = parallel.ordered_map
    monkeypatch.setattr(parallel, "ordered_map", spy)
    job = classrun.ClassJob(str(path), "json", Settings(), jobs=2, chunk_rows=25)
    classrun.write_class(job, io.StringIO(), io.StringIO())
    assert seen and seen[0]  # built before the workers exist
    kept = len(seen[0])
    assert judge.forget_formulas() == kept  # the spans built nothing new


def test_spans_are_about_eight_a_worker_for_a_short_class(tmp_path):
    path = tmp_path / "class.csv"
    path.write_text(class_text(2000, False))
    assert classrun.span_rows(str(path), 2) == 2001 // 16
    path.write_text(class_text(60, False))
    assert classrun.span_rows(str(path), 2) == 20  # no span under 20 rows
    path.write_text(class_text(20000, False))
    assert classrun.span_rows(str(path), 2) == classrun.CHUNK_ROWS


def test_one_job_hands_on_its_rows_in_batches_as_time_passes(monkeypatch):
    import itertools

    clock = itertools.count()  # each look at the clock, 0.02 s later
    monkeypatch.setattr("time.monotonic", lambda: next(clock) * 0.02)
    monkeypatch.setattr(classfile, "judge_task", lambda task, limits: FakeResult(task))
    batches = list(classrun.judged_in_time(range(7), 100, None, "rich", False, True))
    # a batch once 0.05 s have passed since the last: every third row here
    assert [len(b) for b in batches] == [3, 3, 1]
    assert [r.task for b in batches for _, r in b] == list(range(7))
    assert [len(b) for b in classrun.judged_in_time(range(7), 2, None, "rich", False,
                                                     True)] == [2, 2, 2, 1]


@dataclass
class FakeResult:
    task: int


def test_the_command_line_leaves_the_span_size_to_the_class_unless_given(tmp_path, invoke,
                                                                        monkeypatch):
    path = tmp_path / "class.csv"
    path.write_text(class_text(400, False))
    asked = []
    real = classfile.spans
    monkeypatch.setattr(classfile, "spans",
                        lambda file, rows: asked.append(rows) or real(file, rows))
    one = invoke("grade", str(path), "--json")
    two = invoke("grade", str(path), "--json", "--jobs", "2")
    given = invoke("grade", str(path), "--json", "--jobs", "2", "--chunk-rows", "70")
    assert one.out == two.out == given.out
    assert asked == [classrun.span_rows(str(path), 2), 70] == [25, 70]  # 401 lines / 16


def test_every_problem_of_the_key_has_a_worked_solution_in_the_report(invoke, tmp_path):
    """A parametrised problem nobody answered (an antiderivative among them) is solved
    for the class's first student's variant: its parameters as numbers."""
    key = ("problem,function,params,kind\n1,a sin(b x),a = 2..9; b = 2..5,\n"
           "2,a e^(b x),a = 2..6; b = 2..3,antiderivative\n3,cos(x),,antiderivative\n"
           "4,e^c x,c = -5..-2,\n")
    (tmp_path / "key.csv").write_text(key, encoding="utf-8")
    (tmp_path / "subs.csv").write_text("student,problem,answer\nana,1,x\n", encoding="utf-8")
    run = invoke("grade", "--key", str(tmp_path / "key.csv"), str(tmp_path / "subs.csv"),
                 "--plain", "--report", str(tmp_path / "r.html"))
    assert run.code == 1, run.err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    for k in range(1, 5):
        assert f'<a href="#solution-{k}">worked solution</a>' in page
        assert f'<section id="solution-{k}">' in page
    assert "a e^(b x)</code></h3>" not in page  # no solution treats a and b as variables
