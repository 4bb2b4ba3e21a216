"""gradcalc.values: value literals for --at, --weights and --expect."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcalc.errors import GradcalcError, LimitError
from gradcalc.language.values import parse_assignments, parse_value, value_from_data
from gradcalc.limits import Limits

from conftest import BACKSTOP_SECONDS, examples


def at(*texts: str, **kw) -> dict:
    return {k: v.tolist() for k, v in parse_assignments(list(texts), **kw).items()}


@pytest.mark.parametrize("text,expected", [
    ("x=1", {"x": 1.0}),
    ("x = -2.5", {"x": -2.5}),
    ("x=[1,1,1]", {"x": [1.0, 1.0, 1.0]}),
    ("A=[[1,2],[3,4]]", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("x=ones(3)", {"x": [1.0, 1.0, 1.0]}),
    ("z=zeros(2, 3)", {"z": [[0.0] * 3] * 2}),
    ("a=1, b=[2,3]", {"a": 1.0, "b": [2.0, 3.0]}),
    ("a=1, b=ones(2, 1), c=[[1, 2]]", {"a": 1.0, "b": [[1.0], [1.0]], "c": [[1.0, 2.0]]}),
    ("x=2*pi", {"x": 2 * math.pi}),
    ("x=E", {"x": math.e}),
    ("x=1/3", {"x": 1 / 3}),
    ("x=1e-3", {"x": 0.001}),
    ("x=2**-1", {"x": 0.5}),
    ("x=-inf", {"x": -math.inf}),
    ("x=0.5*ones(2) + [1, 2]", {"x": [1.5, 2.5]}),
    ("x=[-1, 2*3, pi/pi]", {"x": [-1.0, 6.0, 1.0]}),
    ("x=1_000", {"x": 1000.0}),
    ("x＝［１，２］", {"x": [1.0, 2.0]}),
    ("x=[1，2]", {"x": [1.0, 2.0]}),
    ("x=−1", {"x": -1.0}),
    ("x=2²", {"x": 4.0}),
    ("x=[1,2,],", {"x": [1.0, 2.0]}),
])
def test_assignments(text, expected):
    assert at(text) == expected


def test_results_are_float64_arrays():
    values = parse_assignments(["a=1, b=[1, 2], c=ones(2, 2)"])
    assert all(v.dtype == np.float64 for v in values.values())
    assert values["a"].shape == () and values["b"].shape == (2,) and values["c"].shape == (2, 2)


def test_nan():
    assert math.isnan(parse_assignments(["x=nan"])["x"])


def test_several_texts_and_a_single_string():
    assert at("a=1", "b=2") == {"a": 1.0, "b": 2.0}
    assert {k: v.tolist() for k, v in parse_assignments("a=1, b=2").items()} == {"a": 1.0, "b": 2.0}


def test_parse_value():
    assert parse_value("[0.1, 1.0, 0.001]").tolist() == [0.1, 1.0, 0.001]
    assert parse_value("[[2,4]]").shape == (1, 2)
    assert parse_value("3").shape == ()
    for text in ["-inf", "-1", "+2", "-(1)", "2*3", "pi"]:
        assert isinstance(parse_value(text), np.ndarray) and parse_value(text).shape == ()


@pytest.mark.parametrize("texts,fragment", [
    (["x=[1,[2]]"], "--at 'x=[1,[2]]': ragged array"),
    (["x=[[1,2],[3]]"], "ragged array"),
    (["x=[]"], "empty array"),
    (["x=[[]]"], "empty array"),
    (["x=True"], "True is not a number"),
    (["x=1e999"], "overflows float64"),
    (["x=10**10**10"], "overflows float64"),
    (["x=" + "9" * 30 + "**20"], "overflows float64"),
    (["x=1/0"], "division by zero"),
    (["x=inf-inf"], "invalid operation"),
    (["x=(-8)**(1/3)"], "invalid operation"),
    (["x=1", "x=2"], "'x' is given more than once"),
    (["x=1, x=2"], "'x' is given more than once"),
    (["_x=1"], "names starting with '_' are not allowed"),
    (["__ｉｍｐｏｒｔ__=1"], "names starting with '_' are not allowed"),
    (["x y=1"], "is not a name"),
    (["\u0445=1"], "U+0445"),
    (["pi=3"], "'pi' is a constant"),
    (["x"], "expected NAME=VALUE"),
    (["x==1"], "expected NAME=VALUE"),
    ([""], "expected NAME=VALUE"),
    (["x="], "the value is missing"),
    (["x=y"], "unknown name 'y'"),
    (["x=open('f')"], "'open(\\'f\\')' is not allowed"),
    (["x=__import__('os')"], "is not allowed"),
    (["x=a.b"], "is not allowed in a value"),
    (["x='s'"], "is not a number"),
    (["x=1j"], "is not a number"),
    (["x=(1, 2)"], "is not allowed in a value"),
    (["x=[i for i in y]"], "is not allowed in a value"),
    (["x=1 % 2"], "is not allowed in a value"),
    (["x=0x10"], "write numbers in decimal"),
    (["x=ones(2.5)"], "positive whole numbers"),
    (["x=ones(0)"], "positive whole numbers"),
    (["x=ones([2])"], "positive whole numbers"),
    (["x=ones(n=2)"], "the only calls in a value"),
    (["x=ones(1, 2, 3)"], "the only calls in a value"),
    (["x=ones(1e9)"], "more than 10,000,000 elements"),
    (["x=ones(100000, 100000)"], "more than 10,000,000 elements"),
    (["x=[1,2]+[1,2,3]"], "shapes (2,) and (3,) do not match"),
    (["x=1 y=2"], "syntax error"),
    (["x=(1"], "syntax error"),
    (["x=1" + "1" * 40], "more than 30 digits"),
    (["x=\u202e1"], "U+202E"),
    (["x=\x1b[31m1"], "U+001B"),
])
def test_bad_values(texts, fragment):
    with pytest.raises(GradcalcError) as info:
        parse_assignments(texts)
    assert fragment in info.value.message
    assert info.value.kind == "value"
    assert info.value.message.startswith("--at '")
    assert "\x1b" not in info.value.message and "\u202e" not in info.value.message


def test_option_name_in_messages():
    with pytest.raises(GradcalcError, match="^--weights '\\[1,\\[2\\]\\]': ragged array"):
        parse_value("[1,[2]]")
    with pytest.raises(GradcalcError, match="^--expect"):
        parse_assignments(["y=[]"], option="--expect")


def test_limits():
    with pytest.raises(LimitError, match="the limit is 10"):
        parse_value("[1, 2, 3, 4, 5]", limits=Limits(max_source_chars=10))
    with pytest.raises(GradcalcError, match="more than 3 elements"):
        parse_value("ones(4)", limits=Limits(max_array_elements=3))
    with pytest.raises(GradcalcError, match="more than 3 elements"):
        parse_value("[1, 2, 3, 4]", limits=Limits(max_array_elements=3))
    start = time.perf_counter()
    for text in ["[" * 10_000 + "1" + "]" * 10_000, "-" * 50_000 + "1", "**".join(["2"] * 30_000)]:
        with pytest.raises(GradcalcError, match="nested"):
            parse_value(text)
    assert time.perf_counter() - start < BACKSTOP_SECONDS  # a hang, not a slow machine


def test_long_vector_is_fine():
    value = parse_value("[" + ", ".join(["1.5"] * 20_000) + "]")
    assert value.shape == (20_000,)


def test_value_from_data():
    assert value_from_data([[1, 2], [3, 4]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert value_from_data(2).shape == ()
    assert value_from_data("ones(2)").tolist() == [1.0, 1.0]
    for data, fragment in [([1, [2]], "ragged"), ([], "empty array"), ([True], "not a number"),
                           (10**400, "overflows"), ({"a": 1}, "not a number"),
                           ([None], "not a number")]:
        with pytest.raises(GradcalcError, match=fragment):
            value_from_data(data)
    deep: list = [1.0]
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(GradcalcError, match="nested deeper"):
        value_from_data(deep)


@settings(max_examples=examples(300), deadline=None)
@given(st.text())
def test_arbitrary_text_gives_values_or_gradcalc_error(text):
    for parse in (lambda t: parse_assignments([t]), parse_value):
        try:
            result = parse(text)
        except GradcalcError as e:
            # one line that quotes the option or value it refuses
            assert e.message and "\n" not in e.message, e.message
            assert e.kind in ("input", "value", "usage", "limit", "parse"), e.kind
        else:
            # float64 values that read back the same from the same text
            arrays = list(result.values()) if isinstance(result, dict) else [result]
            assert all(a.dtype == np.float64 for a in arrays)
            again = parse(text)
            again = list(again.values()) if isinstance(again, dict) else [again]
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(arrays, again))
