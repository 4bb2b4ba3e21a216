"""A key's parameters: the `params` cell read (ranges, steps, exceptions, choices,
rationals, derived values, conditions), its errors naming the key's line, and the draw
(`gradcalc.grading.draws`): the documented SHA-256 algorithm, the same in every process
and under any hash seed, and the conditions always honoured."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError
from gradcalc.grading import draws, params

WHERE = "key.csv, line 2"


def read(text: str, forbidden: frozenset[str] = frozenset()) -> params.Params:
    return params.read(text, WHERE, forbidden)


def every(text: str) -> list[dict[str, Fraction]]:
    spec = read(text)
    return [env for env in draws.combinations(spec) if draws.kept(spec, env)]


def values(text: str, name: str) -> list[Fraction]:
    return sorted({env[name] for env in every(text)})


def test_ranges_steps_exceptions_and_choices():
    assert values("a = 2..9", "a") == list(map(Fraction, range(2, 10)))
    assert values("b = 2..5 except 3", "b") == [2, 4, 5]
    assert values("b = -5..5 except 0, 1", "b") == [-5, -4, -3, -2, -1, 2, 3, 4, 5]
    assert values("c = 1/2..5/2 step 1/2", "c") == [Fraction(k, 2) for k in range(1, 6)]
    assert values("c = 0.5..2 step 0.5", "c") == [Fraction(k, 2) for k in range(1, 5)]
    assert values("n = choice(2, 3, 4)", "n") == [2, 3, 4]
    assert values("n = choice(1/2, -1/3) except -1/3", "n") == [Fraction(1, 2)]
    assert values("k = 7/3", "k") == [Fraction(7, 3)]


def test_derived_values_dependent_ranges_and_conditions():
    envs = every("a = 1..4; b = a+1..5; c = 2a - b; a != 2; b^2 - 4a c > 0")
    assert envs and all(env["b"] > env["a"] and env["c"] == 2 * env["a"] - env["b"]
                        for env in envs)
    assert all(env["a"] != 2 and env["b"] ** 2 - 4 * env["a"] * env["c"] > 0 for env in envs)
    both = every("a = 1..3; b = 1..3; a < b or a == 3; not a == 1")
    assert sorted((e["a"], e["b"]) for e in both) == [(2, 3), (3, 1), (3, 2), (3, 3)]


def test_separators_and_the_typographers_symbols():
    spec = read("a = 2…5\nb = choice(1, 2); a ≠ b; a ≥ 3")
    assert spec.names == ("a", "b") and [c.text for c in spec.conditions] == ["a != b", "a >= 3"]


@pytest.mark.parametrize("text, message", [
    ("", "no parameter is declared"),
    ("a b", "neither a parameter (NAME = ...) nor a condition"),
    ("a =", "give a a range, a choice or a value"),
    ("2a = 3", "is not a parameter's name"),
    ("sin = 2..3", "a constant or a function of the language"),
    ("e = 2..3", "a constant or a function of the language"),
    ("a = 2..3; a = 4", "declared twice"),
    ("a = 1..3; b = c + 1", "'c' is not a parameter declared before it"),
    ("a = choice()", "choice() needs at least one value"),
    ("a = 3 except 3", "'except' goes with a range"),
    ("a = 1..(", "was never closed"),
    ("a = sqrt(2)", "'sqrt' at line 1"),
    ("x = 1..3", "'x' is a variable of the problem"),
])
def test_a_bad_declaration_names_the_line_the_column_and_itself(text, message):
    with pytest.raises(GradcalcError, match="key.csv, line 2, column params") as exc:
        read(text, frozenset({"x"}))
    assert message in exc.value.message


@pytest.mark.parametrize("text, message", [
    ("a = 5..2", "'a = 5..2': a has no value: the range or choice is empty"),
    ("a = 2..3 except 2, 3", "empty once the excepted values are left out"),
    ("a = 1..3; b = a+1..3", "'b = a+1..3': b has no value: the range or choice is empty "
     "when a = 3"),
    ("a = 0..2; b = 1/a", "'b = 1/a': a division by zero when a = 0"),
    ("a = 1..5 step 0", "the step of a is not above 0"),
    ("a = 1..100000", "a takes over 10,000 values"),
    ("a = 2^80", "a power's exponent is a whole number up to 64"),
    ("a = 10^13", "is over 1e+12"),
    ("a = 2..3; b = 2..3; a != a", "no values satisfy the conditions (a != a): none of the "
     "4 combinations"),
    ("a = 1..100; b = 1..100; a == 2b", "keep 50 of the 10,000 combinations, under 5%"),
    ("a = 1..200; b = 1..200; a == b", "of 1,000 draws (the combinations are too many to "
     "count), under 5%"),
    ("a = 1..200; b = 1..200; a == b + 1000", "none of 1,000 draws"),
])
def test_a_spec_that_cannot_be_drawn_is_refused_when_the_key_is_read(text, message):
    with pytest.raises(GradcalcError) as exc:
        draws.check(read(text), WHERE, "", "1")
    assert exc.value.message.startswith("key.csv, line 2, column params")
    assert message in exc.value.message


def test_check_counts_the_combinations_the_conditions_keep():
    assert len(draws.check(read("a = 2..9; b = 2..5 except 3; a != b"), WHERE, "", "1")) == 21


# --------------------------------------------------------------------------- the draw


def reference_draw(spec: list[tuple[str, list[int]]], term: str, student: str,
                   problem: str) -> dict[str, int]:
    """The algorithm as docs/teaching-with-gradcalc.md writes it, for parameters drawn
    from lists (no conditions): one SHA-256 block after another, four 64-bit big-endian
    integers each, an index below n kept when under the largest multiple of n."""
    seed = b"\0".join(t.encode() for t in ("gradcalc-variant-1", term, student, problem))
    numbers, block = [], 0

    def next_u() -> int:
        nonlocal block
        if not numbers:
            digest = hashlib.sha256(seed + b"\0" + str(block).encode()).digest()
            numbers.extend(int.from_bytes(digest[k:k + 8], "big") for k in range(0, 32, 8))
            block += 1
        return numbers.pop(0)

    out = {}
    for name, choices in spec:
        n = len(choices)
        while (u := next_u()) >= 2**64 - 2**64 % n:
            pass
        out[name] = choices[u % n]
    return out


def test_the_draw_is_the_documented_algorithm():
    spec = read("a = 2..9; b = 2..5 except 3; n = choice(2, 3, 4)")
    lists = [("a", list(range(2, 10))), ("b", [2, 4, 5]), ("n", [2, 3, 4])]
    for k in range(300):
        student = f"student{k}@uni.edu"
        drawn = dict(draws.draw(spec, "fall-2027", student, "p1"))
        assert drawn == reference_draw(lists, "fall-2027", student, "p1"), student


def test_a_failed_condition_draws_again_from_the_same_stream():
    spec = read("a = 1..4; b = 1..4; a != b")
    for k in range(100):
        stream = draws.Stream("t", f"s{k}", "p")
        while True:
            env, ok = draws.attempt(spec, stream)
            if ok:
                break
        assert dict(draws.draw(spec, "t", f"s{k}", "p")) == env


def test_the_uniform_index_passes_over_the_top_of_the_range():
    stream = draws.Stream("", "", "")
    stream.ready = [5, 2**64 - 1]  # popped from the end: 2^64 - 1 is passed over for n = 3
    assert stream.below(3) == 5 % 3 and not stream.ready


def test_every_value_is_drawn_and_about_equally_often():
    spec = read("a = 1..6")
    counts: dict[Fraction, int] = {}
    for k in range(6000):
        v = dict(draws.draw(spec, "", str(k), "1"))["a"]
        counts[v] = counts.get(v, 0) + 1
    assert sorted(counts) == list(range(1, 7))
    assert all(850 <= n <= 1150 for n in counts.values()), counts  # about 13 sigma wide


def test_the_variant_depends_on_the_term_the_student_and_the_problem():
    spec = read("a = 1..1000")
    base = draws.draw(spec, "2027", "ana", "1")
    others = [draws.draw(spec, "2028", "ana", "1"), draws.draw(spec, "2027", "ben", "1"),
              draws.draw(spec, "2027", "ana", "2")]
    assert all(o != base for o in others)
    assert draws.draw(spec, "2027", "ana", "1") == base


DRAW_IN_A_CHILD = """
import json, sys
from gradcalc.grading import draws, params
spec = params.read(sys.argv[1], "k")
print(json.dumps([[n, str(v)] for s in range(50)
                  for n, v in draws.draw(spec, "t", f"s{s}", "p")]))
