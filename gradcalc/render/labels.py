"""How a derivative is named in every view (∂y/∂x, wᵀ·∂y/∂x, ∂²f/∂a∂b): one place, below
both the terminal table and the explanations that use it."""

from __future__ import annotations

from typing import Any


def derivative_label(result: Any, name: str) -> str:
    y = result.output_name
    if result.command == "hessian":
        a, _, b = name.partition(",")
        return f"∂²{y}/∂{a}∂{b or a}"
    if result.command == "jacobian":
        return f"∂{y}/∂{name}"
    if result.weights is not None:
        return f"wᵀ·∂{y}/∂{name}"
    return f"∂{y}/∂{name}"
