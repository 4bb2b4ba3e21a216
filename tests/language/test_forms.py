"""Problem-set notation read everywhere math is read (gradcalc/language/forms.py, latex.py,
bars.py, applying.py): in program arguments, `--at` values, `check` answers and the cells
of `check --file`; the readings another reader could take are returned as traps; a random
program printed back (unparse) parses to the same IR, and so do student spellings of it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from language.test_parse import sx

from gradcalc.errors import GradcalcError, LimitError, ParseError
from gradcalc.language.parse import parse, parse_with_traps
from gradcalc.language.unparse import unparse
from gradcalc.language.values import parse_assignments

from conftest import examples


def ir(text: str):
    return sx(parse(text).body)


def plain(text: str):
    return sx(parse(text, notation=False).body)


#: (typed, the plain language it reads as, a point, d/dx there)
FORMS = [
    (" -3x^4", "-3*x**4", 1.0, -12.0),
    ("+x^2 ", "+x**2", 1.5, 3.0),
    ("|x|", "abs(x)", -2.0, -1.0),
    ("ln|x|", "log(abs(x))", -2.0, -0.5),
    ("|x|^2", "abs(x)**2", -1.5, -3.0),
    ("||x| - 1|", "abs(abs(x) - 1)", 0.5, -1.0),
    ("|x||x|", "abs(x)*abs(x)", 2.0, 4.0),
    ("x^{2}", "x**(2)", 3.0, 6.0),
    ("e^{2x}", "e**(2*x)", 0.0, 2.0),
    ("log_2(x)", "log(x, 2)", 1.0, 1 / math.log(2)),
    ("log_3 x", "log(x, 3)", 1.0, 1 / math.log(3)),
    ("log_{10}(x)", "log(x, 10)", 1.0, 1 / math.log(10)),
    ("log(x, 10)", "logb(x, 10)", 1.0, 1 / math.log(10)),
    ("sin x", "sin(x)", 0.0, 1.0),
    ("ln x", "log(x)", 2.0, 0.5),
    ("sin 2x", "sin(2*x)", 0.0, 2.0),
    ("sin x^2", "sin(x**2)", 1.0, 2 * math.cos(1.0)),
    ("cos^2 x", "cos(x)**2", 1.0, -math.sin(2.0)),
    ("tan^2 x", "tan(x)**2", 0.5, 2 * math.tan(0.5) / math.cos(0.5) ** 2),
    ("sin^-1 x", "asin(x)", 0.0, 1.0),
    ("sin^{-1}(x)", "asin(x)", 0.0, 1.0),
    ("sin^(-1)(x)", "asin(x)", 0.0, 1.0),
    ("xe^x", "x*e**x", 0.0, 1.0),
    ("xcos(x)", "x*cos(x)", 0.0, 1.0),
    ("2xe^(2x)", "2*x*e**(2*x)", 0.0, 2.0),
    ("x^x(1+ln x)", "x**x*(1+log(x))", 1.0, 2.0),
    ("\\frac{1}{x}", "(1)/(x)", 2.0, -0.25),
    ("\\sqrt{x}", "sqrt(x)", 4.0, 0.25),
    ("\\sqrt[3]{x}", "cbrt(x)", 8.0, 1 / 12),
    ("\\sqrt[4]{x}", "((x)**(1/(4)))", 16.0, 1 / 32),
    ("\\sin x \\cdot \\cos x", "sin(x)*cos(x)", 0.0, 1.0),
    ("\\ln\\left|x\\right|", "log(abs(x))", -4.0, -0.25),
    ("\\left(x+1\\right)^{2} \\times 3", "(x+1)**(2)*3", 0.0, 6.0),
    ("e^{\\pi x}", "e**(pi*x)", 0.0, math.pi),
    ("\\exp(x) + \\arcsin x", "exp(x) + arcsin(x)", 0.0, 2.0),
    ("\\operatorname{sech}(x)", "sech(x)", 0.0, 0.0),
    ("sech^2(x)", "sech(x)**2", 0.0, 0.0),
    ("arccot(x) + arcsec(x + 2)", "arccot(x) + arcsec(x + 2)", 0.0, -1.0 + 1 / (2 * math.sqrt(3))),
    # a function's name or e^ right after a bare exponent starts a new factor
    ("x^2e^x", "x**2*e**x", 1.0, 3 * math.e),
    ("x^3ln x", "x**3*log(x)", 1.0, 1.0),
    ("e^(x^3ln x)", "e**(x**3*log(x))", 1.0, 1.0),
    ("x^2sin(x)", "x**2*sin(x)", 1.0, 2 * math.sin(1.0) + math.cos(1.0)),
    ("x^2pi", "x**2*pi", 1.0, 2 * math.pi),  # any name after a power of a variable
    # a bracket right after a bare argument or a named radicand is a factor
    ("cos x(x + cos x)", "cos(x)*(x + cos(x))", 0.0, 1.0),
    ("sin x (x+1)", "sin(x)*(x+1)", 0.0, 1.0),
    ("√x(x+1)", "sqrt(x)*(x+1)", 1.0, 2.0),
    # a number after a bracket is a product
    ("(ln 2) 2^x", "log(2)*2**x", 0.0, math.log(2) ** 2),
    ("((ln 3)3^x)", "(log(3)*3**x)", 0.0, math.log(3) ** 2),
    # the inverse reciprocal hyperbolic functions
    ("sech^(-1)(x)", "asech(x)", 0.5, -1 / (0.5 * math.sqrt(0.75))),
    ("csch^-1 x", "acsch(x)", 1.0, -1 / math.sqrt(2)),
    ("coth^{-1}(x)", "acoth(x)", 2.0, -1 / 3),
]


@pytest.mark.parametrize("typed,meant,point,slope", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_reads_as_the_plain_language(typed, meant, point, slope):
    assert ir(typed) == ir(meant)


@pytest.mark.parametrize("typed,meant,point,slope", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_as_a_program_argument(invoke, typed, meant, point, slope):
    r = invoke("grad", typed, "--at", f"x={point!r}", "--plain")
    assert r.code == 0, r.err
    assert float(r.out) == pytest.approx(slope, rel=1e-9, abs=1e-12)


def _expected(invoke, meant: str) -> str:
    """The derivative of `meant` as `check` prints it (the notation students type)."""
    r = invoke("check", meant, "--answer", "0", "--wrt", "x", "--json")
    return json.loads(r.out)["expected"]


@pytest.mark.parametrize("typed,meant,point,slope", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_as_a_checked_function_and_answer(invoke, typed, meant, point, slope):
    """The form as the function, with its derivative (as check prints it) as the answer;
    and the form inside an answer: d/dx (x·f) = f + x·f', with f written as the form."""
    expected = _expected(invoke, meant)
    r = invoke("check", typed, "--answer", expected, "--wrt", "x", "--json")
    assert json.loads(r.out)["verdict"] == "correct", r.out + r.err
    r = invoke("check", f"x*({meant})", "--answer", f"{typed} + x*({expected})",
               "--wrt", "x", "--json")
    assert json.loads(r.out)["verdict"] == "correct", r.out + r.err


