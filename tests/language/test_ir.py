"""gradcalc.language.ir: the one walk over a program's nodes."""

from __future__ import annotations

from gradcalc.language.ir import Assign, Binary, Name, Num, Program, Slice, children, walk
from gradcalc.language.parse import parse


def _kinds(nodes) -> list[str]:
    return [type(n).__name__ + (f":{n.id}" if isinstance(n, Name) else "") for n in nodes]


def test_a_walk_visits_each_node_before_its_parts_left_to_right():
    program = parse("a = x + y\nif a > 0:\n    b = z[1:]\nelse:\n    b = w\n")
    assert _kinds(walk(program)) == [
        "Assign", "Binary", "Name:x", "Name:y",
        "If", "Compare", "Name:a", "Num",
        "Assign", "Index", "Name:z", "Slice", "Num",
        "Assign", "Name:w",
    ]


def test_a_walk_starts_at_any_node_and_at_several():
    e = parse("y = sin(x) * 2").body[0].value
    assert isinstance(e, Binary)
    assert _kinds(walk(e)) == ["Binary", "Call", "Name:x", "Num"]
    assert _kinds(walk(e.right, e.left)) == ["Num", "Call", "Name:x"]
    assert children(e) == [e.left, e.right]
    assert isinstance(children(parse("y = v[::2]").body[0].value)[1], Slice)


def test_a_long_program_is_walked_without_recursion():
    deep = Name("x", None)
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = Binary("+", deep, Name("x", None), None)
    assert sum(isinstance(n, Name) for n in walk(deep)) == 5001
    wide = Program(tuple(Assign(f"a{k}", Num(k, None), None) for k in range(20000)))
    assert wide.assigned()[:3] == ["a0", "a1", "a2"]


def test_assigned_names_are_in_order_of_first_appearance():
    program = parse("a = x\nb = a * 2\nfor i in range(3):\n    c = b\na = c\n")
    assert program.assigned() == ["a", "b", "c"]
