"""Hypothesis strategies shared by the homework property tests: random formulas as a
student would type them (`sin(...)`, `(a + b)`, `(a)^2`, optionally `e^(...)`)."""

from __future__ import annotations

from hypothesis import strategies as st


def expressions(unary: list[str], leaves: st.SearchStrategy[str], max_leaves: int,
                exponential: bool = False) -> st.SearchStrategy[str]:
    """Formulas built from `leaves` with the `unary` functions, + - * /, small powers and,
    with `exponential`, 2^(...) and e^(...)."""

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        unary_call = st.tuples(st.sampled_from(unary), inner).map(lambda t: f"{t[0]}({t[1]})")
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")
        power = st.tuples(inner, st.sampled_from(["2", "3", "-1"])).map(
            lambda t: f"({t[0]})^{t[1]}")
        if not exponential:
            return unary_call | binary | power
        raised = st.tuples(st.sampled_from(["2", "e"]), inner).map(
            lambda t: f"{t[0]}^({t[1]})")
        return unary_call | binary | power | raised

    return st.recursive(leaves, extend, max_leaves=max_leaves)
