"""Every derivative rule, named at the step where it acts: for each, a function whose
worked solution uses it, the rule found on the sub-expression it acts on (the product rule
at the top of x^2 sin(3x), the chain rule inside it)."""

from __future__ import annotations

import pytest

from gradcalc.homework.judge import Settings
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.solutions.derivative_rules import derivatives


def solve(function: str, **kind: object):
    from gradcalc.homework.dispatch import solve as dispatch_solve

    wrt = kind.pop("wrt", None)
    return dispatch_solve(function, wrt, Kind.read(**kind), Settings())


def rules_at(solution) -> list[tuple[str, str, str]]:
    return [(s.rule, s.at, s.also) for _, _, s in solution.steps]


def test_the_product_rule_at_the_top_and_the_chain_rule_inside():
    s = solve("x^2 sin(3x)")
    assert rules_at(s) == [("product", "x^2·sin(3x)", ""), ("power", "x^2", ""),
                           ("chain", "sin(3x)", "trig"), ("constant-multiple", "3x", "")]
    assert s.answer == "f'(x) = 3x^2·cos(3x) + 2x·sin(3x)"
    assert s.merged == 0


CASES = [  # function, (rule, at) that must be among its steps, in this order
    ("x^3 - 2x + 5", [("sum", "x^3 - 2x + 5")]),
    ("7x^4", [("constant-multiple", "7x^4"), ("power", "x^4")]),
    ("x/(x + 1)", [("quotient", "x/(x + 1)"), ("sum", "x + 1")]),
    ("3/x", [("quotient", "3/x")]),
    ("(x^2 + 1)^5", [("chain", "(x^2 + 1)^5")]),
    ("e^x", [("exponential", "e^x")]),
    ("e^(2x)", [("chain", "e^(2x)")]),
    ("3^x", [("exponential", "3^x")]),
    ("ln(x)", [("logarithm", "ln(x)")]),
    ("log_2(x)", [("logarithm", "log_2(x)")]),
    ("ln(x^2 + 1)", [("chain", "ln(x^2 + 1)")]),
    ("cos(x)", [("trig", "cos(x)")]),
    ("tan(x^2)", [("chain", "tan(x^2)")]),
    ("asin(x)", [("inverse-trig", "asin(x)")]),
    ("atan(2x)", [("chain", "atan(2x)")]),
    ("sinh(x)", [("hyperbolic", "sinh(x)")]),
    ("tanh(2x)", [("chain", "tanh(2x)")]),
    ("|x|", [("abs", "|x|")]),
    ("|x^2 - 4|", [("chain", "|x^2 - 4|")]),
    ("x^x", [("log-differentiation", "x^x")]),
    ("sin(x)^x", [("log-differentiation", "sin(x)^x")]),
    ("√x", [("power", "√x")]),
    ("-x^2", [("constant-multiple", "-x^2")]),
    ("sigmoid(x)", [("function", "sigmoid(x)")]),
    ("7", [("constant", "7")]),
    ("x", [("variable", "x")]),
]


@pytest.mark.parametrize("function,expected", CASES, ids=[c[0] for c in CASES])
def test_each_rule_is_named_where_it_acts(function, expected):
    s = solve(function)
    found = [(rule, at) for rule, at, _ in rules_at(s)]
    positions = [found.index(e) for e in expected]
    assert positions == sorted(positions), found
    assert s.merged == 0 and s.steps


def test_the_chain_rule_names_its_outer_function_and_its_rule():
    (step,) = [s for _, _, s in solve("cos(x^2)").steps if s.rule == "chain"]
    assert step.also == "trig" and step.note.startswith("outer cos, inner x^2")
    (step,) = [s for _, _, s in solve("(3x + 1)^4").steps if s.rule == "chain"]
    assert step.also == "power" and "inner 3x + 1" in step.note


def test_abs_says_where_its_rule_holds():
    (step,) = [s for _, _, s in solve("|x|").steps]
    assert step.text == "d/dx(|x|) = sign(x)"
    assert "u ≠ 0" in step.note and "PyTorch" in step.note


def test_a_gradient_is_one_part_per_component_the_others_constant():
    s = solve("x^2 y + y^3")
    assert [p.title for p in s.parts] == ["∂f/∂x", "∂f/∂y"]
    assert s.parts[0].start == "∂/∂x(x^2·y + y^3)"
    assert ("constant-multiple", "x^2·y", "") in rules_at(s)
    assert s.answer == "∇f = [2x·y, x^2 + 3y^2]"


def test_higher_orders_and_mixed_partials_are_successive_differentiations():
    s = solve("x^3 sin(x)", order=2)
    assert [p.title for p in s.parts] == ["f'(x)", "f''(x)"]
    assert s.parts[1].start.startswith("d/dx(")
    s = solve("x^2 y^3", partial="x,y")
    assert [p.title for p in s.parts] == ["∂f/∂x", "f_xy"]
    assert s.answer == "f_xy = 6x·y^2"


def test_a_value_at_a_point_is_the_last_step():
    s = solve("x^2 sin(x)", at="x=2")
    last = s.steps[-1][2]
    assert last.rule == "evaluate" and last.text.startswith("f'(2) = 2^2·cos(2) + 2·2·sin(2)")
    assert s.answer == "f'(2) = 4cos(2) + 4sin(2) ≈ 1.9726"


@pytest.mark.parametrize("name", sorted(derivatives()))
def test_every_function_in_the_table_has_a_verified_step(name):
    function = {"logb": "log_3(x)", "acosh": "acosh(x + 2)", "atanh": "atanh(x/2)",
                "asin": "asin(x/2)", "acos": "acos(x/2)"}.get(name, f"{name}(x)")
    s = solve(function)
    assert s.steps and s.merged == 0, (name, s.note)


@pytest.mark.parametrize("function,answer", [
    ("ln(|x|)", "f'(x) = 1/x"),
    ("ln(|6 - x - 5x^2|)", "f'(x) = (10x + 1)/(5x^2 + x - 6)"),
])
def test_ln_of_an_absolute_value_is_u_prime_over_u_with_no_sign_on_the_way(function,
                                                                            answer):
    s = solve(function)
    assert s.answer == answer
    assert s.steps[0][2].rule in ("logarithm", "chain")
    assert not any("sign" in step.text for _, _, step in s.steps)


def test_the_absolute_value_alone_keeps_its_sign():
    assert solve("|x^2 - 4|").answer == "f'(x) = 2x·sign(x^2 - 4)"


def test_a_products_parts_are_not_named_after_its_variable(invoke):
    """d/du(e^u·(cos(u) − 2u)): `u = e^u` would be a false equation; the parts are p, q."""
    run = invoke("derive", "e^u (cos(u) - 2u)", "--plain")
    assert "product rule (p = e^u, q = cos(u) - 2u)" in run.out
    run = invoke("derive", "(3u + 2)/(3u - 2)", "--plain")
    assert "quotient rule (p = 3u + 2, q = 3u - 2)" in run.out
