"""What the Gradescope tests share: results.json checked against every field of
Gradescope's autograder specification ("Output format": the submission's fields, and each
test's), with their types and the values they allow."""

from __future__ import annotations

#: results.json's fields in Gradescope's autograder specification ("Output format"), and
#: their types; `execution_time` (the clock's) and `leaderboard` (a ranking) left out
RESULTS_FIELDS = {"score": float, "max_score": float, "output": str, "output_format": str,
                  "test_output_format": str, "test_name_format": str, "visibility": str,
                  "stdout_visibility": str, "extra_data": dict, "tests": list}
TEST_FIELDS = {"name": str, "name_format": str, "number": str, "score": float,
               "max_score": float, "status": str, "output": str, "output_format": str,
               "tags": list, "visibility": str, "extra_data": dict}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def check_results_json(data: dict) -> None:
    """Every field the specification names (but the two left out), each of its type and
    within the values it allows."""
    assert {k: type(v) for k, v in data.items()} == RESULTS_FIELDS, data
    assert {data["output_format"], data["test_output_format"], data["test_name_format"]} \
        <= FORMATS
    assert {data["visibility"], data["stdout_visibility"]} <= VISIBILITIES
    for t in data["tests"]:
        assert {k: type(v) for k, v in t.items()} == TEST_FIELDS, t
        assert t["status"] in ("passed", "failed") and 0 <= t["score"] <= t["max_score"]
        assert {t["name_format"], t["output_format"]} <= FORMATS
        assert t["visibility"] in VISIBILITIES and all(isinstance(g, str) for g in t["tags"])
