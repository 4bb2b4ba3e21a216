"""The steps written from a rule tree: a substitution's variables named in turn."""

from __future__ import annotations

import pytest
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


def derived(invoke, function: str) -> tuple[str, dict, str]:
    """`derive FUNCTION --antiderivative` in plain, JSON and LaTeX."""
    import json

    runs = [invoke("derive", function, "--antiderivative", *fmt)
            for fmt in (("--plain",), ("--json",), ("--latex",))]
    assert all(run.code == 0 for run in runs), [run.err for run in runs]
    return runs[0].out, json.loads(runs[1].out), runs[2].out


def test_a_polynomial_multiplied_out_is_expanding_not_partial_fractions(invoke):
    plain, out, latex = derived(invoke, "x sqrt(x+1)")
    (step,) = [s for s in out["steps"] if s["note"] == "u^2·(u^2 - 1) = u^4 - u^2"]
    assert (step["rule"], step["name"]) == ("expand", "expand")
    assert "3. expand (u^2·(u^2 - 1) = u^4 - u^2)" in plain
    assert "\\text{expand}" in latex
    assert "partial" not in plain + json_text(out) + latex


def json_text(out: dict) -> str:
    import json

    return json.dumps(out, ensure_ascii=False)


def test_one_minus_tan_squared_over_sec_squared_is_shown_as_cos2_minus_sin2(invoke):
    plain, out, _ = derived(invoke, "(1 - tan(x)^2)/sec(x)^2")
    said = "(1 - tan(x)^2)/sec(x)^2 = cos(x)^2 - sin(x)^2 = cos(2x)"
    assert out["steps"][0]["rule"] == "trig-identity" and out["steps"][0]["note"] == said
    assert f"1. a trig identity ({said})" in plain


def test_a_power_of_an_absolute_value_prints_without_brackets(invoke):
    plain, out, _ = derived(invoke, "|x|^3")
    assert plain.splitlines()[0] == out["problem"] == "f(x) = |x|^3"
    run = invoke("derive", "|x|^3", "--plain")
    assert "d/dx(|x|^3)" in run.out and "(|x|)^" not in run.out


def test_an_arctangent_of_a_completed_square_is_over_its_denominator(invoke):
    plain, out, latex = derived(invoke, "1/(x^2+4x+29)")
    assert out["answer"] == "∫ f(x) dx = (1/5)·atan((x + 2)/5) + C"
    assert "= atan((x + 2)/5)/5\n" in plain and "x/5" not in plain
    assert "\\frac{x + 2}{5}" in latex and "\\frac{x}{5}" not in latex
    assert [s["rule"] for s in out["steps"]] == [
        "complete-square", "integral-table", "constant-of-integration", "differentiate-back"]


def test_x_e_x_over_a_square_is_parts_with_dv_the_square(invoke):
    plain, out, latex = derived(invoke, "x e^x/(x+1)^2")
    first = out["steps"][0]
    assert first["rule"] == "parts" and first["note"] == (
        "u = x·e^x, dv = 1/(x + 1)^2 dx: du = (x + 1)·e^x dx, v = -1/(x + 1)")
    assert out["answer"] == "∫ f(x) dx = e^x/(x + 1) + C" and out["note"] is None
    assert f"1. integration by parts ({first['note']})" in plain
    assert "du = \\left(x + 1\\right) e^{x}\\, dx" in latex


@pytest.mark.parametrize("function,parts,rest", [
    ("x sin(x)", "∫ x·sin(x) dx = -x·cos(x) + ∫ cos(x) dx", "∫ cos(x) dx = sin(x)"),
    ("x sin(2x)", "∫ x·sin(2x) dx = -x·cos(2x)/2 + ∫ cos(2x)/2 dx",
     "∫ cos(2x)/2 dx = sin(2x)/4"),
    ("x e^x/(x+1)^2", "∫ x·e^x/(x + 1)^2 dx = -x·e^x/(x + 1) + ∫ e^x dx", "∫ e^x dx = e^x"),
])
def test_parts_takes_the_minus_out_of_v_du_into_its_sign(invoke, function, parts, rest):
    """u·v − ∫ v du with v·du = −g is u·v + ∫ g dx, as a textbook writes it, in every
    format (it printed -x·cos(x) - ∫ -cos(x) dx)."""
    plain, out, latex = derived(invoke, function)
    first, second = out["steps"][:2]
    assert (first["rule"], first["text"], second["text"]) == ("parts", parts, rest)
    assert f": {parts}\n" in plain and f": {rest};" in plain
    assert "- ∫ -" not in plain and "+ \\int" in first["latex"]
    assert "- \\int -" not in latex and "\\int -" not in latex


