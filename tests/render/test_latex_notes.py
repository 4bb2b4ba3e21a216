"""A step's note in the LaTeX document: its equations read back and printed as math, the
words between them as text; a note with an equation that does not read, or a rule whose
note states none, left out."""

from __future__ import annotations

from gradcalc.render.latex_notes import escaped, note_latex


def test_a_substitution_states_u_and_du_with_its_parentheses():
    assert note_latex("substitution", "u = x^2 + 4x, du = (2x + 4) dx") == (
        r"$u = x^{2} + 4 x$, $du = \left(2 x + 4\right)\, dx$")


def test_a_trigonometric_substitution_states_x_dx_and_the_root():
    assert note_latex("trig-substitution",
                      "x = 2sin(θ), dx = 2cos(θ) dθ, √(4 - x^2) = 2cos(θ)") == (
        r"$x = 2 \sin{\left(\theta \right)}$, $dx = 2 \cos{\left(\theta \right)}\, d\theta$, "
        r"$\sqrt{4 - x^{2}} = 2 \cos{\left(\theta \right)}$")


def test_the_triangle_names_its_sides_as_math():
    said = note_latex("back-substitution", "x = 3tan(θ): the right triangle with opposite "
                      "side x, adjacent side 3 and hypotenuse √(x^2 + 9) gives sin(θ) = "
                      "x/√(x^2 + 9)")
    assert said.startswith(r"$x = 3 \tan{\left(\theta \right)}$: the right triangle with "
                           r"opposite side $x$, adjacent side $3$ and hypotenuse "
                           r"$\sqrt{x^{2} + 9}$ gives $\sin{\left(\theta \right)} = ")


def test_words_are_not_read_as_letters_multiplied():
    """`so 2·I` is the word and the formula; `(at x = 1)` a bracket of words and math."""
    said = note_latex("cyclic-parts", "I = ∫ e^x·sin(x) dx; by parts with u = sin(x), "
                      "dv = e^x dx: I = e^x·sin(x) - I, so 2·I = e^x·sin(x)")
    assert r"so $2 I = e^{x} \sin{\left(x \right)}$" in said
    assert "by parts with $u = " in said
    covered = note_latex("partial-fractions", "1/(x^2 - 1) = A/(x - 1) + B/(x + 1); "
                         "cover-up: A = 1/2 (at x = 1), B = -1/2 (at x = -1)")
    assert covered.endswith(r"cover-up: $A = \frac{1}{2}$ (at $x = 1$), "
                            r"$B = - \frac{1}{2}$ (at $x = -1$)")


def test_the_tabular_table_is_an_array_of_equations():
    said = note_latex("tabular-parts", "sign | u = x^2 and its derivatives | dv = e^x dx "
                      "and its antiderivatives: + | x^2 | e^x; - | 2x | e^x; + | 2 | e^x; "
                      "- | 0 | e^x; each sign times u's row times dv's next row")
    assert r"+ & u = x^{2} & dv = e^{x}\, dx \\ - & u' = 2 x & v_{1} = e^{x}" in said
    assert r"- & u''' = 0 & v_{3} = e^{x} \end{array}$" in said


def test_a_note_that_does_not_read_is_left_out():
    assert note_latex("integral-table", "∫ sec^n(u) du = sec^(n−2)(u)·tan(u)/(n − 1) + ((n − 2)"
                      "/(n − 1))·∫ sec^(n−2)(u) du, n = 3") == ""
    assert note_latex("integral-table", "∫ sec(u)^2 du = tan(u) + ∫ 0 du") == ""
    assert note_latex("product", "u = x^2, v = sin(3x)") == ""  # the rule name says it
    assert note_latex("point-slope", "x₀ = 1, y₀ = f(1) = 1, m = f'(1) = 2") == (
        "$x_{0} = 1$, $y_{0} = f(1) = 1$, $m = f'(1) = 2$")


def test_text_keeps_no_character_latex_cannot_set():
    assert escaped("a_b & 50% {x}") == r"a\_b \& 50\% \{x\}"
    assert escaped("tan' = sec², θ ≠ 0") == r"tan' = sec$^2$, $\theta$ $\neq$ 0"
