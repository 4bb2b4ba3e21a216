"""The draw of a problem's parameters for one student (`draw`): a pure function of four
texts, the term's seed, the student, the problem and the spec, computed from SHA-256
(`Stream`), so the same values come out on any machine, in any process, with any --jobs
(no hash randomisation, no dict order, no clock). The algorithm is written out in
docs/teaching-with-gradcalc.md, so that a teacher's other tools can reproduce it.

A try draws every parameter in order; a parameter with `redraw NAME until C` is drawn
again, alone, until C holds (at most MAX_REDRAWS draws: WeBWorK's do-until loop, with its
odds); a try that fails a condition is followed by the next from the same stream, at most
MAX_TRIES in all. `check` refuses, when the key is read, a spec whose conditions keep no
combination, or too few for that many tries, and a redraw that keeps none of its
parameter's values, or too few for that many draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

from gradcalc.errors import GradcalcError
from gradcalc.grading.params import (
    Derived,
    Drawn,
    Params,
    Values,
    derived,
    holds,
    shown,
    value,
    values_of,
)

#: the version of the draw's algorithm: the first text of every stream
ALGORITHM = "gradcalc-variant-1"
#: tries of one draw at most, and the smallest share of combinations the conditions keep
MAX_TRIES, MIN_SHARE = 1000, 0.05
#: draws of one parameter at most under `redraw NAME until C` (the same smallest share)
MAX_REDRAWS = 1000
#: combinations counted one by one when a spec is checked (beyond: PROBE_TRIES draws)
MAX_COUNTED, PROBE_TRIES = 10_000, 1000


class Stream:
    """The random numbers of one (term, student, problem): block j is the SHA-256 of the
    texts ALGORITHM, term, student and problem joined by NUL bytes (UTF-8), then a NUL and
    j in decimal; each block's 32 bytes are four 64-bit unsigned big-endian integers,
    taken in the order of their bytes, block 0 first."""

    def __init__(self, term: str, student: str, problem: str) -> None:
        self.seed = "\0".join((ALGORITHM, term, student, problem)).encode("utf-8")
        self.block, self.ready = 0, []

    def next(self) -> int:
        if not self.ready:
            digest = hashlib.sha256(self.seed + b"\0" + str(self.block).encode()).digest()
            self.block += 1
            self.ready = [int.from_bytes(digest[k:k + 8], "big") for k in (24, 16, 8, 0)]
        return self.ready.pop()

    def below(self, n: int) -> int:
        """A uniform draw from 0..n-1: the next integer u below the largest multiple of n
        under 2^64 (others are passed over), taken modulo n."""
        limit = (1 << 64) - (1 << 64) % n
        while (u := self.next()) >= limit:
            pass
        return u % n


#: how a drawn parameter's value is picked from its values, given the earlier ones
Pick = Callable[[Drawn, Sequence[Fraction], dict[str, Fraction]], Fraction]


def attempt(params: Params, stream: Stream) -> tuple[dict[str, Fraction], bool]:
    """One try from the stream (`tried` with `picked_from(stream)`)."""
    return tried(params, picked_from(stream))


def tried(params: Params, pick: Pick) -> tuple[dict[str, Fraction], bool]:
    """One try: every declaration in order (a drawn one picked from its values), then
    whether every condition holds."""
    env: dict[str, Fraction] = {}
    for decl in params.decls:
        if isinstance(decl, Derived):
            env[decl.name] = derived(decl, env)
        else:
            env[decl.name] = pick(decl, values_of(decl, env), env)
    return env, kept(params, env)


def picked_from(stream: Stream) -> Pick:
    """The draw's pick: the value at the next uniform index below the list's length; with
    `redraw NAME until C`, again and again until C holds, at most MAX_REDRAWS times."""
    def pick(decl: Drawn, values: Sequence[Fraction], env: dict[str, Fraction]) -> Fraction:
        if not decl.until:
            return values[stream.below(len(values))]
        for _ in range(MAX_REDRAWS):
            v = values[stream.below(len(values))]
            if holds(decl, v, env):
                return v
        raise GradcalcError(f"{decl.name} was drawn {MAX_REDRAWS:,} times and never kept "
                            f"({'; '.join(c.text for c in decl.until)})"
                            + (f" when {shown(tuple(env.items()))}" if env else ""),
                            kind="usage")
    return pick


def draw(params: Params, term: str, student: str, problem: str) -> Values:
    """The values of one student's variant of one problem (the same on every run)."""
    pick = picked_from(Stream(term, student, problem))
    for _ in range(MAX_TRIES):
        env, ok = tried(params, pick)
        if ok:
            return tuple(env.items())
    conditions = "; ".join(c.text for c in params.conditions)
    raise GradcalcError(f"no draw for {student!r} satisfied the conditions ({conditions}) "
                        f"in {MAX_TRIES:,} tries", kind="usage")


