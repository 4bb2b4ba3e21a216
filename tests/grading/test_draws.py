"""The draw's `redraw NAME until C` (gradcalc.grading.draws): only NAME is drawn again,
which gives WeBWorK's odds exactly (every draw enumerated in exact rational arithmetic);
the number of redraws is counted and bounded; a redraw that cannot succeed is refused
when the key is read, naming its line."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading import draws, params

WHERE = "key.csv, line 2"


class _Branch(Exception):
    """The script of picks ran out: the next pick has `count` outcomes."""

    def __init__(self, count: int) -> None:
        self.count = count


def exact_odds(text: str) -> dict[tuple[tuple[str, Fraction], ...], Fraction]:
    """The exact distribution of a variant's values: `draws.tried` run on every script of
    picks (depth first), each pick uniform over the values its redraw keeps (what drawing
    uniformly until C holds gives: draws.redrawn), the tries that fail a condition left
    out and the rest scaled up (what trying again gives)."""
    spec = params.read(text, WHERE)
    odds: dict[tuple[tuple[str, Fraction], ...], Fraction] = defaultdict(Fraction)
    scripts: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while scripts:
        script, chance = scripts.pop()
        used: list[int] = []

        def pick(decl, values, env, script=script, used=used):
            kept = draws.redrawn(decl, values, env)
            if len(used) == len(script):
                raise _Branch(len(kept))
            used.append(script[len(used)])
            return kept[used[-1]]

        try:
            env, ok = draws.tried(spec, pick)
        except _Branch as branch:
            scripts += [((*script, k), chance / branch.count) for k in range(branch.count)]
            continue
        if ok:
            odds[tuple(env.items())] += chance
    total = sum(odds.values())
    return {values: chance / total for values, chance in odds.items()}


def chance_of(odds: dict, name: str, v: int) -> Fraction:
    return sum((c for values, c in odds.items() if dict(values)[name] == v), Fraction(0))


def test_redraw_one_parameter_gives_webworks_odds_where_a_condition_does_not():
    """WeBWorK's `$n3 = random(2,9); do { $n2 = random(2,9) } until (gcd($n2,$n3) == 1)`:
    n3 is any of its 8 values, 1/8 each; a condition drawing the whole try again makes
    n3 = 6 (coprime with 2 values of n2 only) 2 of 38 coprime pairs, 1/19."""
    redraw = exact_odds("n3 = 2..9; n2 = 2..9; redraw n2 until gcd(n2, n3) == 1")
    assert {v: chance_of(redraw, "n3", v) for v in range(2, 10)} == \
        dict.fromkeys(range(2, 10), Fraction(1, 8))
    assert redraw[(("n3", 6), ("n2", 5))] == Fraction(1, 16)
    assert sum(redraw.values()) == 1 and len(redraw) == 38
    whole = exact_odds("n3 = 2..9; n2 = 2..9; gcd(n2, n3) == 1")
    assert chance_of(whole, "n3", 6) == Fraction(1, 19)


def test_redraws_and_conditions_together():
    """`a` drawn until odd, `b` until apart from a, then the whole try until a < b: each
    step's odds exact."""
    odds = exact_odds("a = 1..4; redraw a until mod(a, 2) == 1; b = 1..4; "
                      "redraw b until b != a; a < b")
    # a is 1 or 3, 1/2 each; then b is one of the 3 others, 1/3 each; a < b keeps all 3
    # of a = 1's and 1 of a = 3's, each 1/6 before the try is drawn again
    assert odds == {(("a", 1), ("b", 2)): Fraction(1, 4), (("a", 1), ("b", 3)): Fraction(1, 4),
                    (("a", 1), ("b", 4)): Fraction(1, 4), (("a", 3), ("b", 4)): Fraction(1, 4)}


class _Scripted(draws.Stream):
    """A stream of given integers (each below 2^64, so never passed over)."""

    def __init__(self, numbers: list[int]) -> None:
        super().__init__("t", "s", "p")
        self.numbers, self.taken = list(numbers), 0

    def next(self) -> int:
        self.taken += 1
        return self.numbers.pop(0)