def test_each_form_in_a_class_file(invoke, tmp_path):
    """Every form as a CSV cell, as the function (with surrounding spaces) and inside an
    answer."""
    rows = ["id,function,answer"]
    for k, (typed, meant, _, _) in enumerate(FORMS):
        cell = typed.replace('"', '""')
        expected = _expected(invoke, meant).replace('"', '""')
        rows.append(f'f{k}," {cell} ","{expected}"')
        rows.append(f'a{k},"x*({meant})"," {cell} + x*({expected})"')
    path = tmp_path / "class.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = invoke("grade", str(path), "--json")
    verdicts = [v for v in map(json.loads, r.out.splitlines()) if "id" in v]  # not the summary
    assert len(verdicts) == 2 * len(FORMS)
    wrong = [(v["id"], v.get("verdict"), v.get("error")) for v in verdicts
             if v.get("verdict") != "correct"]
    assert not wrong


ANSWERS = [  # (function, the answer as a problem set or a math editor writes it)
    ("-3x^4", "-12x^3"),
    ("ln(x^2 + 1)", "\\frac{2x}{x^{2}+1}"),
    ("x ln x", "ln x + 1"),
    ("sqrt(x)", "\\frac{1}{2\\sqrt{x}}"),
    ("|x|^3", "3x|x|"),
    ("log(x, 2)", "\\frac{1}{x \\ln 2}"),
    ("x^2 e^x", "2xe^x + x^2 e^(x)"),
    ("sin(x)^2", "2 sin x cos x"),
    ("asin(x)", "\\frac{1}{\\sqrt{1-x^2}}"),
    ("tan x", "sec^2 x"),
    ("cosh(x)", "sinh x"),
    ("atanh(x)", "1/(1 - x^2)"),
    ("sec x", "sec x tan x"),
    ("e^{3x}", "3e^{3x}"),
    ("x^x", "x^x(1 + ln x)"),
    ("x^2 e^x", "2xe^x + x^2e^x"),
    ("e^(x^3 ln(x))", "e^(x^3ln x)(3x^2ln x + x^2)"),
    ("(x + 7)/sqrt(x)", "(√x(1) - (x + 7)(1/2x^(-1/2)))/x"),
    ("(x + cos(x))(1 - sin(x))", "(1 - sin x)(1 - sin x) - cos x(x + cos x)"),
    ("2^x", "(ln 2) 2^x"),
    ("asech(x^2)", "-2/(x√(1 - x^4))"),
    ("t sin(t)", "sint + t cost"),
    ("f(t) = sint", "cost"),
    ("sin(pi/6) x", "sin(pi/6)"),
]


