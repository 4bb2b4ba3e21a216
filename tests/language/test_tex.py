"""Reading what textbooks and teachers write (issue 35): LaTeX as books type it, prefixes
that the kind makes natural, names from a function's signature, every disputed reading
said, the long tail of the peers' parser fixtures, and errors that say what to write."""

from __future__ import annotations

import pytest

from gradcalc.errors import GradcalcError
from gradcalc.homework.answer import AnswerJob, run
from gradcalc.homework.kinds.registry import Kind
from gradcalc.homework.reading.claims import split_prefix
from gradcalc.language.parse import parse, parse_with_traps
from gradcalc.language.tex import books
from gradcalc.language.unparse import unparse


def plain(text: str, variables: tuple[str, ...] = ("x", "y", "u", "t")) -> str:
    return unparse(parse(text, variables=variables).body[-1].value)


def judged(function: str, answer: str, wrt: list[str] | None = None, **kind: object):
    return run(AnswerJob(function, answer, wrt, kind=Kind.read(**kind)))


# --------------------------------------------------------------------------- 1. TeX

@pytest.mark.parametrize("typed,meant", [
    (r"\frac1{x}", "1/x"),
    (r"\frac12", "1/2"),
    (r"\frac{e^t}t", "e**t/t"),
    (r"\dfrac1x + \tfrac{1}2", "1/x + 1/2"),
    (r"\cfrac{1}{1+x}", "1/(1 + x)"),
    (r"\frac\pi4", "pi/4"),
    (r"e^\pi x", "e**pi*x"),
    (r"\sqrt x + \sqrt2", "sqrt(x) + sqrt(2)"),
    (r"\sqrt[4]x", "x**(1/4)"),
    (r"\sqrt[4]{x}", "x**(1/4)"),
    (r"\root 3 \of x", "cbrt(x)"),
    (r"\root 3 \of {x+1}", "cbrt(x + 1)"),
    (r"\bigl(x+1\bigr)^2", "(x + 1)**2"),
    (r"\Bigl(x+1\Bigr)\Big(x-1\Big)", "(x + 1)*(x - 1)"),
    (r"\biggl[x+1\biggr]^2 \Biggl(x\Biggr)", "(x + 1)**2*x"),
    (r"\bigl|x\bigr|", "abs(x)"),
    (r"\left[x+1\right]^2", "(x + 1)**2"),
    (r"\left\{x+1\right\}^2", "(x + 1)**2"),
    (r"\left\lbrace x\right\rbrace + \left\lbrack x \right\rbrack", "x + x"),
    (r"\left|a\left|b\right|c\right|", "abs(a*abs(b)*c)"),
    (r"\left\lvert x\right\rvert + \lvert y\rvert", "abs(x) + abs(y)"),
    (r"\ln\left|x\right|", "log(abs(x))"),
    (r"x\left|y\right|", "x*abs(y)"),
    (r"\left. x^2 \right.", "x**2"),
    (r"2\,x\;y\!\quad t", "2*x*y*t"),
    (r"1{,}100x", "1100*x"),
    (r"\operatorname{sech} x", "sech(x)"),
    (r"\sec^{-1} x", "asec(x)"),
    (r"\cos^{7/2} x", "cos(x)**(7/2)"),
    (r"\tan^{-1} \sqrt x", "atan(sqrt(x))"),
    (r"\sin^2 x", "sin(x)**2"),
    (r"\ln\ln x", "log(log(x))"),
    (r"\cos x\, e^{\sin x}", "cos(x)*e**sin(x)"),
    (r"2x^2 3^{x^2-1}", "2*x**2*3**(x**2-1)"),
    ("$2x$", "2*x"),
    ("$$2x$$", "2*x"),
    (r"\(2x\)", "2*x"),
    (r"\[ 2x \]", "2*x"),
])
def test_latex_as_books_write_it(typed, meant):
    assert plain(typed) == plain(meant)


def test_book_latex_keeps_every_offset_in_the_text_typed():
    out, origin = books(r"\frac1{x}")
    assert out == r"\frac{1}{x}"
    assert len(origin) == len(out) + 1 and origin[-1] == len(r"\frac1{x}")
    with pytest.raises(GradcalcError, match="column 13"):
        parse(r"\frac1{x} + \foo x")  # the position is the one typed


