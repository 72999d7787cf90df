"""Shared test helpers: expectations are inline `# error: CLnnn` markers in the sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"#\s*error:\s*((?:CL\d{3}[\s,]*)+)")


def expected_markers(source: str) -> list[tuple[int, str]]:
    """(line, code) for every `# error: CLnnn[, CLmmm]` marker."""
    out: list[tuple[int, str]] = []
    for i, line in enumerate(source.splitlines(), 1):
        m = MARKER.search(line)
        if m:
            for code in re.findall(r"CL\d{3}", m.group(1)):
                out.append((i, code))
    return sorted(out)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="rewrite golden files from current output"
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))
