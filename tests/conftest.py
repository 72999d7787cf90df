"""Shared test helpers: expectations are inline `# error: CLnnn` markers in the sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the factories' tests (``case_tests``) assert in the helper module: show their diffs too
pytest.register_assert_rewrite("tests.pred_helpers")
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that runs torch is also ``slow``: the inner loop (``pytest -m "not slow"``)
    is the static stage, the reports and the CLI; ``.ci/run`` runs everything."""
    for item in items:
        if item.get_closest_marker("torch") is not None:
            item.add_marker(pytest.mark.slow)
