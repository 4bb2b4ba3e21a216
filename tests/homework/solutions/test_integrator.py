"""The steps written from a rule tree: a substitution's variables named in turn."""

from __future__ import annotations

import sympy as sp

x = sp.Symbol("x", real=True)


def test_more_substitutions_than_letters_do_not_crash(invoke):
    from gradcalc.homework.solutions.integrator import Integrator

    maker = Integrator(x)
    names = [maker.name(sp.Dummy()).name for _ in range(7)]
    assert names == ["u", "w", "t", "s", "z", "u1", "u2"]
