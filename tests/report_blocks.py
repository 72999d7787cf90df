"""A block of a report's ``extra`` (``dynamic``, ``prediction``, ``budgets``) read as the
plain data it is, for the tests that index into it."""

from __future__ import annotations

from typing import Any

from compilelint.model import Report


def extra_block(report: Report, key: str) -> dict[str, Any]:
    """``report.extra[key]``, which is a dict."""
    block = report.extra[key]
    assert isinstance(block, dict), block
    return block
