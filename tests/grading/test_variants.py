"""A problem's variant: the values put into the key's text as exact numbers (reading as the
template does, node for node), a template whose names run into its parameters refused,
a function undefined everywhere found before anything is judged, the template's steps
found again in each variant, and a receipt's variant drawn again."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.grading import params, variants
from gradcalc.grading.variants import Template
from gradcalc.homework.kinds.registry import PLAIN, Kind

WHERE = "key.csv, line 3"


def template(function: str, spec: str, kind: Kind = PLAIN) -> Template:
    return Template("1", function, params.read(spec, WHERE), "2027", WHERE, kind)


def put(function: str, kind: Kind = PLAIN, **values: Fraction | int | str) -> str:
    drawn = tuple((n, Fraction(v)) for n, v in values.items())
    spec = "; ".join(f"{n} = {params.text_of(v)}" for n, v in drawn)
    return variants.put_in(template(function, spec, kind), drawn)


@pytest.mark.parametrize("function, values, text", [
    ("a*sin(b*x)", {"a": 3, "b": 2}, "3*sin(2*x)"),
    ("a sin(b x)", {"a": 3, "b": 2}, "3 sin(2 x)"),
    ("2a x^n", {"a": 3, "n": 2}, "2·3 x^n".replace("n", "2")),
    ("x^2 + a x + c", {"a": -3, "c": "1/2"}, "x^2 + (-3) x + (1/2)"),
    ("x^(1/a)", {"a": 2}, "x^(1/2)"),
    ("e^(a x)", {"a": -1}, "e^((-1) x)"),
    ("(x + 1)a", {"a": 3}, "(x + 1)·3"),
    ("\\frac{a}{x}", {"a": 3}, "\\frac{3}{x}"),
    ("a2 x + a", {"a": 5, "a2": 7}, "7 x + 5"),
    ("x a", {"a": 4}, "x ·4"),
    ("f(x) = a x^2", {"a": 3}, "f(x) = 3 x^2"),
    ("[a x, b y]", {"a": 2, "b": 3}, "[2 x, 3 y]"),
])
def test_values_go_into_the_text_as_exact_numbers(function, values, text):
    assert put(function, **values) == text


def test_an_equation_gets_its_values_on_both_sides():
    assert put("x^2 + a y^2 = r^2", Kind(implicit="y"), a=2, r=5) == "x^2 + 2 y^2 = 5^2"


def test_a_form_that_reads_otherwise_falls_back_to_parentheses():
    # `sin a` is sin(a): `sin 3` too, but after a name the tidy form would write `sin ·3`
    assert put("sin a + x", a=3) == "sin (3) + x"


def test_a_template_that_no_form_reads_alike_is_an_error_naming_the_line():
    with pytest.raises(GradcalcError, match="key.csv, line 3: with a = 2 the function "
                       "'sin a x' does not read as it does with the parameters' names"):
        put("sin a x", a=2)


def test_a_parameter_written_against_a_name_is_refused():
    with pytest.raises(GradcalcError, match=r"column function: 'ax' is a and x written "
                       r"together \(a is a parameter\): write a\*x"):
        variants.check_template(template("ax + 1", "a = 2..3"))


def test_the_at_cell_takes_the_values_too():
    assert variants.at_text("x=a; y = 2a", (("a", Fraction(3)),)) == "x=(3); y = 2*(3)"
    assert variants.names_in("x=a; y = \\frac{b}{2}") == {"x", "a", "y", "b"}


@pytest.mark.parametrize("function, spec, kind, why", [
    ("log(a - 5) + x", "a = 2..9", PLAIN, "is undefined everywhere (no point where it is "
     "a real number)"),
    ("sqrt(x - a) + sqrt(a - 1 - x)", "a = 1..3", PLAIN, "is undefined everywhere"),
    ("log(a - x)", "a = 1..3", Kind(at=(("x", 2.0),)), "has no real value at x = 2"),
    ("x^2 + y^2 = r", "r = -3..3 except 0", Kind(implicit="y"),
     "has no real point (its two sides never meet)"),
])
def test_a_function_undefined_everywhere_is_found_when_the_key_is_read(function, spec,
                                                                        kind, why):
    with pytest.raises(GradcalcError) as exc:
        variants.check_template(template(function, spec, kind))
    assert exc.value.message.startswith("key.csv, line 3: with ")
    assert why in exc.value.message and "change the parameters' ranges" in exc.value.message


@pytest.mark.parametrize("function, kind", [
    ("log(a - x)", PLAIN), ("log(a - x)", Kind(at=(("x", 0.5),))),
    ("x^2 + y^2 = r^2", Kind(implicit="y")), ("x y = r", Kind(implicit="y")),
    ("sum((W@x - a)^2)", Kind(shape=(("W", (2, 2)), ("x", (2,))))),
])
def test_functions_defined_somewhere_pass(function, kind):
    count, tried = variants.check_template(template(function, "a = 1..3; r = 1..2", kind))
    assert count == 6 and len(tried) == 6


def test_undefined_tensors_are_found_too():
    kind = Kind(shape=(("W", (2, 2)), ("x", (2,))))
    assert variants.undefined("sum(log(-W^2 - 1))", kind) is not None
    assert variants.undefined("sum(log(W^2 + 1))", kind) is None


def test_at_most_the_checked_number_of_variants_is_tried_spread_over_them():
    count, tried = variants.check_template(template("a x + b", "a = 1..20; b = 1..20"))
    assert count == 400 and len(tried) == variants.CHECKED
    assert len({v for v in tried}) == variants.CHECKED and tried[0] != tried[1]


def test_a_students_variant_and_its_json():
    t = template("a*sin(b*x)", "a = 2..9; b = 2..5 except 3")
    v = variants.variant_of(t, "ana")
    a, b = dict(v.values)["a"], dict(v.values)["b"]
    assert v.function == f"{a}*sin({b}*x)" and v.template == "a*sin(b*x)"
    assert v.as_json() == {"problem": "1", "student": "ana", "term": "2027",
                           "params": {"a": int(a), "b": int(b)}, "template": "a*sin(b*x)",
                           "spec": "a = 2..9; b = 2..5 except 3"}


def test_a_parametrised_at_cell_is_read_per_variant():
    cells = (("kind", ""), ("at", "x=b"))
    t = Template("1", "x^a", params.read("a = 2..3; b = 1..4", WHERE), "", WHERE, PLAIN,
                 cells)
    for student in ("ana", "ben", "cy"):
        v = variants.variant_of(t, student)
        assert v.kind.at == (("x", float(dict(v.values)["b"])),)


def test_the_templates_steps_in_a_variant():
    steps = variants.template_steps("a*sin(b*x)", "3*sin(2*x)")
    assert steps["sin(2x)"] == "sin(b·x)" and steps["3sin(2x)"] == "a·sin(b·x)"
    assert variants.template_steps("x^2 + y^2 = r^2", "x^2 + y^2 = 4^2", True)["4^2"] == \
        "r^2"
    assert variants.template_steps("a x", "not read (") == {}


def test_a_receipts_variant_is_drawn_again_and_an_edit_is_found():
    t = template("a*sin(b*x)", "a = 2..9; b = 2..5 except 3")
    v = variants.variant_of(t, "ana")
    saved = v.as_json()
    assert variants.redrawn(saved, v.function, PLAIN) == []
    edited = {**saved, "params": {**saved["params"], "a": 99}}
    assert variants.redrawn(edited, v.function, PLAIN)[0].startswith("variant: recorded a = 99")
    assert "variant's function: recorded '1*sin(1*x)'" in variants.redrawn(
        saved, "1*sin(1*x)", PLAIN)[0]
    assert variants.redrawn({"spec": "a ="}, "x", PLAIN)[0].startswith(
        "variant: cannot be drawn again")


@pytest.mark.parametrize("cell, a, text", [
    ("x > a", 4, "x > 4"),
    ("x in [a, 2a]", 4, "x in [4, 8]"),
    ("x in [a; 2a]", Fraction(5, 2), "x in [5/2; 5]"),
    ("x > -a", -3, "x > 3"),
    ("-1 < x < a^2", -3, "-1 < x < 9"),
    ("a < x < a + 1 and y > 0", 4, "4 < x < 5 and y > 0"),
    ("x > a*pi", 4, "x > (4)*pi"),  # not parameters alone: the value put in
])
def test_a_domain_cells_bounds_are_worked_out_exactly(cell, a, text):
    assert variants.domain_text(cell, (("a", Fraction(a)),)) == text


def test_the_columns_a_parameter_may_be_drawn_in_are_the_settings_with_a_drawn_form() -> None:
    from gradcalc.homework.kinds.registry import SETTINGS

    assert set(variants.PARAMETRISED) == {s.name for s in SETTINGS if s.drawn} == {
        "order", "at", "domain", "tangent"}
    assert variants.PARAMETRISED["at"] is variants.PARAMETRISED["tangent"] is variants.at_text


def drawn_template(function: str, spec: str, wrt: str = "") -> Template:
    return Template("1", function, params.read(spec, WHERE, frozenset({wrt})), "2027",
                    WHERE, wrt=wrt)


@pytest.mark.parametrize("function, formula, text", [
    ("a g", "sin(x)^2", "3 ·sin(x)^2"),
    ("g + 1", "sin(x)^2", "sin(x)^2 + 1"),
    ("a*g", "x + 1", "3*(x + 1)"),
    ("g^2", "x + 1", "(x + 1)^2"),
    ("e^g", "-x", "e^-x"),
])
def test_a_drawn_formula_goes_into_the_function_as_it_reads(function, formula, text):
    spec = drawn_template(function, f"a = 3; g = formula({formula})")
    assert variants.put_in(spec, (("a", Fraction(3)), ("g", params.Formula(formula)))) == text


def test_a_drawn_variable_names_the_function_its_wrt_and_its_formula():
    spec = drawn_template("e^(a v) + g", "v = variable(t, u); a = 2..3; "
                          "g = formula(sin(v)^2, cos(v)^2)", "v")
    seen = {}
    for student in ("ana", "ben", "cy", "dee", "eve", "fay"):
        variant = variants.variant_of(spec, student)
        v, a, g = (dict(variant.values)[n] for n in "vag")
        assert variant.function == f"e^({a} {v.text}) + {g.text}" and variant.wrt == v.text
        assert g.text in (f"sin({v.text})^2", f"cos({v.text})^2")
        assert variant.as_json()["params"] == {"v": v.text, "a": int(a), "g": g.text}
        seen[v.text] = variant
    assert set(seen) == {"t", "u"}


def test_a_receipts_formula_is_drawn_again_and_an_edit_is_found():
    spec = drawn_template("a g", "a = 2..5; g = formula(sin(x)^2, cos(x)^2)")
    variant = variants.variant_of(spec, "ana")
    saved = variant.as_json()
    assert variants.redrawn(saved, variant.function, PLAIN) == []
    other = "cos(x)^2" if saved["params"]["g"] == "sin(x)^2" else "sin(x)^2"
    edited = {**saved, "params": {**saved["params"], "g": other}}
    assert variants.redrawn(edited, variant.function, PLAIN) == [
        f"variant: recorded a = {saved['params']['a']}, g = {other}, drawn {variant.shown}"]


def test_a_drawn_variables_name_used_otherwise_by_the_function_is_refused():
    spec = drawn_template("v t", "v = variable(t, u)")
    with pytest.raises(GradcalcError, match="key.csv, line 3, column params, 'v = "
                       r"variable\(t, u\)': 't' is a name the function uses already"):
        variants.check_template(spec)
