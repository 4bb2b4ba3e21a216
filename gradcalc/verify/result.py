"""What a check says: pass, fail or skipped, by which method, and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CheckResult:
    status: str  # 'pass' | 'fail' | 'skipped'
    method: str  # 'symbolic' | 'finite-difference' | 'none'
    max_abs_error: float | None
    detail: str | None


def skipped_check() -> CheckResult:
    return CheckResult("skipped", "none", None, "check disabled with --no-check")
