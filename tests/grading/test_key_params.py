"""A key's params, term and hints columns: the term's seed written once, an `at` cell with
parameters read per variant, hints on a problem without parameters, and every error
naming the key's line before any answer is judged."""

from __future__ import annotations

import numpy as np
import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading.key import OPTIONAL, REQUIRED, key_from
from gradcalc.grading.variants import variant_of
from gradcalc.homework.domain import inside, read_domain
from gradcalc.ingest.headers import parse_table


def key(text: str):
    return key_from(parse_table(text.encode(), "key.csv", REQUIRED, OPTIONAL, "key"))


def test_the_terms_seed_is_written_once_or_per_problem():
    k = key("problem,function,params,term\n1,a x,a = 1..9,fall\n2,a x,a = 1..9,\n"
            "3,a x,a = 1..9,spring\n")
    assert [p.template.term for p in k.problems.values()] == ["fall", "fall", "spring"]


def test_a_problem_without_parameters_is_as_before():
    k = key("problem,function,params,hints\n1,x^3,,3x -> the power rule keeps x^2\n")
    p = k.problems["1"]
    assert p.template is None and p.variants == 1 and p.hints[0].on == "3x"


def test_an_at_cell_with_parameters_is_read_per_variant():
    p = key("problem,function,params,at\n1,x^a,a = 2..4; c = 1..3,x=c\n").problems["1"]
    assert p.kind.at == () and dict(p.template.cells)["at"] == "x=c"
    values = {dict(variant_of(p.template, s).values)["c"]: variant_of(p.template, s).kind.at
              for s in ("ana", "ben", "cy", "dee", "eve", "fay")}
    assert all(at == (("x", float(c)),) for c, at in values.items())


def test_an_order_cell_with_a_parameter_is_read_per_variant():
    p = key("problem,function,params,order\n1,x^n,n = 2..4,n\n").problems["1"]
    orders = {dict(variant_of(p.template, s).values)["n"]: variant_of(p.template, s)
              for s in ("ana", "ben", "cy", "dee", "eve", "fay")}
    assert len(orders) > 1
    assert all(v.kind.order == n and v.function == f"x^{n}" for n, v in orders.items())


def test_a_domain_cell_with_parameters_is_read_per_variant():
    p = key("problem,function,params,kind,domain\n1,a/x,a = 2..5,antiderivative,"
            "x in [a; 2a]\n").problems["1"]
    for s in ("ana", "ben", "cy"):
        v = variant_of(p.template, s)
        a = float(dict(v.values)["a"])
        bounds = read_domain(v.kind.domain)  # read, with the parameter's value in it
        x = np.array([a - 0.5, a + 0.5, 2 * a - 0.5, 2 * a + 0.5])
        assert inside({"x": x}, bounds).tolist() == [False, True, True, False]


def test_every_drawable_value_of_a_kind_columns_parameter_is_checked_first():
    """33 combinations, 24 variants tried: n = 11 (no order) among those not tried is
    still refused before any answer is judged."""
    with pytest.raises(GradcalcError) as caught:
        key("problem,function,params,order\n1,x^12 + m*x,n = 1..11; m = 1..3,n\n")
    assert "line 2 (with n = 11), column order: '11'" in caught.value.message


@pytest.mark.parametrize("text, message", [
    ("problem,function,params,kind\n1,x^2 + y^2 = r^2,y = 1..3,implicit\n",
     "line 2, column params: 'y' is a variable of the problem"),
    ("problem,function,params,wrt\n1,a x,x = 1..3,x\n",
     "'x' is a variable of the problem (its wrt)"),
    ("problem,function,params,hints\n1,a x,a = 1..3,x ->\n",
     "line 2, column hints, 'x ->': write each hint as ANSWER -> MESSAGE"),
    ("problem,function,params,hints\n1,a x,a = 1..3,sin a x -> no\n",
     "line 2: with a = 1 the hint 'sin a x' does not read as it does"),
    ("problem,function,params\n1,sin(,a = 1..3\n", "line 2, column function: "),
    ("problem,function,params,kind,order\n1,a x,a = 1..3,,two\n", "column order"),
])
def test_errors_name_the_keys_line(text, message):
    with pytest.raises(GradcalcError) as exc:
        key(text)
    assert message in exc.value.message and "key.csv, line 2" in exc.value.message


def test_a_drawn_variable_is_the_wrt_and_names_the_at_cell():
    """`wrt` and `at` name the variable's parameter; each variant judges its own name."""
    k = key("problem,function,wrt,params,at\n1,v^a,v,\"v = variable(t, u); a = 2..3\",v=1\n")
    template = k.problems["1"].template
    variants = {variant_of(template, s).wrt: variant_of(template, s)
                for s in ("ana", "ben", "cy", "dee")}
    assert set(variants) == {"t", "u"}
    assert [dict(v.kind.at) for v in variants.values()] == [{n: 1.0} for n in variants]


def test_a_tangent_cell_with_a_parameter_is_read_per_variant():
    """The tangent line at a drawn point (WeBWorK's x0 = random(1, 2))."""
    p = key("problem,function,params,tangent\n1,x^3,x0 = 1..2,x=x0\n").problems["1"]
    points = {variant_of(p.template, s).kind.tangent for s in ("ana", "ben", "cy", "dee")}
    assert points == {(("x", 1.0),), (("x", 2.0),)}
