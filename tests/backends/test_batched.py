"""The batched backend's tape (--points with fused kernels off): its numbers bit for bit
what they were before its work was cut, and that work counted (never timed): a lean
recording on a tape of its own, whose forward writes over the interpreter's
temporaries, whose sweep lends each cotangent to its node's rules, and which takes its
large arrays from the engine's pool (docs/performance.md)."""

from __future__ import annotations

import hashlib
import tracemalloc

import numpy as np
import pytest

from gradcalc.backends import batched
from gradcalc.engine import pool, scratch, tape
from gradcalc.engine.fused import fusion
from gradcalc.language.parse import parse
from gradcalc.limits import Limits

#: tests/engine_cases.py's grid with its awkward points (0, -0, 1e-300, 50), repeated to
#: 172,000 points: past pool.POOLED, and each branch of "branches" too
X = np.concatenate([np.linspace(-3.0, 3.0, 37), [0.0, -0.0, 1.0, 2.0, 1e-300, 50.0]])
A, B, C = (np.tile(v, 4000) for v in (X, np.cos(np.arange(X.size) * 0.7) * 2.0,
                                      np.sin(np.arange(X.size) * 1.3) + 1.5))

PROGRAMS = {
    "points": "out = a*b*sin(c) + exp(a*c)/(1+b**2)",
    "temporaries": "u = a*c\nout = -exp(-u)*2 - (b - sin(a))/3 + u/(a*a + 1) - (-(b*c))",
    "branches": "if a > 0:\n    out = exp(-a*b)/(1+c**2) - a\nelse:\n    out = -sin(b*c)*a + b/c",
    "powers": "out = a**2 + (b*c)**2 - 2**a + (a*b)**3 + c**0.5",
    "awkward": "out = log(a)*b + sqrt(c - 1) + exp(-(a*50)) + 1/(a*a) - b/(-0.0*c)",
    "vector": "out = [a*b - c, exp(-(a*c))/(1 + b**2), -(sin(a) + c)]",
}


def _digest(a: np.ndarray) -> str:
    """The shape and a hash of the float64 bytes: equal digests, equal bits."""
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    return f"{a.shape} {hashlib.sha256(a.tobytes()).hexdigest()[:24]}"


def _run(program: str, names: list[str], seed: batched.Seed | None) -> list[str]:
    value, derivative, *_ = batched.evaluate(parse(program), {"a": A, "b": B, "c": C}, names,
                                             "out", Limits(), seed=seed)
    return [_digest(value), *(f"{k} {_digest(v)}" for k, v in sorted(derivative.items()))]


def observe() -> dict[str, list[str]]:
    """Every case's digests, from the tape (fused kernels off)."""
    out = {}
    with fusion(False):
        for name, program in PROGRAMS.items():
            seeds = {"grad": np.ones, "jacobian": None, "hessian": batched.hessian_seed}
            for kind, seed in seeds.items():
                if not (name == "vector" and kind == "hessian"):
                    out[f"{kind} {name}"] = _run(program, ["a", "b", "c"], seed)
        out["constant c"] = _run(PROGRAMS["temporaries"], ["a", "b"], np.ones)
    return out