# --------------------------------------------------------------------------- checking


def combinations(params: Params, most: int = MAX_COUNTED) -> Iterator[dict[str, Fraction]]:
    """Every combination of the drawn values, in the order of the declarations (the first
    parameter slowest), the conditions not applied; at most `most` (then it stops)."""
    count = 0

    def walk(k: int, env: dict[str, Fraction]) -> Iterator[dict[str, Fraction]]:
        nonlocal count
        if count >= most:
            return
        if k == len(params.decls):
            count += 1
            yield dict(env)
            return
        decl = params.decls[k]
        if isinstance(decl, Derived):
            yield from walk(k + 1, {**env, decl.name: derived(decl, env)})
            return
        for v in redrawn(decl, values_of(decl, env), env):
            yield from walk(k + 1, {**env, decl.name: v})

    yield from walk(0, {})


def redrawn(decl: Drawn, values: Sequence[Fraction], env: dict[str, Fraction]
            ) -> Sequence[Fraction]:
    """The values a redraw keeps (each as likely as the others: a uniform draw repeated
    until it is one of them); an error when they are none, or too few for MAX_REDRAWS."""
    if not decl.until:
        return values
    kept_values = [v for v in values if holds(decl, v, env)]
    if len(kept_values) < MIN_SHARE * len(values):
        when = f" when {shown(tuple(env.items()))}" if env else ""
        share = (f"keeps {len(kept_values):,} of the {len(values):,} values of "
                 f"{decl.name}, under {MIN_SHARE:.0%}: a redraw draws at most "
                 f"{MAX_REDRAWS:,} times" if kept_values else
                 f"can never succeed: none of the {len(values):,} values of {decl.name} "
                 "satisfies it")
        raise GradcalcError(f"{'; '.join(repr(c.text) for c in decl.until)} {share}{when}",
                            kind="usage")
    return kept_values


def kept(params: Params, env: dict[str, Fraction]) -> bool:
    return all(value(c.expr, env) for c in params.conditions)


def check(params: Params, where: str, term: str, problem: str) -> list[dict[str, Fraction]]:
    """Refuse, naming WHERE, a spec that cannot be drawn: an empty range, arithmetic that
    fails for some values, conditions that keep no combination or too few for MAX_TRIES
    tries. Returns the combinations that satisfy the conditions (when they were counted
    one by one: at most MAX_COUNTED; else those of the probe's draws)."""
    at = f"{where}, column params"
    try:
        every = list(combinations(params, MAX_COUNTED + 1))
        counted = len(every) <= MAX_COUNTED
        if counted:
            good = [env for env in every if kept(params, env)]
            total = len(every)
        else:
            stream, good, total = Stream(term, "", problem), [], PROBE_TRIES
            for _ in range(PROBE_TRIES):
                env, ok = attempt(params, stream)
                if ok:
                    good.append(env)
    except GradcalcError as exc:
        raise GradcalcError(f"{at}: {exc.message}", kind=exc.kind) from None
    conditions = "; ".join(c.text for c in params.conditions)
    how = (f"of the {total:,} combinations" if counted else
           f"of {total:,} draws (the combinations are too many to count)")
    if not good:
        raise GradcalcError(f"{at}: no values satisfy the conditions ({conditions}): none "
                            f"{how}", kind="usage")
    if len(good) < MIN_SHARE * total:
        raise GradcalcError(f"{at}: the conditions ({conditions}) keep {len(good):,} {how}, "
                            f"under {MIN_SHARE:.0%}: a draw tries at most {MAX_TRIES:,} times; "
                            "narrow the ranges, or compute a parameter from another (a = 2b) "
                            "instead of a condition",
                            kind="usage")
    return good
