"""Line coverage in the dynamic stage: which lines ran, and what each finding then says."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest

from compilelint.catalog import load_catalog
from compilelint.dynamic.runner import LineCoverage
from compilelint.merge import (
    COV_EAGER,
    COV_NOT_REACHED,
    COV_TRACED,
    LIB_NOT_TRACED,
    merge_findings,
    refuted,
)
from compilelint.model import Finding, Frame, Report, Summary
from compilelint.report.json_reporter import report_dict
from compilelint.report.sarif_reporter import render as render_sarif

from .report_blocks import extra_block

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "coverage"
CAT = load_catalog()


def _static(path: Path, line: int, rule: str = "CL103") -> Finding:
    r = CAT.rules[rule]
    return Finding(
        rule=rule,
        name=r.name,
        path=str(path),
        line=line,
        col=1,
        end_line=line,
        end_col=2,
        severity=r.severity,
        message="predicted",
        fix="",
    )


def test_line_coverage_records_only_the_covered_files(tmp_path: Path) -> None:
    mod = tmp_path / "covmod.py"
    mod.write_text(
        "def f(flag):\n    x = 1\n    if flag:\n        x = 2\n    return x\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import covmod  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    cov = LineCoverage([str(mod)])
    old = sys.gettrace()
    with cov.tracing():
        covmod.f(False)
        json.dumps({"other": "file"})  # stdlib frames are not recorded
    assert sys.gettrace() is old
    assert cov.as_json() == {os.path.realpath(mod): [1, 2, 3, 5]}
    folder = LineCoverage([str(tmp_path)])
    with folder.tracing():
        covmod.f(True)
    assert folder.as_json() == {os.path.realpath(mod): [1, 2, 3, 4, 5]}


def test_line_coverage_skips_environments_inside_a_folder(tmp_path: Path) -> None:
    env = tmp_path / ".venv" / "lib" / "site-packages" / "pkg.py"
    env.parent.mkdir(parents=True)
    env.write_text("x = 1\n", encoding="utf-8")
    cov = LineCoverage([str(tmp_path)])
    assert cov._covered(str(env)) is None
    assert cov._covered(str(tmp_path / "model.py")) == os.path.realpath(tmp_path / "model.py")


def test_merge_with_coverage_says_not_reached_traced_or_eager(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "def forward(x):\n"  # 1
        "    h = x + 1\n"  # 2
        "    if h.sum() > 0:\n"  # 3
        "        h = h * 2\n"  # 4
        "    return h\n"  # 5
        "\n"  # 6
        "def helper(x):\n"  # 7
        "    return x.item()\n",  # 8
        encoding="utf-8",
    )
    findings = [_static(src, 3, "CL101"), _static(src, 4), _static(src, 8)]
    rp = os.path.realpath(src)
    out = merge_findings(
        findings,
        (),
        (),
        CAT,
        root=str(tmp_path),
        reached={rp: frozenset({2})},  # torch put line 2 of forward into a graph
        covered={rp: frozenset({1, 2, 3, 5, 7, 8})},
    )
    traced, unreached, eager = out
    assert traced.message.endswith(COV_TRACED) and traced.reached is True
    assert traced.observed is False
    assert unreached.message.endswith(COV_NOT_REACHED) and unreached.reached is False
    assert eager.message.endswith(COV_EAGER) and eager.reached is True
    assert eager.observed is None
    # Without coverage the older wording stays and ``reached`` is unknown.
    [old] = merge_findings([_static(src, 8)], (), (), CAT, root=str(tmp_path), reached={})
    assert old.reached is None and "not reached by the dynamic run" in old.message


def test_library_findings_follow_the_library_function_torch_traced(tmp_path: Path) -> None:
    """A finding in a library, anchored at the user's call: torch tracing the user's forward
    says nothing about it; torch tracing the library function that holds the line refutes it."""
    user = tmp_path / "m.py"
    user.write_text("def forward(x):\n    return lib.step(x)\n", encoding="utf-8")
    lib = tmp_path / "site" / "lib.py"
    lib.parent.mkdir()
    lib.write_text(
        "def step(x):\n"  # 1
        "    y = x * 2\n"  # 2
        "    if y.sum() > 0:\n"  # 3
        "        return y\n"  # 4
        "    return x\n"  # 5
        "\n"  # 6
        "def other(x):\n"  # 7
        "    return x.item()\n",  # 8
        encoding="utf-8",
    )

    def lib_finding(line: int, rule: str) -> Finding:
        return dataclasses.replace(
            _static(user, 2, rule),
            package="lib==1.0",
            frames=(Frame(str(user), 2, "forward"), Frame(str(lib), line, "step")),
        )

    ur, lr = os.path.realpath(user), os.path.realpath(lib)
    findings = [lib_finding(3, "CL101"), lib_finding(8, "CL103")]
    traced, untraced = merge_findings(
        findings,
        (),
        (),
        CAT,
        root=str(tmp_path),
        reached={ur: frozenset({2}), lr: frozenset({2})},  # forward and lib.step in graphs
        covered={ur: frozenset({1, 2})},
    )
    assert traced.message.endswith(COV_TRACED) and refuted(traced)
    assert untraced.message.endswith(LIB_NOT_TRACED) and not refuted(untraced)
    assert untraced.observed is None


def test_json_and_sarif_carry_reached() -> None:
    f = dataclasses.replace(_static(DATA / "gated.py", 14), reached=False)
    g = _static(DATA / "gated.py", 12)
    rep = Report("0", None, (f, g), (), Summary(1, 10, 2, {}, 0.0))
    js = report_dict(rep)["findings"]
    assert js[0]["reached"] is False and "reached" not in js[1]  # type: ignore[index,operator]
    sarif = json.loads(render_sarif(rep, CAT, {}))
    props = [r["properties"] for r in sarif["runs"][0]["results"]]
    assert props[0]["reached"] is False and "reached" not in props[1]


@pytest.mark.torch
def test_check_with_coverage_marks_unreached_and_refuted_findings() -> None:
    pytest.importorskip("torch")
    from compilelint.api import check
    from compilelint.dynamic.cli import add_dynamic_to_report

    gated = DATA / "gated.py"
    rep = check([str(gated)])
    assert any(f.rule == "CL103" and f.line == 14 for f in rep.findings)
    out = add_dynamic_to_report(
        rep, str(DATA / "gated.json"), cwd=str(DATA), timeout=300, cover=[str(gated)]
    )
    assert extra_block(out, "dynamic")["error"] is None
    [item] = [f for f in out.findings if f.rule == "CL103"]
    assert item.reached is False and item.message.endswith(COV_NOT_REACHED)

    # `.item()` with capture_scalar_outputs: the line runs and torch traces it, no break.
    fix = ROOT / "fixtures" / "dynamic"
    rep = check([str(fix / "item_call.py")])
    out = add_dynamic_to_report(
        rep,
        str(fix / "item_call_capture.json"),
        cwd=str(ROOT),
        timeout=300,
        cover=[str(fix / "item_call.py")],
        show_refuted=True,
    )
    [item] = [f for f in out.findings if f.rule == "CL103"]
    assert item.reached is True and item.message.endswith(COV_TRACED)
    # By default a refuted prediction is left out, and the run's summary counts it.
    hidden = add_dynamic_to_report(
        rep,
        str(fix / "item_call_capture.json"),
        cwd=str(ROOT),
        timeout=300,
        cover=[str(fix / "item_call.py")],
    )
    assert not [f for f in hidden.findings if f.rule == "CL103"]
    assert extra_block(hidden, "dynamic")["refuted"] == 1
    # --no-coverage: no eager pass, the older wording.
    out = add_dynamic_to_report(
        rep,
        str(fix / "item_call_capture.json"),
        cwd=str(ROOT),
        timeout=300,
        cover=None,
        show_refuted=True,
    )
    [item] = [f for f in out.findings if f.rule == "CL103"]
    assert item.reached is None and not item.message.endswith(COV_TRACED)


def test_traced_lines_of_files_outside_the_project_are_recorded(tmp_path: Path) -> None:
    """An installed package's model file is scanned from outside the project: the lines torch
    traced in it count (else its findings all read "ran eagerly"); torch's own frames do not."""
    pytest.importorskip("torch")
    import torch

    from compilelint.dynamic.runner import GraphCollector

    proj = tmp_path / "proj"
    proj.mkdir()
    gc = GraphCollector(str(proj))
    tdir = os.path.dirname(os.path.realpath(torch.__file__))
    site = str(tmp_path / "site" / "pkg" / "modeling.py")
    stack = (
        f'  File "{proj}/model.py", line 7, in forward\n    y = f(x)\n'
        f'  File "{site}", line 42, in f\n    return x * 2\n'
        f'  File "{tdir}/nn/functional.py", line 99, in relu\n'
    )
    outer = gc._note_lines(stack)
    assert outer == (f"{proj}/model.py", 7, "forward")
    assert gc.lines == {f"{proj}/model.py": {7}, site: {42}}


