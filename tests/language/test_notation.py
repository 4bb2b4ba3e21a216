"""gradcalc.language.notation: the notation students type reads as they mean it, what stays
ambiguous is an error that shows the reading, and no valid program changes meaning."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from language.test_parse import FUNCTIONS, sx

from gradcalc.errors import GradcalcError, ParseError
from gradcalc.language.names import split_name
from gradcalc.language.parse import parse, parse_with_traps
from gradcalc.language.values import parse_assignments

from conftest import examples


def same(student: str, plain: str) -> None:
    """`student` notation parses to the same IR as the plain `plain`."""
    assert sx(parse(student, functions=FUNCTIONS).body) == \
        sx(parse(plain, functions=FUNCTIONS, notation=False).body)


@pytest.mark.parametrize("student,plain", [
    ("2x", "2*x"),
    ("2 x", "2*x"),
    ("3(x+1)", "3*(x+1)"),
    ("(x+1)(x-1)", "(x+1)*(x-1)"),
    ("x sin(x)", "x*sin(x)"),
    ("2pi", "2*pi"),
    ("2π x", "2*pi*x"),
    ("x y z", "x*y*z"),
    ("sin(x)cos(x)", "sin(x)*cos(x)"),
    ("2sin(3x)", "2*sin(3*x)"),
    ("10x (x^2 + 1)^4", "10*x*(x**2 + 1)**4"),
    ("2x(x+1)", "2*x*(x+1)"),
    ("1.5x^2", "1.5*x**2"),
    ("x^2 sin(x)", "x**2*sin(x)"),
    ("x²y", "x**2*y"),
    ("3x²", "3*x**2"),
    ("e^(2x)", "e**(2*x)"),
    ("e^-x", "e**-x"),
    ("ln(x)", "log(x)"),
    ("ln(x^2 + 1)", "log(x**2 + 1)"),
    ("√x", "sqrt(x)"),
    ("√(x+1)", "sqrt(x+1)"),
    ("2√x", "2*sqrt(x)"),
    ("√2 x", "sqrt(2)*x"),
    ("√sin(x)", "sqrt(sin(x))"),
    ("√x[0]", "sqrt(x[0])"),
    ("sin²(x)", "(sin(x)**2)"),
    ("sin^2(x) + cos^2(x)", "(sin(x)**2) + (cos(x)**2)"),
    ("2sin²(x)", "2*(sin(x)**2)"),
    ("-cos³(2x)", "-(cos(2*x)**3)"),
    ("θ^2 + 2θ", "θ**2 + 2*θ"),
    ("y = α x + β", "y = α*x + β"),
    ("f(x) = x^2", "f = x**2"),
    ("f(x, y) = x y", "f = x*y"),
    ("a = 1; g(t) = a t", "a = 1; g = a*t"),
    ("y = 2x; while norm(y) < 10: y = 2y", "y = 2*x; while norm(y) < 10: y = 2*y"),
    # functions without parentheses, as calculus books write them (formerly refused)
    ("sin x", "sin(x)"),
    ("y = 2 cos 3", "y = 2*cos(3)"),
    ("ln x", "log(x)"),
    ("sin^-1(x)", "asin(x)"),
    ("sin^2 x", "sin(x)**2"),
])
def test_student_notation_reads_as_meant(student, plain):
    same(student, plain)


def test_a_definition_declares_its_inputs_in_order():
    assert parse("f(x, y) = x^2 y", functions=FUNCTIONS).inputs == ("x", "y")
    assert parse("y = x", functions=FUNCTIONS).inputs == ()


@pytest.mark.parametrize("text", [
    "x[0]", "x[0]*2", "A[1, 0]", "sin(x)", "y = sin(x) + cos(x)", "maximum(x, 1)",
    "y = x; while norm(y) < 1000: y = y*2", "for i in range(3): y = x*i",
    "y = if_ + else_",  # names that start like keywords
    "y = 2*x**2", "y = x @ x", "y = -x**2", "y = 1e5*x", "y = x[1:3]",
    "if x > 0 and y < 1: z = x", "ln = 2; y = ln*x", "e = 3; y = e*x",
])
def test_valid_programs_keep_their_meaning(text):
    plain = parse(text, functions=FUNCTIONS, notation=False)
    student = parse(text, functions=FUNCTIONS)
    assert student == plain


@pytest.mark.parametrize("text,fragment", [
    ("sin cos x", "write sin(cos) rather than sin cos"),
    ("sin √x", "write sin(√) rather than sin √"),
    ("e^2x", "e^2x is ambiguous: write e^2*x or e^(2*x)"),
    ("2^3x", "2^3x is ambiguous: write 2^3*x or 2^(3*x)"),
    ("√2(x+1)", "√2(x+1) is ambiguous: write sqrt(2)*(x+1) or sqrt(2*(x+1))"),
    ("√2x", "√2x is ambiguous: write sqrt(2)*x or sqrt(2*x)"),
    ("√x^2", "is ambiguous: write sqrt(x)^"),
    ("√", "√ needs what it takes the root of"),
    ("log^-1(x)", "log^-1 is ambiguous: write log(x)^-1 or 1/log(x)"),
    ("sin^-2 x", "sin^-2 x is ambiguous: write sin(x)^-2"),
    ("|a|b|c|", "can be read two ways: abs(a)*b*abs(c) or abs(a*abs(b)*c)"),
    ("|x", "'|' at line 1, column 1 has no partner"),
    ("x (0)", "'x' at line 1, column 1 is not a function"),
    ("x(x+1)", "for a product, write x*(...)"),
    ("y = ο", "U+03BF"),
    ("y = ν + 1", "looks like Latin 'v': spell the name, e.g. nu"),
    ("Α = 1", "GREEK CAPITAL LETTER ALPHA"),
    ("y = х", "CYRILLIC"),
])
def test_what_stays_ambiguous_is_an_error_that_shows_the_reading(text, fragment):
    with pytest.raises(ParseError) as info:
        parse(text, functions=FUNCTIONS)
    assert fragment in info.value.message
    assert re.search(r"line \d+, column \d+", info.value.message)


def test_error_positions_point_into_the_users_text():
    with pytest.raises(ParseError, match="line 2, column 11"):
        parse("y = 2x\nz = 3 + e^2x", functions=FUNCTIONS)
    with pytest.raises(ParseError, match=r"syntax error at line 1, column 10"):
        parse("y = 2x + ", functions=FUNCTIONS)


def test_greek_names_run(tmp_path):
    from gradcalc.backends.numeric import run_numeric

    prog = parse("y = sin(θ)^2 + λ θ")
    out = run_numeric(prog, {"θ": 0.5, "λ": 2.0}, of="y")
    assert float(out) == pytest.approx(math.sin(0.5) ** 2 + 1.0)


def test_e_is_eulers_number_unless_it_has_a_value():
    from gradcalc.backends.numeric import run_numeric

    prog = parse("y = e^x")
    assert float(run_numeric(prog, {"x": 1.0}, of="y")) == pytest.approx(math.e)
    assert float(run_numeric(prog, {"x": 2.0, "e": 3.0}, of="y")) == 9.0


def test_an_unknown_name_made_of_inputs_suggests_the_product():
    from gradcalc.backends.numeric import run_numeric

    with pytest.raises(GradcalcError, match=r"did you mean x\*y\?"):
        run_numeric(parse("y = xy + 1"), {"x": 1.0, "y": 2.0}, of="y")


@pytest.mark.parametrize("name,known,expected", [
    ("xy", ["x", "y"], ["x", "y"]),
    ("xyz", ["x", "y", "z"], ["x", "y", "z"]),
    ("ab", ["a", "ab"], None),
    ("xθ", ["x", "θ"], ["x", "θ"]),
    ("x1y", ["x1", "y"], ["x1", "y"]),
    ("x", ["x"], None),
    ("xq", ["x", "y"], None),
])
def test_split_name(name, known, expected):
    assert split_name(name, known) == expected


@pytest.mark.parametrize("text,expected", [
    ("x=2pi", {"x": 2 * math.pi}),
    ("x=√2, θ=π/4", {"x": math.sqrt(2), "θ": math.pi / 4}),
    ("x=e^2", {"x": math.e**2}),
    ("e=2", {"e": 2.0}),
    ("x=3(1+1)", {"x": 6.0}),
    ("x=[2pi, 1]", {"x": [2 * math.pi, 1.0]}),
])
def test_values_read_student_notation(text, expected):
    got = parse_assignments(text)
    assert list(got) == list(expected)
    for name, value in expected.items():
        assert got[name].tolist() == pytest.approx(value)


# --------------------------------------------------------------------------- meaning kept

PLAIN_ALPHABET = st.sampled_from(
    ["x", "y", "ab", "2", "1.5", "1e3", "(", ")", "[", "]", ",", ":", ";", "=", "+", "-",
     "*", "/", "**", "@", "<", " ", "\n", "    ", "sin(", "maximum(", "norm(", "pi", "E",
     "e", "if ", "else", "while ", "for i in range(2)", " and ", "not "])


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(PLAIN_ALPHABET, max_size=30).map("".join))
@example("xe**x")  # x·e^x as homework, but a program's input xe when it is given a value
def test_every_valid_plain_program_means_the_same_with_notation(text):
    """The notation pass only reads token sequences the plain language refuses, once the
    caller says which names it gives values (as grad's --at does): `xe^x` and `log_2 x`
    are read as homework writes them only when xe and log_2 are not given."""
    try:
        plain = parse(text, functions=FUNCTIONS, notation=False)
    except GradcalcError:
        return
    assert parse(text, functions=FUNCTIONS, given=plain.names_used()) == plain


def test_a_name_given_a_value_is_never_split():
    """`grad "y = xe**x" --at "xe=2, x=1"` differentiates xe^x, not x·e^x."""
    assert parse("y = xe**x", given=("xe", "x")) == parse("y = xe**x", notation=False)
    assert "xe" not in parse("y = xe**x").names_used()  # homework's x·e^x otherwise


def test_a_bare_exponent_ends_at_a_space_before_parentheses_too():
    same("x^x (ln(x) + 1)", "x**x*(log(x) + 1)")
    # and a bracket right after a bare exponent is a product too, as WeBWorK reads it
    same("e^x(x+1)", "e**x*(x+1)")


def test_an_ambiguity_message_stays_on_one_line():
    """A line break inside the quoted reading is escaped: every error is one line."""
    with pytest.raises(ParseError) as info:
        parse("√2(x\n+1)")
    assert "\n" not in info.value.message and "is ambiguous" in info.value.message
    with pytest.raises(ParseError) as info:
        parse("(|a|b|c\n|)")
    assert "\n" not in info.value.message and "read two ways" in info.value.message


# --------------------------------------------------------------------------- the long tail


def _read(text: str, variables: tuple[str, ...] = ()) -> str:
    from gradcalc.language.unparse import unparse

    return unparse(parse(text, functions=FUNCTIONS, variables=variables).body[-1].value)


@pytest.mark.parametrize("typed,variables,meant", [
    ("r(2s^2 + 3t^3)", ("r", "s", "t"), "r * (2 * s**2 + 3 * t**3)"),
    ("y(3 - x ln y)", ("x", "y"), "y * (3 - x * log(y))"),
    ("x（x+1）", ("x",), "x * (x + 1)"),  # fullwidth brackets are NFKC's
    ("x 5^(x-1)", (), "x * 5**(x - 1)"),  # a number after a space
    ("n sin^(n-1)(x) cos(x)", (), "n * sin(x)**(n - 1) * cos(x)"),
    ("sin^n(x)", (), "sin(x)**n"),
    ("2[z-(x+1)]", (), "2 * (z - (x + 1))"),
    ("ln abs(x)", (), "log(abs(x))"),
    ("x•y", (), "x * y"),
    ("xˆ2", (), "x**2"),
    ("x ln|x|", (), "x * log(abs(x))"),
    ("ln|ln|x||", (), "log(abs(log(abs(x))))"),
    ("x^.5", (), "x**0.5"),
    ("log_2.5x", (), "log(x, 2.5)"),
])
def test_the_long_tail_of_student_notation_reads(typed, variables, meant):
    assert _read(typed, variables) == meant


def test_a_name_before_a_bracket_is_a_product_only_for_a_named_variable():
    with pytest.raises(ParseError):
        parse("x(x+1)", functions=FUNCTIONS)  # no variables named: a call of no function
    with pytest.raises(ParseError):
        parse("open(1)", functions=FUNCTIONS, variables=("open",))  # one letter only
    assert _read("f(x) = x(x+1)", ("f", "x")) == "x * (x + 1)"  # `f(x) =` still defines


@pytest.mark.parametrize("typed,kind,read,other", [
    ("y / 2 x", "division then product", "(y/2)*x", "y/(2*x)"),
    ("2 x / 5 y", "division then product", "(2 x/5)*y", "2 x/(5*y)"),
    ("x^2/2x", "division then product", "(x**2/2)*x", "x**2/(2*x)"),
    ("log x", "log base", "log(x)", "log10(x)"),
    ("log(x + 1)", "log base", "log(x + 1)", "log10(x + 1)"),
    ("log_2.5x", "log base", "log(x, 2.5)", "log(.5*x, 2)"),
    ("r(s + 1)", "variable then parenthesis", "r*(s + 1)", None),
])
def test_a_reading_with_another_is_recorded_with_it(typed, kind, read, other):
    _, traps = parse_with_traps(typed, functions=FUNCTIONS, variables=("r", "s"))
    found = [t for t in traps if t.kind == kind]
    assert [(t.read, t.other) for t in found] == [(read, other)]
    assert found[0].start == 0 and found[0].end == len(typed)


def test_no_log_base_trap_for_ln_or_a_log_with_its_base():
    for text in ("ln(x)", "ln x", "log(x, 2)", "log_2 x"):
        _, traps = parse_with_traps(text, functions=FUNCTIONS)
        assert not [t for t in traps if t.other and t.other.startswith("log10")], text