"""


def test_the_same_variants_in_other_processes_under_any_hash_seed():
    text = "a = 2..9; b = 2..5 except 3; c = choice(1/2, 2/3); a != b"
    spec = read(text)
    here = [[n, str(v)] for s in range(50) for n, v in draws.draw(spec, "t", f"s{s}", "p")]
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", DRAW_IN_A_CHILD, text], env=env,
                             capture_output=True, text=True, timeout=120, check=True).stdout
        assert json.loads(out) == here


def test_a_draw_that_never_satisfies_the_conditions_says_so():
    spec = read("a = 1..1000; b = 1..1000; a == b + 999")  # refused by check; here: the bound
    with pytest.raises(GradcalcError, match=r"no draw for 'ana' satisfied the conditions "
                       r"\(a == b \+ 999\) in 1,000 tries"):
        draws.draw(spec, "t", "ana", "p")


@given(lo=st.integers(-20, 20), width=st.integers(0, 12), step=st.integers(1, 3),
       skip=st.integers(-20, 30), blo=st.integers(-5, 5), student=st.text(max_size=12))
def test_drawn_values_honour_their_ranges_and_conditions(lo, width, step, skip, blo,
                                                          student):
    text = (f"a = {lo}..{lo + width} step {step} except {skip}; b = {blo}..{blo + 6}; "
            "c = a - b; a != b; a + b != 3")
    spec = read(text)
    try:
        draws.check(spec, WHERE, "t", "p")
    except GradcalcError:
        return  # a spec the key refuses: nothing to draw
    env = dict(draws.draw(spec, "t", student, "p"))
    a, b = env["a"], env["b"]
    assert lo <= a <= lo + width and (a - lo) % step == 0 and a != skip
    assert blo <= b <= blo + 6 and a != b and a + b != 3 and env["c"] == a - b
    assert all(v.denominator == 1 for v in env.values())


def test_values_as_the_key_json_and_a_person_write_them():
    assert [params.text_of(Fraction(n, d)) for n, d in ((3, 1), (-3, 1), (1, 2), (-1, 2))] \
        == ["3", "-3", "1/2", "-1/2"]
    assert params.json_of(Fraction(3)) == 3 and params.json_of(Fraction(1, 2)) == "1/2"
    assert params.shown((("a", Fraction(3)), ("b", Fraction(-1, 2)))) == "a = 3, b = -1/2"


def test_gcd_mod_floor_and_int_in_values_and_conditions():
    """WeBWorK's integer arithmetic: gcd, mod (and %, the sign of the divisor, as Perl's),
    floor, and int cutting toward zero (Perl's int)."""
    env = every("a = 12; b = 18; c = gcd(a, b); d = mod(-7, 3); e2 = -7 % 3; "
                "f = floor(-7/2); g = int(-7/2); h = int(7/2); k = abs(-2)")[0]
    assert [env[n] for n in "cdfghk"] + [env["e2"]] == [6, 2, -4, -3, 3, 2, 2]
    assert values("a = 2..9; mod(a, 2) == 1", "a") == [3, 5, 7, 9]
    assert values("a = 2..9; a % 3 == 0 or floor(a/4) == 2", "a") == [3, 6, 8, 9]
    coprime = every("a = 2..9; b = 2..9; gcd(a, b) == 1 and a < b")
    assert (2, 3) in {(e["a"], e["b"]) for e in coprime} and len(coprime) == 19


@pytest.mark.parametrize("text, message", [
    ("a = 2..9; sqrt(a) > 1", "'sqrt' at line 1, column 1 is not a function gradcalc "
     "knows; functions: abs, floor, gcd, int, mod"),
    ("a = 2..9; b = gcd(a)", "gcd takes 2 values, not 1"),
    ("a = 2..9; b = floor(a, 2)", "floor takes 1 value, not 2"),
    ("mod = 2..9", "a constant or a function of the language"),
])
def test_a_function_unknown_or_with_too_few_values_names_the_line(text, message):
    with pytest.raises(GradcalcError, match="key.csv, line 2, column params") as exc:
        read(text)
    assert message in exc.value.message


@pytest.mark.parametrize("text, message", [
    ("a = 1/2..3; b = mod(a, 2)", "'b = mod(a, 2)': mod takes whole numbers, not 1/2, 2 "
     "when a = 1/2"),
    ("a = 1..3; b = a % 0", "'b = a % 0': mod by zero when a = 1"),
    ("a = 1/2..2 step 1/2; gcd(a, 2) == 1", "gcd takes whole numbers"),
])
def test_integer_arithmetic_on_other_values_is_refused_when_the_key_is_read(text, message):
    with pytest.raises(GradcalcError) as exc:
        draws.check(read(text), WHERE, "", "1")
    assert exc.value.message.startswith("key.csv, line 2, column params")
    assert message in exc.value.message


def test_a_formula_drawn_from_a_list_and_a_variables_name():
    """`formula(...)` gives one formula of the list, `variable(...)` one name; a formula
    takes the drawn variable's name; the values are texts, in JSON too."""
    spec = read("v = variable(t, x, u); a = 2..3; g = formula(sin(v)^2, a cos(v)^2)")
    envs = list(draws.combinations(spec))
    assert len(envs) == 12
    assert {(env["v"].text, env["g"].text) for env in envs} == {
        (v, g.replace("v", v)) for v in "txu" for g in ("sin(v)^2", "a cos(v)^2")}
    env = envs[0]
    assert env["v"] == params.Formula("t", variable=True) and params.json_of(env["g"]) == \
        "sin(t)^2" and params.shown(tuple(env.items())) == "v = t, a = 2, g = sin(t)^2"


def test_a_variables_name_may_be_the_problems_wrt():
    assert read("v = variable(t, x)", frozenset({"v"})).names == ("v",)


@pytest.mark.parametrize("text, message", [
    ("g = formula()", "formula() needs at least one formula"),
    ("g = formula(sin(x), g + 1)", "the formula 'g + 1' names 'g' itself"),
    ("g = formula(sin(x)+)", "'sin(x)+': syntax error"),
    ("g = formula(y = x)", "'y = x' is not one formula"),
    ("g = formula(a x); a = 2..3", "'a' is a parameter declared after it"),
    ("v = variable(t, 2)", "'2' is not a parameter's name"),
    ("a = 1..3; v = variable(a, t)", "'a' is a parameter: a variable's names are others"),
    ("v = variable(t, t)", "'t' is twice in the list"),
    ("v = variable(t, sin)", "'sin' is a constant or a function of the language"),
    ("g = formula(sin(x)); g > 1", "'g' is a formula, not a number"),
    ("v = variable(t, u); b = 2v", "'v' is a variable's name, not a number"),
    ("g = formula(sin(x)); redraw g until 1 > 0", "'g' is not drawn from numbers"),
    ("g = formula(sin(x))", None),
])
def test_a_bad_formula_or_variable_names_the_line(text, message):
    if message is None:
        assert read(text).names == ("g",)
        return
    with pytest.raises(GradcalcError, match="key.csv, line 2, column params") as exc:
        read(text)
    assert message in exc.value.message