def test_only_refuted_breaks_are_left_out(tmp_path: Path) -> None:
    """A run that traced a function without a predicted break refutes it (left out by default);
    a predicted recompile it did not see is kept: the spec may not call the model twice."""
    from compilelint.dynamic.api import DynamicResult
    from compilelint.dynamic.cli import add_dynamic_to_report

    src = tmp_path / "m.py"
    src.write_text(
        "def forward(self, x):\n    self.n += 1\n    return x.item()\n", encoding="utf-8"
    )
    findings = (_static(src, 3, "CL103"), _static(src, 2, "CL501"))
    rep = Report("0", None, findings, (), Summary(1, 3, 2, {}, 0.0))
    res = DynamicResult(
        block={"graph_count": 1, "graph_break_count": 0, "recompile_count": 0},
        reached={os.path.realpath(src): frozenset({3})},
        root=str(tmp_path),
        raw={"ran": True},
    )
    out = add_dynamic_to_report(rep, "spec.json", cwd=str(tmp_path), result=res)
    assert [f.rule for f in out.findings] == ["CL501"]
    assert extra_block(out, "dynamic")["refuted"] == 1
    kept = add_dynamic_to_report(rep, "spec.json", cwd=str(tmp_path), result=res, show_refuted=True)
    assert sorted(f.rule for f in kept.findings) == ["CL103", "CL501"]