def test_a_minus_is_taken_out_of_a_constant_multiple_rule_alone():
    from sympy.integrals.manualintegrate import integral_steps

    from gradcalc.homework.solutions.integrator import sign_taken_out

    half = integral_steps(-sp.cos(2 * x) / 2, x)
    rule, integrand = sign_taken_out(half)
    assert integrand == sp.cos(2 * x) / 2 and rule.constant == sp.Rational(1, 2)
    assert sp.simplify(rule.eval() - sp.sin(2 * x) / 4) == 0
    rule, integrand = sign_taken_out(integral_steps(-sp.cos(x), x))
    assert integrand == sp.cos(x) and type(rule).__name__ == "CosRule"
    assert sign_taken_out(integral_steps(sp.cos(x), x)) is None
    rule, integrand = sign_taken_out(integral_steps(-sp.Rational(1, 2), x))
    assert integrand == sp.Rational(1, 2) and rule.eval() == x / 2  # - ∫ 1/2 dx
    assert sign_taken_out(integral_steps(x - 1, x)) is None


def test_sec_squared_of_four_minus_x_names_u_and_the_sign_of_du(invoke):
    plain, out, latex = derived(invoke, "sec(4-x)^2")
    first = out["steps"][0]
    assert first["rule"] == "substitution" and first["note"] == "u = 4 - x, du = -dx"
    assert first["text"] == "∫ sec(x - 4)^2 dx = ∫ -sec(u)^2 du"
    assert "4. substitute back (u = 4 - x): -tan(u) = tan(x - 4)" in plain
    assert out["answer"] == "∫ f(x) dx = tan(x - 4) + C"
    assert "$u = 4 - x$, $du = -dx$" in latex


def _variables_in(text: str) -> set[str]:
    """The substitution variables a row holds (u, w, t, θ)."""
    import re

    return set(re.findall(r"(?<![A-Za-z])[uwtθ](?![A-Za-z(])", text))


@pytest.mark.parametrize("function,most,said", [
    ("3cos(x)^6", 13, "3cos(x)^6 = 3·((1 + cos(2x))/2)^3 = (3/8)·(cos(2x)^3 + 3cos(2x)^2 "
                      "+ 3cos(2x) + 1)"),
    ("3sin(x)^4 cos(x)^2", 13, "3cos(x)^2·sin(x)^4 = 3·((1 - cos(2x))/2)^2·((1 + cos(2x))/2)"
                               " = (3/8)·(cos(2x)^3 - cos(2x)^2 - cos(2x) + 1)"),
])
def test_an_even_power_is_power_reduction_each_substitution_undone_in_turn(
        invoke, function, most, said):
    """Power reduction in one step; a routine integral beside others in one step
    (∫ cos(4x) dx = sin(4x)/4); each substitution written back before the next
    integral, so no row holds two substitution variables, nor one of a substitution
    already finished (was: 28-30 steps, rows holding u, w and t at once)."""
    plain, out, latex = derived(invoke, function)
    steps = out["steps"]
    assert len(steps) <= most and out["verified"]["merged"] == 0
    assert steps[0]["rule"] == "trig-identity" and steps[0]["note"] == said
    for step in steps:
        assert len(_variables_in(step["after"])) <= 1, step["after"]
    substitutions = [s["note"] for s in steps if s["rule"] == "substitution"]
    assert substitutions == ["u = sin(2x), du = 2cos(2x) dx"]
    backs = [k for k, s in enumerate(steps) if s["rule"] == "back-substitution"]
    assert [steps[k - 1]["rule"] for k in backs] == ["integral-sum"]  # u undone at once
    assert not _variables_in(steps[backs[0]]["after"])
    assert "∫ cos(4x) dx" not in plain and "(cos(4x) + 1) dx = x + sin(4x)/4" in plain
    assert latex.count("\\text{substitute back}") == 1


def test_a_root_of_a_shifted_quadratic_is_a_trig_substitution_in_x(invoke):
    plain, out, latex = derived(invoke, "3sqrt(5+4x-x^2)")
    rules = [s["rule"] for s in out["steps"]]
    assert "substitution" not in rules and len(rules) <= 10
    (trig,) = [s for s in out["steps"] if s["rule"] == "trig-substitution"]
    assert trig["note"] == "x = 3sin(θ) + 2, dx = 3cos(θ) dθ, √(9 - (x - 2)^2) = 3cos(θ)"
    assert all(not _variables_in(s["after"]) - {"θ"} for s in out["steps"])
    assert out["answer"] == ("∫ f(x) dx = 3√(9 - (x - 2)^2)·(x - 2)/2 + 27asin((x - 2)/3)/2"
                             " + C")
    assert "$x = 3 \\sin{\\left(\\theta \\right)} + 2$" in latex


