"""The table of primitives (gradcalc/engine/table.py) is the one place a primitive is
described: a toy primitive registered in a test is parsed, differentiated on the tape,
checked against sympy, worked step by step, printed in LaTeX and judged, and when it is
taken out again every list derived from the table is as it was. No module outside the
table names a particular function's facts (softplus is the witness)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import gradcalc
from gradcalc.engine import table
from gradcalc.engine import twins as tw
from gradcalc.engine.primitive import FUNCTIONS, PRIMITIVES, Facts, Prim, fn
from gradcalc.engine.tape import ANS
from gradcalc.engine.tensor import Tensor
from gradcalc.homework import dispatch, judged_points, problem, proof, read_as, sample
from gradcalc.homework.feedback import misconceptions
from gradcalc.homework.solutions.derivative_rules import derivatives
from gradcalc.language import applying, glued, latex, names, values
from gradcalc.language.parse import parse

ROOT = Path(__file__).resolve().parents[2]


class versin(sp.Function):  # noqa: N801 - sympy's functions are named in lower case
    """The versine, 1 − cos(x): the toy primitive's sympy twin, printed by its name."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.sin(self.args[0])

    def _eval_evalf(self, prec: int) -> sp.Expr:
        return (1 - sp.cos(self.args[0]))._eval_evalf(prec)


def _toy() -> Prim:
    """One entry: forward, VJP, sympy twin, and what a calculus course knows of it."""
    return Prim("versin", lambda x: 1.0 - np.cos(x), (lambda g, ans, x: g * fn.sin(x),),
                tw.piecewise(lambda s, x: versin(x)), elementwise=True, arity=(1, 1),
                methods=("versin",), rule="g·sin(x)",
                facts=Facts("everywhere", "trig", lambda s, u: s.sin(u), "versin' = sin",
                            ("versin",), glued=True, applied=True,
                            misapplied=("trig-sign",)))


def _derived() -> dict[str, object]:
    """Every list the others derive from the table, as a snapshot."""
    return {"functions": sorted(FUNCTIONS), "primitives": list(PRIMITIVES),
            "total": judged_points.total(), "gluable": glued.gluable(),
            "applied": names.applied_names(), "tex": latex._functions(),
            "values": sorted(values._functions()), "rules": sorted(derivatives()),
            "kinked": sample.kinked_functions(), "inverses": applying.inverses(),
            "method": hasattr(Tensor, "versin"), "fn": hasattr(fn, "versin")}


def _forget() -> None:
    """The homework's caches of texts read and judged (the toy's texts among them)."""
    for forget in (dispatch.forget, problem.forget_functions, read_as.forget, judged_points.forget,
                   proof.forget, misconceptions.forget):
        forget()


@pytest.fixture
def toy():
    before = _derived()
    prim = table.register(_toy())
    try:
        yield prim
    finally:
        table.unregister("versin")
        _forget()
    assert _derived() == before


def run(capsys, *args: str) -> str:
    from gradcalc.cli import main

    try:
        main(list(args))
    except SystemExit as done:
        assert done.code in (0, 1, None), capsys.readouterr()
    return capsys.readouterr().out


def test_the_toy_is_in_every_derived_list(toy):
    found = _derived()
    assert "versin" in found["functions"] and "versin" in found["total"]
    assert "versin" in found["gluable"] and "versin" in found["applied"]
    assert "versin" in found["tex"] and "versin" in found["values"]
    assert "versin" in found["rules"] and found["method"]


def test_parsed_and_differentiated_on_the_tape(toy):
    program = parse("y = versin(x)**2 + x")
    assert "versin" in program.source
    x = gradcalc.tensor([0.5, 2.0], requires_grad=True)
    x.versin().sum().backward()
    assert np.allclose(x.grad.value, np.sin([0.5, 2.0]))


def test_checked_against_sympy(toy, capsys):
    out = run(capsys, "grad", "y = versin(x)^2", "--at", "x=1", "--json")
    assert '"status": "pass", "method": "symbolic"' in out
    assert f'"x": {2 * (1 - math.cos(1)) * math.sin(1)!r}'[:12] in out


def test_read_as_students_write_it(toy, capsys):
    out = run(capsys, "check", "x versinx", "--answer", "versin(x) + x sin(x)", "--plain")
    assert out.startswith("correct") and "f(x) = x·versin(x)" in out
    assert values.parse_value("versin(pi)") == 2.0


def test_worked_step_by_step_by_its_own_rule(toy, capsys):
    out = run(capsys, "derive", "versin(x^2)", "--plain")
    assert "1. chain rule (outer versin, inner x^2: versin' = sin): " \
        "d/dx(versin(x^2)) = sin(x^2)·d/dx(x^2)" in out
    assert "answer: f'(x) = 2x·sin(x^2)" in out and "2 of 2 also by sympy" in out