@pytest.mark.parametrize("function,answer", ANSWERS, ids=[a for _, a in ANSWERS])
def test_answers_in_problem_set_notation_are_correct(invoke, function, answer):
    r = invoke("check", function, "--answer", answer, "--json")
    assert json.loads(r.out)["verdict"] == "correct", r.out + r.err


@pytest.mark.parametrize("function,answer", ANSWERS, ids=[a for _, a in ANSWERS])
def test_the_same_answers_in_a_class_file(invoke, tmp_path, function, answer):
    cell = answer.replace('"', '""')
    path = tmp_path / "c.csv"
    path.write_text(f'id,function,answer\n1," {function} "," {cell}"\n', encoding="utf-8")
    r = invoke("grade", str(path), "--json")
    assert json.loads(r.out.splitlines()[0])["verdict"] == "correct", r.out + r.err


# --------------------------------------------------------------------------- --at values


@pytest.mark.parametrize("text,expected", [
    (" x = -3", -3.0),
    ("x=|-2|", 2.0),
    ("x=\\frac{\\pi}{4}", math.pi / 4),
    ("x=\\sqrt{2}", math.sqrt(2)),
    ("x=\\sqrt[3]{8}", 2.0),
    ("x=e^{2}", math.e ** 2),
    ("x=log_2 8", 3.0),
    ("x=log(100, 10)", 2.0),
    ("x=sin^-1(1/2)", math.asin(0.5)),
    ("x=sec(0) + arccot(1)", 1 + math.pi / 4),
    ("x=\\cos\\pi", -1.0),
    ("x=2\\pi", 2 * math.pi),
])
def test_at_values_read_the_same_forms(text, expected):
    assert float(parse_assignments(text)["x"]) == pytest.approx(expected, rel=1e-12)


def test_an_at_value_with_a_form_through_the_command(invoke):
    r = invoke("grad", "x^2", "--at", "x=\\frac{|-3|}{2}", "--plain")
    assert (r.code, float(r.out)) == (0, 3.0)


# --------------------------------------------------------------------------- traps