@pytest.mark.parametrize("function,answer", [
    ("ln(x)", r"\frac1{x}"),
    ("x^2/4", r"\frac12 x"),
    ("x^(5/4)", r"\frac54\sqrt[4]x"),
    ("x^(4/3)", r"\frac43 \root 3 \of x"),
    ("cos(x)^(7/2)", r"-\frac72\cos^{5/2} x \sin x"),
    ("x*atan(sqrt(x))", r"\tan^{-1} \sqrt x + \frac{\sqrt x}{2(1+x)}"),
    ("x*asec(x)", r"\sec^{-1} x + \frac{1}{\sqrt{x^2-1}}"),
    ("(x^2+1)^3", r"6x\bigl(x^2+1\bigr)^2"),
    ("1100x^2/2", "$1{,}100x$"),
    ("x^2", r"\(2x\)"),
])
def test_book_answers_are_read_and_judged_correct(function, answer):
    domain = "x > 1" if "sec" in answer else None
    assert judged(function, answer, domain=domain).verdict == "correct"


# --------------------------------------------------------------------------- 2. prefixes

@pytest.mark.parametrize("function,answer,kind", [
    ("x^3", "f''(x) = 6x", {"order": 2}),
    ("x^3", "f'''(x) = 6", {"order": 3}),
    ("x^5", "f^{(4)}(x) = 120x", {"order": 4}),
    ("x^5", "f^(4)(x) = 120x", {"order": 4}),
    ("x^3", "y'' = 6x", {"order": 2}),
    ("x^3", "d^2y/dx^2 = 6x", {"order": 2}),
    ("x^3", r"\frac{d^2y}{dx^2} = 6x", {"order": 2}),
    ("x^3", r"f^{\prime\prime}(x) = 6x", {"order": 2}),
    ("x^2 y^3", "f_{xy} = 6x y^2", {"partial": "x,y"}),
    ("x^2 y^3", "f_{xy}(x,y) = 6x y^2", {"partial": "x,y"}),
    ("x^2 y^3", "f_xy = 6x y^2", {"partial": "x,y"}),
    ("x^2 y^3", "∂²f/∂x∂y = 6x y^2", {"partial": "x,y"}),
    ("x^2 y^3", r"\frac{\partial^2 f}{\partial x \partial y} = 6x y^2", {"partial": "x,y"}),
    ("x^2 y^3", "f_yx = 6x y^2", {"partial": "x,y"}),
    ("x^2+y^2 = 1", r"\frac{dy}{dx} = -\frac{x}{y}", {"implicit": "y"}),
    ("x^2+y^2 = 1", r"\frac{\mathrm{d}y}{\mathrm{d}x} = -x/y", {"implicit": "y"}),
    ("x^2+y^2 = 1", "y' = -x/y", {"implicit": "y"}),
    ("sin(y) = x", "((dy/dx))=1/cos(y)", {"implicit": "y"}),
    ("x e^x", "F(x) = (x-1)e^x + C", {"antiderivative": True}),
    ("x e^x", r"\int x e^x\,dx = (x-1)e^x + C", {"antiderivative": True}),
    (r"\int x e^x\,dx", "(x-1)e^x + C", {"antiderivative": True}),
    (r"$\int x e^x \, \mathrm{d}x$", "(x-1)e^x + C", {"antiderivative": True}),
    ("x^2", "$f'(x) = 2x$", {}),
])
def test_a_prefix_the_kind_makes_natural_is_read(function, answer, kind):
    assert judged(function, answer, **kind).verdict == "correct"


@pytest.mark.parametrize("function,answer,kind,said", [
    ("x^3", "f''(x) = 6", {"order": 3}, ["f''(x)", "order 2", "--order 3"]),
    ("x^3", "f'''(x) = 6", {"order": 2}, ["f'''(x)", "order 3", "--order 2"]),
    ("x^2 y^3", "f_xx = 2y^3", {"partial": "x,y"}, ["f_xx", "--partial x,y"]),
    ("x^2 y^3", "f_x = 2x y^3", {"partial": "x,y"}, ["f_x", "--partial x,y"]),
    ("x^3", "f''(x) = 6x", {}, ["f''(x)", "order 2"]),
    ("x^2", r"\int 2x\,dx = x^2", {}, ["an antiderivative", "--antiderivative"]),
])
def test_a_prefix_that_contradicts_the_problem_is_an_error_naming_both(function, answer,
                                                                       kind, said):
    with pytest.raises(GradcalcError) as e:
        judged(function, answer, **kind)
    assert all(s in e.value.message for s in said), e.value.message