#: recorded from the code before the batched tape's work was cut (commit b3386d4)
PINNED = {'constant c': ['(172000,) b6ba18bc185fa88f087c98d0',
                         'a (172000,) 15d638da438265becf07592a',
                         'b (172000,) d4558ff90349c5c6c32f9121'],
          'grad awkward': ['(172000,) 5f4657ec00e658b77d1c0d6e',
                           'a (172000,) e90c9def4785380fabd3c780',
                           'b (172000,) fcc76449571c7f15571b29de',
                           'c (172000,) 707cb5833f644d1dba410e53'],
          'grad branches': ['(172000,) 6f1fb6b4eb432a62f8ca5755',
                            'a (172000,) 1320f7f46bb7d935f9818e0d',
                            'b (172000,) 695dbcba54b6a8ebb5ff5749',
                            'c (172000,) e18b5e447438db86f17a301b'],
          'grad points': ['(172000,) ba5912c78d84db9bc0e22cda',
                          'a (172000,) 1471372297b71e1c05556e52',
                          'b (172000,) f4474acb82aa1fd19b6c324f',
                          'c (172000,) a1f847b7639c6554c2cd0799'],
          'grad powers': ['(172000,) a4e7f3abdc065277e0a73aee',
                          'a (172000,) b42c4c50ae95a9d8f80ee629',
                          'b (172000,) 0964a22b8ad4f5163c942c59',
                          'c (172000,) b3aae7df90228bf03535ca87'],
          'grad temporaries': ['(172000,) b6ba18bc185fa88f087c98d0',
                               'a (172000,) 15d638da438265becf07592a',
                               'b (172000,) d4558ff90349c5c6c32f9121',
                               'c (172000,) 2df03a052acc879cef626f08'],
          'grad vector': ['(172000, 3) 5171a016798f4e3d994cb90a',
                          'a (172000,) 0f33ee071353295ffce4d8ed',
                          'b (172000,) 780934eb4caf3b76de6585c6',
                          'c (172000,) 3c05f9647e5fcffaff21609c'],
          'hessian awkward': ['(172000,) 5f4657ec00e658b77d1c0d6e',
                              'a,a (172000,) aad19a1eb86198b86f780ade',
                              'a,b (172000,) e57ba491938b404087c4104a',
                              'a,c (172000,) 2f17a75776d7b999649dd55e',
                              'b,a (172000,) e57ba491938b404087c4104a',
                              'b,b (172000,) 2f17a75776d7b999649dd55e',
                              'b,c (172000,) 707cb5833f644d1dba410e53',
                              'c,a (172000,) 2f17a75776d7b999649dd55e',
                              'c,b (172000,) 707cb5833f644d1dba410e53',
                              'c,c (172000,) 707cb5833f644d1dba410e53'],
          'hessian branches': ['(172000,) 6f1fb6b4eb432a62f8ca5755',
                               'a,a (172000,) abe6b1f58efd8734a5846805',
                               'a,b (172000,) e3e62a19376d27ebc9cb5e2a',
                               'a,c (172000,) 9e232e800e46265014e843e4',
                               'b,a (172000,) f178bd1757701ca06c695fa8',
                               'b,b (172000,) 34c7c0f12facba10a2949103',
                               'b,c (172000,) 74f4af29a2aad816d1b454e3',
                               'c,a (172000,) 06571cce8d293ecc93b05814',
                               'c,b (172000,) 18b2ee37c93b8fe9c55bad81',
                               'c,c (172000,) 574800d71c9d98cecbfa57d0'],
          'hessian points': ['(172000,) ba5912c78d84db9bc0e22cda',
                             'a,a (172000,) 4ca340bdc44d8f4eee82045f',
                             'a,b (172000,) a2d01c6033a34b19b81fd43b',
                             'a,c (172000,) 2f5804fc72b18ce6b5763634',
                             'b,a (172000,) bc78cc0a8136fb4a6a6f21a9',
                             'b,b (172000,) eab89e70b1a3cc7f4e370953',
                             'b,c (172000,) 5a28c2abdd194658d295dab7',
                             'c,a (172000,) ec8fb9509a2dc5d96149297a',
                             'c,b (172000,) c4ae66cad016177cdf42935d',
                             'c,c (172000,) 0b848e352f66e6043a4c69f4'],
          'hessian powers': ['(172000,) a4e7f3abdc065277e0a73aee',
                             'a,a (172000,) 93f38e092f37995ae758a1aa',
                             'a,b (172000,) 435d5ff1d5c98422673d1ff1',
                             'a,c (172000,) 2f17a75776d7b999649dd55e',
                             'b,a (172000,) e62b91384260867914b2ae5d',
                             'b,b (172000,) b76afcb06ccd155a2f31905b',
                             'b,c (172000,) 4270d12de8e0ba23b7b1c084',
                             'c,a (172000,) 2f17a75776d7b999649dd55e',
                             'c,b (172000,) 4270d12de8e0ba23b7b1c084',
                             'c,c (172000,) 59436d5767d2a8df2de9e2e7'],
          'hessian temporaries': ['(172000,) b6ba18bc185fa88f087c98d0',
                                  'a,a (172000,) 7e4fb5574437fba96b0e2301',
                                  'a,b (172000,) 2f17a75776d7b999649dd55e',
                                  'a,c (172000,) 4c0b1b1fc3b2d0ea0e8504a1',
                                  'b,a (172000,) 2f17a75776d7b999649dd55e',
                                  'b,b (172000,) 2f17a75776d7b999649dd55e',
                                  'b,c (172000,) d49fa679dcfd1084dcbc9ef3',
                                  'c,a (172000,) 1709d19a2de81e0302cca039',
                                  'c,b (172000,) d49fa679dcfd1084dcbc9ef3',
                                  'c,c (172000,) 7193385522631414aac1d49e'],
          'jacobian awkward': ['(172000,) 5f4657ec00e658b77d1c0d6e',
                               'a (172000,) e90c9def4785380fabd3c780',
                               'b (172000,) fcc76449571c7f15571b29de',
                               'c (172000,) 707cb5833f644d1dba410e53'],
          'jacobian branches': ['(172000,) 6f1fb6b4eb432a62f8ca5755',
                                'a (172000,) 1320f7f46bb7d935f9818e0d',
                                'b (172000,) 695dbcba54b6a8ebb5ff5749',
                                'c (172000,) e18b5e447438db86f17a301b'],
          'jacobian points': ['(172000,) ba5912c78d84db9bc0e22cda',
                              'a (172000,) 1471372297b71e1c05556e52',
                              'b (172000,) f4474acb82aa1fd19b6c324f',
                              'c (172000,) a1f847b7639c6554c2cd0799'],
          'jacobian powers': ['(172000,) a4e7f3abdc065277e0a73aee',
                              'a (172000,) b42c4c50ae95a9d8f80ee629',
                              'b (172000,) 0964a22b8ad4f5163c942c59',
                              'c (172000,) b3aae7df90228bf03535ca87'],
          'jacobian temporaries': ['(172000,) b6ba18bc185fa88f087c98d0',
                                   'a (172000,) 15d638da438265becf07592a',
                                   'b (172000,) d4558ff90349c5c6c32f9121',
                                   'c (172000,) 2df03a052acc879cef626f08'],
          'jacobian vector': ['(172000, 3) 5171a016798f4e3d994cb90a',
                              'a (172000, 3) 3baa39fb394ad8a916fed290',
                              'b (172000, 3) 2343de94b677e2ff7c60b3ac',
                              'c (172000, 3) 83cc074c993f4cf078b1f3f6']}


