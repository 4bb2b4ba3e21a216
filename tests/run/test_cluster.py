"""--engine dask (run/cluster.py) on a 2-worker LocalCluster: the same bytes as a local
run, one CSV or partitioned Parquet, and a worker killed mid-run still gives the whole,
correct output (Dask runs its tasks again) or nothing."""

from __future__ import annotations

import io
import os
import signal

import numpy as np
import pytest

from gradcalc.commands.jobs import Job
from gradcalc.render.numbers import number
from gradcalc.run import cluster, stream

distributed = pytest.importorskip("distributed")

PROGRAM = "if a > 0: y = a*b*sin(c)\nelse: y = exp(a*c)/(1 + b**2)"


class Out(io.StringIO):
    takes_bytes = True

    def write(self, text):  # type: ignore[override]
        return super().write(text.decode() if isinstance(text, bytes) else text)


@pytest.fixture(scope="module")
def scheduler():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """Eight CSV partitions of 150 rows, one with an unreadable row."""
    folder = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(3)
    for k in range(8):
        rows = rng.normal(size=(150, 3))
        lines = [",".join(number(v) for v in row) for row in rows]
        if k == 5:
            lines[7] = "1,x,2"
        (folder / f"part-{k}.csv").write_text("a,b,c\n" + "\n".join(lines) + "\n")
    return folder


def job(check=True):
    return Job(command="grad", program=PROGRAM, at=[], check=check)


def local(source, **options):
    out = Out()
    outcome = stream.run(job(), str(source), "csv", stdout=out, chunk_rows=64, **options)
    return out.getvalue(), outcome


def test_dask_writes_the_local_runs_bytes(scheduler, parts, tmp_path):
    expected, here = local(parts)
    out = Out()
    there = cluster.run_points(job(), str(parts), chunk_rows=64, scheduler=scheduler,
                               stdout=out)
    assert out.getvalue() == expected
    assert there.note == here.note and there.error == here.error
    assert there.totals.count == 1200 and there.totals.bad == 1
    target = tmp_path / "all.csv"
    cluster.run_points(job(), str(parts / "*.csv"), chunk_rows=50, scheduler=scheduler,
                       output=str(target))
    assert target.read_text() == expected
    assert os.listdir(tmp_path) == ["all.csv"]  # the parts are gone


def test_dask_writes_partitioned_parquet(scheduler, parts, tmp_path):
    pl = pytest.importorskip("polars")
    expected, _ = local(parts)
    target = tmp_path / "out.parquet"
    cluster.run_points(job(check=False), str(parts), scheduler=scheduler, output=str(target))
    files = sorted(os.listdir(target))
    assert files == [f"part-{k:05d}.parquet" for k in range(8)]
    frame = pl.concat([pl.read_parquet(target / f) for f in files])
    again = pl.read_csv(io.StringIO(expected), infer_schema_length=0)
    assert frame.height == again.height == 1200
    column = "dy/da"
    assert np.array_equal(frame[column].to_numpy(),
                          again[column].cast(pl.Float64, strict=False).to_numpy(),
                          equal_nan=True)


def test_a_worker_killed_mid_run_still_gives_the_whole_output(scheduler, parts, tmp_path):
    expected, _ = local(parts)
    client = distributed.Client(scheduler)
    pids = list(client.run(os.getpid).values())
    client.close()
    killed = []

    def kill_one(stage, done, total):
        if not killed:  # after the first partition: the others are queued or running
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    target = tmp_path / "all.csv"
    cluster.run_points(job(), str(parts), chunk_rows=64, scheduler=scheduler,
                       output=str(target), progress=kill_one)
    assert killed and target.read_text() == expected


def test_unreachable_scheduler_is_a_clear_error(parts, monkeypatch):
    from gradcalc.errors import GradcalcError

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "2s")  # the default waits 20 s
    with pytest.raises(GradcalcError, match="cannot reach the Dask scheduler"):
        cluster.run_points(job(), str(parts), scheduler="tcp://127.0.0.1:9")


def test_dask_judges_a_partitioned_class_in_order(scheduler, tmp_path):
    import json
    import sys
    from dataclasses import replace
    from pathlib import Path

    from gradcalc.homework.judge import Settings
    from gradcalc.limits import DEFAULT_LIMITS
    from gradcalc.run.classrun import ClassJob, write_class

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from homework import class_file

    # a budget no row reaches: on a busy machine a row could run out of it here and not
    # there (on Dask's worker threads the alarm that enforces it cannot run)
    limits = replace(DEFAULT_LIMITS, check_seconds=3600)
    text = class_file(90).splitlines()
    folder = tmp_path / "class"
    folder.mkdir()
    for k in range(3):
        (folder / f"part-{k}.csv").write_text("\n".join([text[0]] + text[1 + 30 * k:
                                                                     31 + 30 * k]) + "\n")
    whole = tmp_path / "whole.csv"
    whole.write_text("\n".join(text[:91]) + "\n")
    from gradcalc.grading import classfile

    classfile.forget()  # verdicts this process judged earlier with other settings
    expected = io.StringIO()
    code = write_class(ClassJob(str(whole), "json", Settings(), limits), expected,
                       io.StringIO())
    out = Out()
    assert cluster.run_class(str(folder), "json", Settings(), limits, scheduler, out,
                             io.StringIO()) == code

    def verdicts(text):  # the expected formula's text may differ (see docs/scaling.md)
        return [{k: row.get(k) for k in ("id", "verdict", "method", "error", "summary")}
                for row in map(json.loads, text.splitlines())]

    assert verdicts(out.getvalue()) == verdicts(expected.getvalue())
    assert len(verdicts(out.getvalue())) == 91


@pytest.mark.parametrize("args", [
    ("grad", "z = x*y", "--points", "-", "--engine", "dask"),
    ("grade", "-", "--json", "--engine", "dask"),
])
def test_dask_refuses_standard_input_before_starting(invoke, args, monkeypatch):
    monkeypatch.setattr(cluster, "client_for", lambda s: pytest.fail("a cluster started"))
    r = invoke(*args)
    assert r.code == 2 and "not standard input: save it to a shared file" in r.err