@pytest.mark.parametrize("typed,kind,wrt,order", [
    ("f^{(4)}(x)", "derivative", ("x",), 4),
    ("y^{(4)}", "derivative", (), 4),
    ("∂³f/∂x²∂y", "partial", ("x", "x", "y"), 3),
    (r"\frac{\partial^2 f}{\partial x^2}", "partial", ("x",), 2),
    ("((dy/dx))", "derivative", ("x",), 1),
    (r"\int x\,dx", "antiderivative", ("x",), 1),
])
def test_the_claim_of_a_prefix(typed, kind, wrt, order):
    claim = split_prefix(f"{typed} = 1")[1]
    assert claim is not None and (claim.form, claim.wrt, claim.order) == (kind, wrt, order)


# --------------------------------------------------------------------------- 3. names

def test_a_signature_names_its_inputs_whether_used_or_not():
    v = judged("f(x,y) = 3x^2+1", "0", ["y"])
    assert v.verdict == "correct"
    assert v.read == {"function": "f(x, y) = 3x^2 + 1", "answer": "∂f/∂y = 0"}
    assert judged("f(x,y) = 3x^2+1", "[6x, 0]").verdict == "correct"


@pytest.mark.parametrize("function,answer,wrt,read", [
    (r"\ln(kx)", "1/x", ["x"], "f(k, x) = ln(k·x)"),
    (r"f(x) = \ln(kx)", "1/x", None, "f(x, k) = ln(k·x)"),
    ("f(t) = sin(at)", "a cos(at)", None, "f(t, a) = sin(a·t)"),
    ("x3^{x^2-1}", r"3^{x^2-1} + 2x^2 \ln 3 \cdot 3^{x^2-1}", None, "f(x) = x·3^(x^2 - 1)"),
])
def test_a_letter_glued_to_a_named_variable_is_read_apart_and_said(function, answer, wrt,
                                                                    read):
    v = judged(function, answer, wrt)
    assert v.verdict == "correct" and v.read["function"] == read


# --------------------------------------------------------------------------- 4. said

@pytest.mark.parametrize("function,answer,wrt,note", [
    ("sin(x)*y", "cos xy", ["x"], "cos xy is read as cos(x·y); if you meant cos(x)·y, "
     "that would be correct"),
    ("sin(x*y)", "y cos xy", ["x"], "if you meant y·(cos(x)·y), that would be incorrect"),
    ("x*ln(u-2)^2", r"\ln [u-2]^2", ["x"], r"\ln [u-2]^2 is read as ln((u - 2)^2); if you "
     "meant ln(u - 2)^2, that would be correct"),
    ("x*ln((u-2)^2)", r"\ln [u-2]^2", ["x"], "if you meant ln(u - 2)^2, that would be "
     "incorrect"),
])
def test_every_disputed_reading_is_said_with_its_alternative(function, answer, wrt, note):
    v = judged(function, answer, wrt)
    assert v.note is not None and note in v.note, v.note


@pytest.mark.parametrize("text,kind,read,other", [
    ("sin xy", "product argument", "sin(x y)", "sin(x)*y"),
    ("sin x y", "product argument", "sin(x y)", "sin(x)*y"),
    (r"\ln [u-2]^2", "bracket argument", "log((u-2)**2)", "log(u-2)**2"),
    ("sin -x*3", "function argument", "sin(-x)*3", "sin(-x*3)"),
])
def test_the_disputed_readings_are_recorded(text, kind, read, other):
    traps = parse_with_traps(text, variables=("x", "y", "u"))[1]
    assert (kind, read, other) in [(t.kind, t.read, t.other) for t in traps]


# --------------------------------------------------------------------------- 5. peers

@pytest.mark.parametrize("typed,meant", [
    ("1/2 1/2", "1/2*1/2"),
    ("log _ 2 x", "log(x, 2)"),
    ("log_ 2 x", "log(x, 2)"),
    ("sin -x*3", "sin(-x)*3"),
    ("sin -x", "sin(-x)"),
    ("sin^n x", "sin(x)**n"),
    ("cos^(7/2) x", "cos(x)**(7/2)"),
    ("lnarccos(x)", "log(arccos(x))"),
    ("lnlnln(x)", "log(log(log(x)))"),
    ("lnsin(x)", "log(sin(x))"),
    ("❨x+1﹚（y+2❫", "(x+1)*(y+2)"),
    ("x ⁒ y", "x - y"),
    ("xʌ2", "x**2"),
    ("⟮x⟯ ⦅y⦆", "x*y"),
])
def test_the_peers_long_tail(typed, meant):
    assert plain(typed, ("x", "y", "n")) == plain(meant, ("x", "y", "n"))


