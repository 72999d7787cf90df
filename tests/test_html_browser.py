"""The HTML report in a real headless browser (Debian's ``chromium``).

The page must render the findings and the model-cut picture, run its script, and log nothing to
the console (no script errors, no blocked fetches). Skips when chromium is not installed, except
under ``COMPILELINT_REQUIRE_CHROMIUM=1`` (set by .ci/run), where a missing browser fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compilelint.catalog import load_catalog
from compilelint.report import get_reporter

from .report_cases import ROOT, demo_dynamic, handmade

pytestmark = pytest.mark.slow

CONSOLE = re.compile(r":CONSOLE[:(]")


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("COMPILELINT_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is not installed (COMPILELINT_REQUIRE_CHROMIUM=1)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return exe


def open_page(page: Path, tmp_path: Path) -> tuple[str, list[str]]:
    """The DOM after scripts ran, and every console message the page produced."""
    proc = subprocess.run(
        [
            chromium(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [ln for ln in proc.stderr.splitlines() if CONSOLE.search(ln)]
    return proc.stdout, console


def write_report(report_fn, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    text = get_reporter("html")(report_fn(), load_catalog(), {"cwd": str(ROOT), "env": {}})
    page = tmp_path / "report.html"
    page.write_text(text, encoding="utf-8")
    return page


def test_report_renders_with_no_console_messages(tmp_path: Path) -> None:
    dom, console = open_page(write_report(demo_dynamic, tmp_path), tmp_path)
    assert console == []
    assert 'data-ready="1"' in dom  # the inline script ran to its end
    # six: the recompile torch observes at :41 is one confirmed CL303 (round 15)
    assert '<span id="shown">6 of 6 shown</span>' in dom
    assert len(re.findall(r'<article class="finding"', dom)) == 6
    assert "fixtures/demo/transformer.py:40:16" in dom
    assert "<mark>h.abs().max().item()</mark>" in dom
    assert len(re.findall(r'class="graph[^"]*" data-ops=', dom)) == 5
    assert dom.count('class="cutmark"') == 3
    assert 'id="rule-CL101"' in dom


def test_hostile_content_stays_text(tmp_path: Path) -> None:
    dom, console = open_page(write_report(handmade, tmp_path), tmp_path)
    assert console == []  # an injected <script>alert(1)</script> would have run or logged
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "<script>alert(1)</script>" not in dom
    assert '<span id="shown">3 of 3 shown</span>' in dom


def test_console_check_sees_errors_and_blocked_fetches(tmp_path: Path) -> None:
    """The check above can fail: a script error and a blocked network fetch are both seen."""
    text = get_reporter("html")(demo_dynamic(), load_catalog(), {"cwd": str(ROOT), "env": {}})
    broken = text.replace(
        "</body>", '<img src="https://example.com/x.png"><script>nope();</script></body>'
    )
    page = tmp_path / "broken.html"
    page.write_text(broken, encoding="utf-8")
    _, console = open_page(page, tmp_path)
    assert any("nope is not defined" in ln for ln in console), console
    assert any("Content Security Policy" in ln for ln in console), console


def test_bench_section_renders_in_the_report(tmp_path: Path) -> None:
    """`bench --format html`: the recorded H100 results as a section of the report page."""
    import dataclasses
    import json

    bench = json.loads(
        (ROOT / "benchmarks" / "bench_results_h100_torch2.11.json").read_text(encoding="utf-8")
    )["results"]["demo"]

    def with_bench():  # type: ignore[no-untyped-def]
        rep = demo_dynamic()
        return dataclasses.replace(rep, extra={**rep.extra, "bench": bench})

    dom, console = open_page(write_report(with_bench, tmp_path), tmp_path)
    assert console == []
    assert 'data-ready="1"' in dom
    assert '<section class="cl-bench">' in dom
    assert "break at <code>fixtures/demo/transformer.py:41</code>" in dom
    assert "fixing these 2 lines" in dom
    assert dom.index('class="cl-bench"') < dom.index('<article class="finding"')
