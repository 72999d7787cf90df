"""Realistic model files in fixtures/ carry their expected findings inline (`# error: CLnnn`).

Each fixture (a file in fixtures/models/, or a whole package folder in fixtures/project/ and
fixtures/demo/) is checked with the default rule set and must give exactly the marked findings.
A first-line comment `# select: CL302,CL4` checks a fixture with a different selection.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compilelint.api import check
from compilelint.config import Config

from .conftest import ROOT, expected_markers

FIX = ROOT / "fixtures"
FILES = sorted((FIX / "models").glob("*.py")) if (FIX / "models").is_dir() else []
FOLDERS = [d for d in (FIX / "project", FIX / "demo") if d.is_dir()]


def _select(source: str) -> tuple[str, ...]:
    m = re.match(r"#\s*select:\s*(.+)", source)
    return tuple(x.strip() for x in m.group(1).split(",")) if m else ()


def _run(paths: list[Path], select: tuple[str, ...]) -> list[tuple[str, int, str]]:
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        report = check(
            [str(p.relative_to(ROOT)) for p in paths], Config(select=select, cache=False)
        )
    finally:
        os.chdir(cwd)
    return sorted((f.path, f.line, f.rule) for f in report.findings)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_model_fixture(path: Path) -> None:
    src = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT).as_posix()
    want = [(rel, line, code) for line, code in expected_markers(src)]
    assert _run([path], _select(src)) == want


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_project_fixture(folder: Path) -> None:
    want: list[tuple[str, int, str]] = []
    for py in sorted(folder.rglob("*.py")):
        rel = py.relative_to(ROOT).as_posix()
        want += [(rel, line, code) for line, code in expected_markers(py.read_text("utf-8"))]
    assert _run([folder], ()) == sorted(want)


def test_fixtures_exist() -> None:
    assert FOLDERS, "fixtures/project and fixtures/demo hold the multi-file fixtures"