def test_a_log_glued_to_a_call_in_a_program_is_a_composition():
    assert plain("lnarccos(x) + lnsin(x)", ()) == plain("log(arccos(x)) + log(sin(x))", ())


def test_a_minus_with_spaces_after_a_function_stays_an_error():
    with pytest.raises(GradcalcError, match="is a function"):
        parse("sin - x")


# --------------------------------------------------------------------------- 6. errors

@pytest.mark.parametrize("typed,command,instead", [
    (r"\tg x", r"\tg", r"write \tan"),
    (r"\arctg x", r"\arctg", r"write \arctan"),
    (r"\cosec x", r"\cosec", r"write \csc"),
    (r"\dv{x}", r"\dv", "write the derivative itself"),
    (r"\infty", r"\infty", "cannot hold ∞"),
    (r"x \le 1", r"\le", "write <="),
    (r"\int x\,dx", r"\int", "--antiderivative"),
    (r"{a \over b}", r"\over", r"write \frac{a}{b}"),
    (r"\foo x", r"\foo", "docs/language.md lists every command"),
])
def test_a_command_not_read_is_named_with_what_to_write_instead(typed, command, instead):
    with pytest.raises(GradcalcError) as e:
        parse(typed)
    assert f"the LaTeX command {command} " in e.value.message, e.value.message
    assert instead in e.value.message, e.value.message


# --------------------------------------------------------------------------- 7. verdicts

@pytest.mark.parametrize("function,answer", [
    ("sqrt(1-x^2)", "1/2 (asin(x) + x sqrt(1-x^2)) + C"),
    (r"\sqrt{x^2-1}", r"\frac12\left(x\sqrt{x^2-1} - \ln\left|x + \sqrt{x^2-1}\right|\right) + C"),
    (r"x\sin^{-1} x", r"\frac{2x^2-1}{4}\sin^{-1} x + \frac{x\sqrt{1-x^2}}{4} + C"),
])
def test_an_antiderivative_without_a_derivative_at_the_ends_of_the_domain_is_right(function,
                                                                                   answer):
    assert judged(function, answer, antiderivative=True).verdict == "correct"


def test_a_wrong_antiderivative_on_such_a_domain_is_still_wrong():
    v = judged("sqrt(1-x^2)", "1/2 (asin(x) + x sqrt(1-x)) + C", antiderivative=True)
    assert v.verdict == "incorrect"


@pytest.mark.parametrize("answer,said", [
    ("x^3/3 + c^2", "c^2 is a constant that cannot take every value"),
    ("x^3/3 + e^C", "e^C is a constant that cannot take every value"),
])
def test_a_constant_that_cannot_take_every_value_is_wrong_when_optional_too(answer, said):
    v = judged("x^2", answer, antiderivative=True, constant="optional")
    assert v.verdict == "incorrect" and said in v.feedback
    assert judged("x^2", "x^3/3", antiderivative=True, constant="optional").verdict == \
        "correct"


def test_a_region_is_named_in_parts_that_do_not_overlap():
    v = judged("1/(x ln(x^2))", "1/2 ln(ln(x^2)) + C", antiderivative=True)
    assert v.verdict == "incorrect"
    assert "defined for -1 < x < 0 and 0 < x < 1 too" in v.feedback, v.feedback


def test_an_antiderivative_with_a_parameter_is_judged_for_a_generic_value_and_says_it():
    v = judged("x^k", "x^(k+1)/(k+1) + c", ["x"], antiderivative=True)
    assert v.verdict == "correct"
    assert v.note is not None and "but k = -1" in v.note and v.feedback == v.note
    assert judged("x^k", "x^(k+1)/k + c", ["x"], antiderivative=True).verdict == "incorrect"


def test_group_ends_pairs_each_brace_in_one_pass() -> None:
    """Every unescaped `{` is paired with its own `}`; an escaped one is not a group, and
    an unclosed one has no end (3,000 nested fractions read in linear work, not 30 s)."""
    from gradcalc.language.tex import _group_ends

    text = r"\frac{a{b}}{\{c}d{"
    ends = _group_ends(text)
    assert ends == {5: 11, 7: 10, 11: 16, 17: None}
    nested = "{" * 3000 + "}" * 3000
    assert _group_ends(nested)[0] == 6000