def test_read_from_and_printed_in_latex(toy, capsys):
    out = run(capsys, "derive", r"\versin(x^2)", "--latex")
    assert r"\[ f(x) = \operatorname{versin}{\left(x^{2} \right)} \]" in out
    assert r"f'(x) = 2 x \sin{\left(x^{2} \right)}" in out


def test_its_misapplied_rule_is_named(toy, capsys):
    out = run(capsys, "check", "versin(2x)", "--answer", "-2sin(2x)", "--plain")
    assert "the sign of versin's derivative is wrong: versin' = sin" in out


def test_the_textbook_rules_read_as_books_write_them():
    rules = derivatives()
    assert rules["tan"][2] == "tan' = sec²" and rules["cot"][2] == "cot' = −csc²"
    assert rules["tanh"][2] == "tanh' = sech²"
    u = sp.Symbol("u", real=True)
    for name, (_, derivative, _) in rules.items():
        prim = PRIMITIVES[name]
        twin = prim.sym(np.asarray(u, dtype=object)).item()
        at = sum(prim.domain) / 2 if prim.domain else 0.7  # inside its domain, off 0
        said = sp.Add(derivative(u), 0).subs(u, at)
        assert float(said) == pytest.approx(float(sp.diff(twin, u).subs(u, at))), name


def test_a_value_is_computed_by_the_tables_forward():
    assert values.parse_value("acot(0)") == pytest.approx(math.pi / 2)
    assert values.parse_value("sigmoid(0)") == 0.5


def test_no_module_outside_the_table_names_softplus():
    """A primitive's facts are its entry's: the table (and the forward it names) and the
    library's PyTorch-shaped API (gradcalc/nn: F.softplus, nn.Softplus) only."""
    allowed = {"gradcalc/engine/table.py", "gradcalc/engine/forwards.py"}
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "gradcalc").rglob("*.py")
                   if re.search("softplus", p.read_text(encoding="utf-8"), re.I))
    assert [p for p in found if p not in allowed and not p.startswith("gradcalc/nn/")] == []


def test_a_worked_solution_writes_tan_prime_as_sec_squared(capsys):
    out = run(capsys, "derive", "tan(x^2)", "--plain")
    assert "1. chain rule (outer tan, inner x^2: tan' = sec²): " \
        "d/dx(tan(x^2)) = sec(x^2)^2·d/dx(x^2)" in out
    assert "answer: f'(x) = 2x·sec(x^2)^2" in out and "simplify" not in out


def test_a_sheet_writes_a_function_by_its_name_in_a_book():
    from gradcalc.render.math_markup import mathml

    markup = mathml(sp.log(sp.Symbol("x")) + sp.exp(sp.Symbol("x")))
    assert "<mi>ln</mi>" in markup and "<mi>log</mi>" not in markup


# ------------------------------------------------------------------------------- reads

READING = sorted(name for name, p in PRIMITIVES.items() if p.reads)


def _rule(prim: Prim, i: int, values: list, ans, lift, poisoned: bool):
    """Argument i's rule at `values`; `poisoned`: every saved value it does not say it
    reads (`Prim.reads`) is nan. `lift` makes them plain arrays or recorded tensors."""
    read = prim.reads[i] if poisoned else (*range(len(values)), ANS)
    g = np.linspace(0.5, 1.5, np.size(ans)).reshape(np.shape(ans))
    args = [lift(v if j in read else np.full(np.shape(v), np.nan)) for j, v in enumerate(values)]
    out = prim.vjps[i](lift(g), lift(ans if ANS in read else np.full(np.shape(ans), np.nan)),
                       *args)
    return np.asarray(getattr(out, "value", out))


@pytest.mark.parametrize("name", READING)
@pytest.mark.parametrize("recorded", [False, True])
def test_a_rule_reads_only_what_its_entry_says(name: str, recorded: bool) -> None:
    prim = PRIMITIVES[name]
    low, high = prim.domain or (0.6, 0.9)
    values = [np.linspace(low, high, 3) + 0.01 * k for k in range(len(prim.vjps))]
    ans = prim.forward(*values)
    lift = (lambda v: Tensor(v, requires_grad=True)) if recorded else (lambda v: v)
    for i in range(len(prim.vjps)):
        assert np.array_equal(_rule(prim, i, values, ans, lift, poisoned=True),
                              _rule(prim, i, values, ans, lift, poisoned=False)), (name, i)


def test_an_entry_that_saves_nothing_reads_nothing() -> None:
    assert PRIMITIVES["add"].reads == () and PRIMITIVES["sum"].reads == ()
    assert PRIMITIVES["exp"].reads == ((ANS,),) and PRIMITIVES["mul"].reads == ((1,), (0,))
