"""The checks every step passes before it is printed: the points are seeded, a false step
fails, equations are compared as equations, and a failing step is merged with the next
ones into one larger step that holds."""

from __future__ import annotations

import sympy as sp

from gradcalc.homework import proof
from gradcalc.homework.solutions import verified
from gradcalc.homework.solutions.states import leaf
from gradcalc.homework.solutions.verified import Checker, Raw, chain

x = proof.symbol("x")


def checker(**kw) -> Checker:
    return Checker({"x": x}, x, **kw)


def raw(before, after, mode="value", rule="r") -> Raw:
    return Raw(rule, "", "", "", (leaf(before),), (leaf(after),), mode)


def test_the_points_are_seeded():
    assert (checker(seed=3).points["x"] == checker(seed=3).points["x"]).all()
    assert checker(samples=5).count == 5
    assert (checker(fixed={"x": 2.0}).points["x"] == 2.0).all()


def test_a_true_step_holds_and_a_small_one_is_also_proved():
    ok, proved, used = checker().holds(raw(sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x)))
    assert ok and used == 8
    assert proved is False  # expand and cancel do not see a double angle: numeric only
    ok, proved, _ = checker().holds(raw((x + 1) ** 2, x**2 + 2 * x + 1))
    assert ok and proved


def test_a_false_step_fails():
    assert checker().holds(raw(x**2, x**2 + 1e-5 * x))[0] is False


def test_antiderivatives_are_compared_by_their_derivatives():
    assert checker().holds(raw(sp.sin(x) ** 2, -sp.cos(x) ** 2, mode="derivative"))[0]
    assert not checker().holds(raw(sp.sin(x) ** 2, sp.cos(x) ** 2, mode="derivative"))[0]


def test_a_failing_step_is_merged_with_the_next():
    steps, complete = chain([raw(x**2, x**3, rule="wrong"), raw(x**3, x**2, rule="back"),
                             raw(x**2, x * x, rule="fine")], checker())
    assert complete and [s.rule for s in steps] == ["combined", "fine"]
    assert steps[0].merged == ("wrong", "back")


def test_a_chain_that_never_holds_is_not_complete():
    steps, complete = chain([raw(x, x + 1)], checker())
    assert steps == [] and not complete


#: a small step (7 operations) whose proof expands two polynomials of degree 80
#: (about 100 ms of CPU time)
SMALL_BUT_SLOW = ((x**2 + 2 * x + 1) ** 40, (x + 1) ** 80)


def test_whether_a_step_is_proved_does_not_depend_on_the_machines_speed(slow_machine):
    """Counted work, not CPU time: on a machine a thousand times slower (every time
    budget spent a thousand times sooner) the step is proved all the same."""
    assert checker().holds(raw(*SMALL_BUT_SLOW)) == (True, True, 8)


def test_a_proof_past_its_counted_calls_is_not_given_alike_in_every_run(monkeypatch):
    """Past `PROOF_CALLS` the step is checked on the tape only; decided by the exact
    count in a fresh process, so at the same call in every run."""
    from sympy.core.cache import clear_cache

    clear_cache()  # not cached by an earlier test: counted here, it would cost far less
    monkeypatch.setattr(verified, "PROOF_CALLS", 2_000)
    assert [checker().holds(raw(*SMALL_BUT_SLOW)) for _ in range(2)] == [(True, False, 8)] * 2


def test_a_step_too_large_to_prove_is_not_handed_to_sympy(monkeypatch):
    """The size is read before sympy takes the parts still to do (a large step's parts
    can take far longer than their proof would)."""
    taken = []
    real = Checker.symbolic
    monkeypatch.setattr(Checker, "symbolic", lambda self, *a: taken.append(a) or real(self, *a))
    large = sum(sp.sin(k * x) * x**k for k in range(1, 12))
    assert checker().holds(raw(large, sp.expand(large))) == (True, False, 8)
    assert taken == []
