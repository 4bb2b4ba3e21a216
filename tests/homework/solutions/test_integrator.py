"""The steps written from a rule tree: a substitution's variables named in turn."""

from __future__ import annotations

import sympy as sp

x = sp.Symbol("x", real=True)


def test_more_substitutions_than_letters_do_not_crash(invoke):
    from gradcalc.homework.solutions.integrator import Integrator

    maker = Integrator(x)
    names = [maker.name(sp.Dummy()).name for _ in range(7)]
    assert names == ["u", "w", "t", "s", "z", "u1", "u2"]


def test_a_formulas_log_takes_bars():
    from gradcalc.homework.solutions.integrator import barred_logs

    e = sp.log(2 * x + 2 * sp.sqrt(x**2 + 6 * x) + 6)
    assert barred_logs(e) == sp.log(sp.Abs(e.args[0]))
    assert barred_logs(sp.log(x**2 + 1)) == sp.log(x**2 + 1)
