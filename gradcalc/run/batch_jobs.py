"""`batch --jobs N`: the lines cut into chunks, each chunk answered and written as JSON
lines by a worker (`run.workers`), the chunks' text written in input order and
their tallies summed, so the output and the exit code are those of one process."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import partial
from itertools import islice

from gradcalc.commands import batch
from gradcalc.limits import Limits
from gradcalc.render.as_json import answer_json
from gradcalc.run.workers import ordered_map


def answer_lines(check: bool, limits: Limits, lines: list[tuple[int, bytes | str]]
                 ) -> tuple[str, batch.Tally]:
    """A chunk of numbered lines answered: their JSON lines and their tally."""
    tally = batch.Tally()
    out = []
    for n, raw in lines:
        answer = batch.answer(raw, n, tally, check=check, limits=limits)
        if answer is not None:
            out.append(json.dumps(answer_json(answer)) + "\n")
    return "".join(out), tally


def answer_chunks(lines: Iterable[bytes | str], tally: batch.Tally, check: bool,
                  limits: Limits, jobs: int, chunk_rows: int) -> Iterator[str]:
    """The answers' text a chunk at a time, in order; `tally` sums the chunks'."""
    numbered = enumerate(lines, start=1)
    chunks = iter(lambda: list(islice(numbered, chunk_rows)), [])
    for text, counted in ordered_map(partial(answer_lines, check, limits), chunks, jobs):
        tally.jobs += counted.jobs
        tally.errors += counted.errors
        tally.failures += counted.failures
        yield text