@pytest.mark.parametrize("text,kind,read,other", [
    ("1/2x", "division then product", "(1/2)*x", "1/(2*x)"),
    ("1/2√x", "division then product", "(1/2)*√x", "1/(2*√x)"),
    ("sin x^2", "function argument", "sin(x**2)", "sin(x)**2"),
    ("sin 2x", "function argument", "sin(2x)", "sin(2)*x"),
    ("sin^-1 x", "inverse function", "asin(x)", "1/sin(x)"),
    ("sin^-1(x)", "inverse function", "asin(x)", "1/sin(x)"),
    ("cos^2 x", "function power", "cos(x)**2", None),
    ("x^x(1+ln x)", "power then parenthesis", "x**x*(1+ln x)", "x**(x*(1+ln x))"),
    ("xe^x", "split name", "x*e**x", None),
    ("log_2 x", "log base", "log(x, 2)", None),
    ("x^2e^x", "power then factor", "x**2*e**x", "x**(2*e**x)"),
    ("x^3ln x", "power then factor", "x**3*ln x", "x**(3*ln x)"),
    ("x^2y", "power then factor", "x**2*y", "x**(2*y)"),
    ("cos x(x+1)", "function argument", "cos(x)*(x+1)", "cos(x*(x+1))"),
    ("√x(x+1)", "root then parenthesis", "√x*(x+1)", "√(x*(x+1))"),
    ("sin pi/6", "function argument", "sin(pi)/6", "sin(pi/6)"),
    ("sech^-1 x", "inverse function", "asech(x)", "1/sech(x)"),
])
def test_a_trap_says_how_it_was_read_and_the_other_reading(text, kind, read, other):
    _, traps = parse_with_traps(text)
    assert [(t.kind, t.read, t.other) for t in traps] == [(kind, read, other)]
    for reading in (read, other):
        if reading is not None:
            parse(reading)  # each reading parses on its own


def test_the_other_reading_of_a_trap_is_a_different_function():
    from gradcalc.backends.numeric import run_numeric  # noqa: F401 - the engine is loaded

    _, (trap,) = parse_with_traps("1/2x")
    a, b = parse(trap.read), parse(trap.other)
    assert sx(a.body) != sx(b.body)


def test_sint_is_sin_t_only_when_the_caller_says_so():
    """A program keeps `sint` a name (it may be one: `--at sint=1`); a checked problem
    reads it as sin(t) where t is a variable (gradcalc/homework/problem.py)."""
    assert ir("sint") == ir("sint")  # a name, not a call
    program, traps = parse_with_traps("2sint^2 + lnx cosθ", applied=("sint", "lnx", "cosθ"))
    assert sx(program.body) == ir("2*sin(t)**2 + log(x)*cos(θ)")
    assert [(t.kind, t.read) for t in traps] == [
        ("split name", "sin(t)"), ("split name", "log(x)"), ("split name", "cos(θ)")]
    assert ir("sine + sinhx") == plain("sine + sinhx")  # only a listed name is read


def test_a_name_with_no_value_that_is_a_function_of_a_given_letter_suggests_it(invoke):
    r = invoke("grad", "sint", "--at", "t=1")
    assert r.code == 2 and "did you mean sin(t)?" in r.err


def test_plain_text_has_no_traps_and_positions_point_into_the_text():
    assert parse_with_traps("y = sin(x) + 2*x")[1] == ()
    _, traps = parse_with_traps("y = 1\nz = 3 + sin x^2")
    assert [(t.at.line, t.at.col) for t in traps] == [(2, 9)]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("text,error,fragment", [
    ("|a|b|c|", ParseError, "can be read two ways: abs(a)*b*abs(c) or abs(a*abs(b)*c)"),
    ("|x", ParseError, "has no partner"),
    ("\\foo{x}", ParseError, "the LaTeX command \\foo is not one gradcalc reads"),
    ("\\frac{1}", ParseError, "\\frac needs {numerator}{denominator}"),
    ("x^{2", ParseError, "this '{' is not closed"),
    ("x}", ParseError, "'}' closes no '{'"),
    ("sin^-2 x", ParseError, "sin^-2 x is ambiguous: write sin(x)^-2"),
    ("log^-1(x)", ParseError, "write log(x)^-1 or 1/log(x)"),
    ("arsech(x)", ParseError, "write asech(x) instead"),
    ("sinn(x)", ParseError, "did you mean sin(...)?"),
    ("tann(x) + sen(x)", ParseError, "did you mean tan(...)?"),
    ("{i: i for i in x}", ParseError, "dict comprehension"),
])
def test_what_cannot_be_read_is_one_error_with_a_position(text, error, fragment):
    with pytest.raises(error) as info:
        parse(text)
    assert fragment in info.value.message
    assert "\n" not in info.value.message


