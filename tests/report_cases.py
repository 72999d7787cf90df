"""Reports the reporter tests render: the demo (static; and with a recorded dynamic run) and a
hand-made report with everything a reporter must escape, autofix edits and errors.

Everything that varies between runs or machines is pinned here (version, timings, the root
folder), so golden files are stable. Re-record the dynamic run with
``pytest tests/test_reports.py --update-goldens`` on a machine with torch.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from compilelint.api import check
from compilelint.catalog import load_catalog
from compilelint.config import load_config
from compilelint.model import Edit, FileError, Finding, Frame, Report, Summary

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
DEMO_RAW = DATA / "demo_dynamic_raw.json"
VERSION = "0.0.0-test"


def _pin(report: Report) -> Report:
    extra = json.loads(json.dumps(report.extra))
    dyn = extra.get("dynamic")
    if isinstance(dyn, dict):
        dyn["seconds"] = 1.0
        for p in dyn.get("phases") or []:
            p["seconds"] = 0.5
    return dataclasses.replace(
        report,
        version=VERSION,
        summary=dataclasses.replace(report.summary, seconds=0.01, cached=0),
        extra=extra,
    )


def demo_static() -> Report:
    """`compilelint check fixtures/demo/` from the repository root."""
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        paths = ["fixtures/demo/"]
        return _pin(check(paths, load_config(paths), no_cache=True))
    finally:
        os.chdir(old)


def demo_dynamic() -> Report:
    """The demo with the recorded dynamic run (tests/data/demo_dynamic_raw.json) merged in."""
    from compilelint.dynamic.api import build_result
    from compilelint.dynamic.cli import add_dynamic_to_report

    raw: dict[str, Any] = json.loads(DEMO_RAW.read_text(encoding="utf-8"))
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        static = demo_static()
        res = build_result(raw, str(ROOT))
        report = add_dynamic_to_report(
            static,
            "fixtures/demo/spec.json",
            cwd=str(ROOT),
            progress=False,
            catalog=load_catalog(),
            result=res,
        )
        return _pin(report)
    finally:
        os.chdir(old)


NASTY = "100% <script>alert(1)</script> | a:b, c\r\nsecond line"


def handmade() -> Report:
    """Escaping, multi-line spans, autofix edits, dynamic fields and errors, by hand."""
    findings = (
        Finding(
            rule="CL101",
            name="tensor-dependent-branch",
            path="src/we,ird:name.py",
            line=12,
            col=9,
            end_line=12,
            end_col=30,
            severity="error",
            message=f"Branch on `x.sum() > 0` {NASTY}",
            fix="Use `torch.where` <b>now</b>",
            stage="both",
            function="Net.forward",
            line_text="        if x.sum() > 0:  # <script>",
            gb_type="Data-dependent branching",
            gb_id="GB0170",
            hints=("Use `torch.cond` | or <i>where</i>",),
            count=3,
            frames=(
                Frame("src/we,ird:name.py", 40, "<module>"),
                Frame("src/we,ird:name.py", 12, "forward"),
            ),
            rank=1,
            impact=130.0,
            observed=True,
            edits=(
                Edit("src/we,ird:name.py", 12, 9, 12, 30, "torch.where(x.sum() > 0, a, b)"),
                Edit("src/we,ird:name.py", 13, 1, 14, 1, ""),
            ),
        ),
        Finding(
            rule="CL003",
            name="observed-recompile",
            path="models/net.py",
            line=5,
            col=5,
            end_line=7,
            end_col=12,
            severity="warning",
            message="`forward` recompiled 2 time(s): guard `self.step == 3` failed",
            fix="Keep the counter in a tensor buffer",
            stage="dynamic",
            function="Net.forward",
            line_text="    def forward(self, x):",
            count=2,
            rank=2,
            impact=48.0,
            observed=True,
        ),
        Finding(
            rule="CL402",
            name="regional-compilation",
            path="models/net.py",
            line=30,
            col=1,
            end_line=30,
            end_col=1,
            severity="info",
            message="Compile the block instead",
            fix="",
            stage="static",
            function="",
            line_text="compiled = torch.compile(model)",
            rank=3,
            observed=False,
        ),
    )
    errors = (
        FileError(
            path="broken.py", message="cannot parse: unexpected <EOF> | at 3:1", kind="error"
        ),
        FileError(
            path="spec.json", message="dynamic stage failed at import model: boom", kind="dynamic"
        ),
    )
    return Report(
        version=VERSION,
        torch="2.13.0",
        findings=findings,
        errors=errors,
        summary=Summary(
            files=3,
            lines=120,
            findings=3,
            by_rule={"CL003": 1, "CL101": 1, "CL402": 1},
            seconds=0.01,
        ),
    )


def many(n_error: int, n_warning: int, n_info: int) -> Report:
    """A report with many findings of each severity, ranked error first."""
    fs: list[Finding] = []
    rank = 0
    for sev, n, rule in (
        ("error", n_error, "CL101"),
        ("warning", n_warning, "CL208"),
        ("info", n_info, "CL402"),
    ):
        for i in range(n):
            rank += 1
            fs.append(
                Finding(
                    rule=rule,
                    name="r",
                    path=f"m_{sev}.py",
                    line=i + 1,
                    col=1,
                    end_line=i + 1,
                    end_col=5,
                    severity=sev,  # type: ignore[arg-type]
                    message=f"{sev} {i}",
                    fix="",
                    line_text=f"line {i}",
                    rank=rank,
                )
            )
    return Report(
        version=VERSION,
        torch=None,
        findings=tuple(fs),
        errors=(),
        summary=Summary(files=3, lines=100, findings=len(fs), by_rule={}, seconds=0.01),
    )


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))  # byte-exact: no newline translation
        return
    assert path.exists(), f"missing golden {path}; run pytest --update-goldens"
    expected = path.read_bytes().decode("utf-8")
    assert text == expected, f"{name} differs from its golden file; run pytest --update-goldens"