def test_the_same_bits_as_before() -> None:
    assert observe() == PINNED


# the work, counted ----------------------------------------------------------------------
#: the row's program (bench/run.py, row_points) at the size the pool starts at
ROW = parse(PROGRAMS["points"])
_T = np.linspace(-1.0, 1.0, pool.POOLED)
VALUES = {"a": _T, "b": np.cos(3.0 * _T), "c": np.sin(2.0 * _T) + 0.5}


def _row_pass() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    with fusion(False):
        value, derivative, *_ = batched.evaluate(ROW, VALUES, ["a", "b", "c"], "out",
                                                 Limits(), seed=np.ones)
    return value, derivative


def test_the_row_takes_13_buffers_where_it_took_18(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forward writes exp(a*c) over a*c, 1 + b**2 over b**2 and the last sum over
    a*b*sin(c) (6 buffers filled, 9 before); the sweep takes 7 (1/d, -e, d*d, 2b, the
    g·c of a*c, cos c, and the g·b of a*b, whose g·a goes into sin c's array), where it
    took 9 and made 3 arrays outside the pool (div's rule for d, an array of every
    row's number)."""
    _row_pass()
    taken: list[str] = []
    phase = ["forward"]
    take, sweep_points = pool.take, batched._sweep_points

    def marked(*args):
        phase[0] = "sweep"
        return sweep_points(*args)

    monkeypatch.setattr(batched, "_sweep_points", marked)
    monkeypatch.setattr(pool, "take", lambda shape: taken.append(phase[0]) or take(shape))
    _row_pass()
    assert (taken.count("forward"), taken.count("sweep")) == (6, 7)


def test_the_sweep_writes_into_the_cotangents_it_alone_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """exp's rule, a*c's rule for c and b**2's write into their cotangent, and a*b's
    for a and sin's into the forward values sin c and a*b that mul's rule passed on as
    aliases, once nothing else holds them (none did: the pass was off a tape, and the
    sweep held every node's cotangent for a picture)."""
    counts = {"into g": 0, "sums in place": 0}
    into, addable = scratch._into, tape._addable

    def spy_into(g, v):
        counts["into g"] += (done := into(g, v))
        return done

    def spy_addable(before, gi):
        counts["sums in place"] += (done := addable(before, gi))
        return done

    monkeypatch.setattr(scratch, "_into", spy_into)
    monkeypatch.setattr(tape, "_addable", spy_addable)
    _row_pass()
    assert counts == {"into g": 5, "sums in place": 3}


def test_a_second_pass_allocates_nothing_outside_the_pool() -> None:
    _row_pass()
    made = pool.made()
    tracemalloc.start()  # NumPy reports every array's memory to tracemalloc
    try:
        value, derivative = _row_pass()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pool.made() == made
    assert peak < _T.nbytes / 4  # three arrays of the row's size before
    a, b, c = VALUES["a"], VALUES["b"], VALUES["c"]
    assert np.allclose(value, a * b * np.sin(c) + np.exp(a * c) / (1 + b**2), rtol=1e-15)
    assert np.allclose(derivative["c"], a * b * np.cos(c) + a * np.exp(a * c) / (1 + b**2),
                       rtol=1e-14)


def test_inputs_constants_and_named_values_are_never_written_over() -> None:
    program = parse("t = a*2\nw = exp(-c)\nout = -t + (-(b)) + exp(-w) + (-(t*1)) + w*0")
    values = {"a": _T, "b": np.cos(_T), "c": np.sin(_T)}
    kept = {k: v.copy() for k, v in values.items()}
    with fusion(False):
        for of, wanted in (("t", _T * 2), ("w", np.exp(-values["c"])), ("out", None)):
            value, *_ = batched.evaluate(program, values, ["a", "b"], of, Limits(),
                                         seed=np.ones)
            if wanted is not None:
                assert value.tobytes() == wanted.tobytes()
    assert all(values[k].tobytes() == kept[k].tobytes() for k in values)