def test_writing_theta_back_names_multiple_angles_only_in_one_order(invoke):
    """The right triangle's note says sin(2θ) = 2cos(θ)·sin(θ) for a multiple angle; a log
    or a bar around θ's functions is none (it said ln(|tan(θ) + sec(θ)|) = ln(|tan(θ) +
    1/cos(θ)|), |tan(θ) + sec(θ)| = ..., in an order that changed from run to run)."""
    _, out, _ = derived(invoke, "sqrt(x^2 + 9)")
    back = [s["note"] for s in out["steps"] if s["rule"] == "back-substitution"]
    assert back[-1] == ("x = 3tan(θ): the right triangle with opposite side x, adjacent "
                        "side 3 and hypotenuse √(x^2 + 9) gives cos(θ) = 3/√(x^2 + 9), "
                        "tan(θ) = x/3")
    _, out, _ = derived(invoke, "sqrt(4 - x^2)")
    back = [s["note"] for s in out["steps"] if s["rule"] == "back-substitution"]
    assert "gives sin(2θ) = 2cos(θ)·sin(θ), cos(θ) = √(4 - x^2)/2" in back[-1]


def test_writing_theta_back_is_the_same_under_every_hash_seed():
    import os
    import shutil
    import subprocess

    outs = {subprocess.run([shutil.which("gradcalc"), "derive", "sqrt(x^2 + 9)",
                            "--antiderivative", "--plain"], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
            for seed in ("1", "2")}
    assert len(outs) == 1


@pytest.mark.parametrize("function,note", [
    ("x^3 exp(x^2)", "p = u, dq = e^u du: dp = du, q = e^u"),
    ("x^3 sin(x^2)", "p = u, dq = sin(u) du: dp = du, q = -cos(u)"),
])
def test_parts_in_a_substitutions_u_names_its_pieces_p_and_q(invoke, function, note):
    """After u = x^2, parts named u = u, dv = e^u du: du = du (u is the variable); its
    pieces are p and dq, as the product rule's are, in every format."""
    plain, out, latex = derived(invoke, function)
    parts = next(s for s in out["steps"] if s["rule"] == "parts")
    assert parts["note"] == note
    assert f"integration by parts ({note})" in plain
    assert "$p = u$, $dq = " in latex and "$u = u$" not in latex
    rich = invoke("derive", function, "--antiderivative").out
    assert f"integration by parts ({note})" in rich


def test_repeated_parts_in_u_names_its_pieces_p_and_q(invoke):
    plain, out, _ = derived(invoke, "sin(ln(x))")
    cyclic = next(s for s in out["steps"] if s["rule"] == "cyclic-parts")
    assert "by parts with p = sin(u), dq = e^u du, then p = cos(u), dq = e^u du" in (
        cyclic["note"])
    assert "u = sin(u)" not in plain


def test_x_e_minus_x_is_parts_at_once_as_a_textbook_does_it(invoke):
    """Not u = -x first, then parts in u: u = x, dv = e^(-x) dx, v = -e^(-x)."""
    plain, out, _ = derived(invoke, "x exp(-x)")
    assert [s["rule"] for s in out["steps"]][:2] == ["parts", "integral-exponential"]
    assert out["steps"][0]["note"] == "u = x, dv = e^(-x) dx: du = dx, v = -e^(-x)"
    assert out["answer"] == "∫ f(x) dx = (-x - 1)·e^(-x) + C"
    assert "substitution" not in plain


def test_repeated_parts_under_a_shift_is_written_in_x_as_its_step_is(invoke):
    """u = x + 1 is written straight back, so the note speaks of x too (it said I = ∫
    e^u·sin(u) du, in a u the step never defines), in every format."""
    plain, out, latex = derived(invoke, "e^(x+1)*sin(x+1)")
    cyclic = next(s for s in out["steps"] if s["rule"] == "cyclic-parts")
    note = ("I = ∫ e^(x + 1)·sin(x + 1) dx; by parts with u = sin(x + 1), "
            "dv = e^(x + 1) dx, then u = cos(x + 1), dv = e^(x + 1) dx: "
            "I = e^(x + 1)·sin(x + 1) - cos(x + 1)·e^(x + 1) - I, "
            "so 2·I = e^(x + 1)·sin(x + 1) - cos(x + 1)·e^(x + 1)")
    assert cyclic["note"] == note and f"({note}): ∫ e^(x + 1)" in plain
    assert "e^u" not in plain and "e^{u}" not in latex and "\\, du" not in latex
    assert "I = \\int e^{x + 1} \\sin{\\left(x + 1 \\right)}\\, dx" in latex


@pytest.mark.parametrize("function", ["x sin(x^2)^2", "cos(x) sin(sin(x))^2"])
def test_a_table_beside_others_in_u_is_stated_in_another_letter(invoke, function):
    """∫ cos(2u) du beside ∫ 1 du: the table's own letter is w (it said u = 2u,
    du = 2 du)."""
    plain, out, _ = derived(invoke, function)
    table = next(s for s in out["steps"] if s["rule"] == "integral-table")
    assert table["note"] == "∫ cos(w) dw = sin(w), w = 2u, dw = 2 du"
    assert f"({table['note']}): ∫ cos(2u) du = sin(2u)/2" in plain
    assert "u = 2u" not in plain


def test_a_table_beside_others_in_x_keeps_its_u(invoke):
    plain, _, _ = derived(invoke, "cos(x)^4")
    assert "(∫ cos(u) du = sin(u), u = 2x, du = 2 dx)" in plain


@pytest.mark.parametrize("function,sum_step", [
    ("sin(2x)^5", "∫ (-u^4/2 + u^2 - 1/2) du = -∫ u^4/2 du + ∫ u^2 du - ∫ 1/2 du"),
    ("x sin(x^2)^2", "∫ (1 - cos(2u)) du = ∫ 1 du - ∫ cos(2u) du"),
    ("x^3 (x^2+1)^(-3)", "∫ (x/(x^2 + 1)^2 - x/(x^2 + 1)^3) dx = "
     "∫ x/(x^2 + 1)^2 dx - ∫ x/(x^2 + 1)^3 dx"),
    ("3sin(x)^2 cos(x)^2", "∫ (1 - cos(2x)^2) dx = ∫ 1 dx - ∫ cos(2x)^2 dx"),
])
def test_the_sum_rule_takes_a_constants_minus_out_of_the_integral(invoke, function,
                                                                   sum_step):
    """∫ -u^4/2 du in a sum is − ∫ u^4/2 du, as a textbook writes it (it printed
    + ∫ -u^4/2 du and + ∫ -1/2 du), in every format."""
    plain, out, latex = derived(invoke, function)
    step = next(s for s in out["steps"] if s["rule"] == "integral-sum")
    assert step["text"] == sum_step and f": {sum_step}" in plain
    assert "+ ∫ -" not in plain and "+ \\int -" not in latex and "- -" not in plain


def test_a_substitutions_negative_result_joins_the_sums_sign(invoke):
    """- ∫ 1/(2w^3) dw done is + 1/(4w^2), not - -1/(4w^2)."""
    plain, _, latex = derived(invoke, "x^3 (x^2+1)^(-3)")
    assert "∫ 1/(2w^3) dw = -1/(4w^2); = -1/(2(x^2 + 1)) + 1/(4w^2)\n" in plain
    assert "&= -\\frac{1}{2 \\left(x^{2} + 1\\right)} + \\frac{1}{4 w^{2}} &&" in latex


def test_a_power_reduction_whose_minus_the_sum_took_out_is_of_the_positive_power(invoke):
    plain, _, _ = derived(invoke, "3sin(x)^2 cos(x)^2")
    assert ("4. a trig identity (cos(2x)^2 = (1 + cos(4x))/2 = (1/2)·(cos(4x) + 1)): "
            "∫ cos(2x)^2 dx = (1/2)·∫ (cos(4x) + 1) dx; = (3/4)·(x - (1/2)·∫ (cos(4x) + 1)"
            " dx)\n") in plain


def test_a_minus_held_as_a_python_int_is_taken_out_too(invoke):
    """A rule our own code builds may hold its constant as an int (-1): the sum still
    has worked steps (it fell back to sympy's antiderivative, with no steps)."""
    from sympy.integrals.manualintegrate import ConstantTimesRule, ReciprocalRule

    from gradcalc.homework.solutions.integrator import sign_taken_out

    inner = ReciprocalRule(1 / (x + 1), x, x + 1)
    rule, integrand = sign_taken_out(ConstantTimesRule(-1 / (x + 1), x, -1, 1 / (x + 1),
                                                       inner))
    assert (rule, integrand) == (inner, 1 / (x + 1))
    _, out, _ = derived(invoke, "e^x/((e^x - 1)(e^x + 2))")
    step = next(s for s in out["steps"] if s["rule"] == "integral-sum")
    assert step["text"].endswith("= ∫ 1/(w - 3/2) dw - ∫ 1/(w + 3/2) dw")