@pytest.mark.parametrize("text", [
    "|" * 5000 + "x" + "|" * 5000,
    "\\frac{" * 3000 + "1" + "}{2}" * 3000,
    "{" * 5000 + "x" + "}" * 5000,
    "|x|+" * 20000 + "x",
    "\\frac{x}{2}+" * 8000 + "x",
    "\\sqrt{" * 4000 + "x" + "}" * 4000,
    "|" * 99_999,
    "\\cdot" + "'" * 99_990,
    "log_2 " * 16_000 + "x",
    "sin " * 24_000 + "x",
    "\\left(" * 10_000 + "x" + "\\right)" * 10_000,
])
def test_hostile_forms_are_refused_within_the_limits(text):
    """Deep or huge: a LimitError or ParseError, never a crash, and no work that grows
    faster than the text (the suite's hostile corpus runs them through the CLI too)."""
    with pytest.raises(GradcalcError) as info:
        parse(text)
    assert isinstance(info.value, (LimitError, ParseError))
    assert len(info.value.message) < 400


def test_nesting_within_the_limit_reads():
    deep = "|" * 40 + "x" + "|" * 40
    assert ir(deep) == ir("abs(" * 40 + "x" + ")" * 40)
    fractions = "\\frac{" * 20 + "x" + "}{2}" * 20
    assert ir(fractions) == ir("((" * 20 + "x" + ")/(2))" * 20)


# --------------------------------------------------------------------------- round trips

_NAMES = st.sampled_from(["x", "y", "t"])
_UNARY = st.sampled_from(["sin", "cos", "exp", "log", "sqrt", "abs", "tanh", "sech",
                          "asinh", "atan"])


def _expressions():
    leaves = st.one_of(_NAMES, st.integers(1, 9).map(str),
                       st.sampled_from(["0.5", "2.25", "pi"]))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.integers(2, 4)).map(lambda t: f"({t[0]})**{t[1]}"),
            st.tuples(_UNARY, inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"logb({t[0]}, {t[1]})"),
            inner.map(lambda a: f"-({a})"),
        )

    return st.recursive(leaves, extend, max_leaves=8)


@settings(max_examples=examples(150), deadline=None)
@given(_expressions())
def test_a_random_program_printed_back_parses_to_the_same_ir(text):
    program = parse(text)
    printed = unparse(program.body[-1].value)
    assert ir(printed) == sx(program.body)
    assert plain(printed) == sx(program.body)  # the printed text is plain language


def _student(text: str) -> str:
    """A student's spelling of plain text: ^ for **, ln for log, |a| for abs(a), braces
    for some brackets, spaces around."""
    out = text.replace("**", "^").replace("log(", "ln(")
    return "  " + out.replace("abs(", "abs (") + " "


@settings(max_examples=examples(150), deadline=None)
@given(_expressions())
def test_student_spellings_of_a_program_parse_to_the_same_ir(text):
    expected = ir(text)
    assert ir(_student(text)) == expected
    latexy = text.replace("*", " \\cdot ")
    assert ir(latexy.replace(" \\cdot  \\cdot ", "^")) == expected
    bars = _bars(text)
    if bars is not None:
        assert ir(bars) == expected


def _bars(text: str) -> str | None:
    """abs(...) written |...| where the bracket can be found (None when there is none)."""
    k = text.find("abs(")
    if k < 0:
        return None
    depth, j = 0, k + 3
    for j in range(k + 3, len(text)):
        depth += (text[j] == "(") - (text[j] == ")")
        if depth == 0:
            break
    return text[:k] + "|" + text[k + 4 : j] + "|" + text[j + 1 :]


def test_student_notation_examples_read_as_the_plain_language():
    assert ir("2x sin x + x^2 cos x") == ir("2*x*sin(x) + x**2*cos(x)")
    assert ir("\\frac{d}{2}") == ir("(d)/(2)")
    assert ir("e^x sin x") == ir("e**x*sin(x)")
    assert ir("x \\sin x") == ir("x*sin(x)")
    assert np.isfinite(float(parse_assignments("x=\\frac{1}{3}")["x"]))