def test_a_redraw_takes_the_next_index_until_its_condition_holds_and_nothing_else():
    """From the stream 6, 0, 2, 5, 1: n3 = 2..9 takes 6 + 2 = 8; n2 is drawn at 2
    (gcd 2), 4 (gcd 4), 7: kept; three numbers for n2, none drawn again for n3."""
    spec = params.read("n3 = 2..9; n2 = 2..9; redraw n2 until gcd(n2, n3) == 1", WHERE)
    stream = _Scripted([6, 0, 2, 5, 1])
    env, ok = draws.attempt(spec, stream)
    assert ok and env == {"n3": 8, "n2": 7} and stream.taken == 4


def test_a_spec_without_redraw_takes_one_number_per_parameter_as_before():
    spec = params.read("a = 2..9; b = 2..5 except 3", WHERE)
    stream = _Scripted([3, 4])
    assert draws.attempt(spec, stream) == ({"a": 5, "b": 4}, True) and stream.taken == 2


def test_the_redraws_are_counted_and_bounded():
    """A redraw that keeps 1 value in 10,000 is refused when the key is read; drawn
    anyway, it stops after MAX_REDRAWS draws with an error that says so."""
    spec = params.read("a = 1..10000; redraw a until a == 1", WHERE)
    stream = _Scripted([5] * draws.MAX_REDRAWS + [0])
    with pytest.raises(GradcalcError, match="a was drawn 1,000 times and never kept "
                       r"\(redraw a until a == 1\)"):
        draws.attempt(spec, stream)
    assert stream.taken == draws.MAX_REDRAWS
    with pytest.raises(GradcalcError, match="keeps 1 of the 10,000 values of a, under 5%: "
                       "a redraw draws at most 1,000 times"):
        draws.check(spec, WHERE, "t", "1")


@pytest.mark.parametrize("text, message", [
    ("a = 2..9; redraw a until a > 20", "'redraw a until a > 20' can never succeed: none of "
     "the 8 values of a satisfies it"),
    ("a = 2..4; b = 2..4; redraw b until b != a and b > 3", "can never succeed: none of the "
     "3 values of b satisfies it when a = 4"),
    ("a = 2..9; b = 1..3; redraw a until a > b", "'b' is not a parameter declared before "
     "it or 'a' itself"),
    ("redraw a until a > 1", "'a' is not a parameter declared before it: redraw NAME until "
     "CONDITION comes after NAME = RANGE or NAME = choice(...)"),
    ("a = 2; redraw a until a > 1", "'a' is not drawn (it is computed)"),
    ("a = 2..9; redraw a until a + 1", "after until comes a condition"),
    ("a = 2..9; redraw a until sqrt(a) > 1", "'sqrt' at line 1, column 1 is not a function"),
])
def test_a_redraw_that_cannot_be_drawn_names_the_line(text, message):
    with pytest.raises(GradcalcError) as exc:
        draws.check(params.read(text, WHERE), WHERE, "t", "1")
    assert exc.value.message.startswith("key.csv, line 2, column params")
    assert message in exc.value.message


def test_a_redraw_is_reproduced_from_the_seed():
    spec = params.read("n3 = 2..9; n2 = 2..9; redraw n2 until gcd(n2, n3) == 1", WHERE)
    first = [draws.draw(spec, "fall", f"s{k}", "1") for k in range(50)]
    assert first == [draws.draw(spec, "fall", f"s{k}", "1") for k in range(50)]
    assert all(math.gcd(int(dict(v)["n2"]), int(dict(v)["n3"])) == 1 for v in first)


def test_the_documented_tangent_line_problem_keeps_webworks_odds():
    """docs/teaching-with-gradcalc.md's 3-6-48: c drawn again while b + c x0 == 0 leaves
    b at 1/5 each; a condition drawing the whole try makes b = 4 (0 twice of its 8
    pairs of c and x0) 6 of 35."""
    spec = "b = 1..5; x0 = 1..2; c = -5..-2"
    redraw = exact_odds(f"{spec}; redraw c until b + c x0 != 0")
    assert {v: chance_of(redraw, "b", v) for v in range(1, 6)} == \
        dict.fromkeys(range(1, 6), Fraction(1, 5))
    assert chance_of(exact_odds(f"{spec}; b + c x0 != 0"), "b", 4) == Fraction(6, 35)
