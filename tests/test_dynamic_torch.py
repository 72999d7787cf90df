"""The dynamic stage on the installed torch: live runs, failures as data, and the report hook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compilelint.dynamic.api import run_dynamic

from .report_blocks import extra_block

pytestmark = pytest.mark.torch
ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "dynamic"


@pytest.fixture(autouse=True)
def _need_torch() -> None:
    pytest.importorskip("torch")


def test_live_break_count_equals_torch_logs() -> None:
    from tests.test_dynamic_recorded import torch_logs_breaks

    for name in ("print_call", "loop_break", "third_party"):
        res = run_dynamic(str(FIX / f"{name}.json"), cwd=str(ROOT), timeout=300)
        assert res.ok, res.error
        keys = sorted(
            [b.gb_type, os.path.relpath(b.loc_path, ROOT), b.loc_line] for b in res.breaks
        )
        assert keys == torch_logs_breaks(str(FIX / f"{name}.json"))
        assert res.block["graph_break_count"] == len(keys)


def test_third_party_break_attributed_to_package_and_call_site() -> None:
    res = run_dynamic(str(FIX / "third_party.json"), cwd=str(ROOT), timeout=300)
    [b] = res.block["breaks"]
    assert b["package"] == "fakepkg"
    assert (b["path"], b["line"]) == ("fixtures/dynamic/third_party.py", 18)


@pytest.mark.parametrize(
    ("name", "step", "text"),
    [
        ("RaisesInInit", "init", "bad config"),
        ("RaisesInForward", "forward", "RuntimeError"),
        ("CallsExit", "forward", "sys.exit(3)"),
        ("Crashes", "run", "signal"),
        ("import_error", "import model", "not_a_real_module_xyz"),
    ],
)
def test_broken_models_become_errors(name: str, step: str, text: str) -> None:
    res = run_dynamic(str(FIX / "errors" / f"{name}.json"), cwd=str(ROOT), timeout=120)
    assert res.error is not None
    assert res.error["step"] == step and text in res.error["message"]


def test_hang_times_out() -> None:
    res = run_dynamic(str(FIX / "errors" / "Hangs.json"), cwd=str(ROOT), timeout=6)
    assert res.error and res.error["type"] == "Timeout"


def test_add_dynamic_to_report_keeps_static_and_ranks() -> None:
    from compilelint.api import check
    from compilelint.dynamic.cli import add_dynamic_to_report

    rep = check([str(FIX / "tensor_if.py")])
    out = add_dynamic_to_report(rep, str(FIX / "tensor_if.json"), cwd=str(ROOT), timeout=300)
    dyn = extra_block(out, "dynamic")
    assert dyn["error"] is None and dyn["graph_break_count"] == 1
    assert out.findings[0].rank == 1 and out.findings[0].stage == "both"
    bad = add_dynamic_to_report(
        rep, str(FIX / "errors" / "RaisesInInit.json"), cwd=str(ROOT), timeout=120
    )
    assert extra_block(bad, "dynamic")["error"]["step"] == "init"
    assert len(bad.findings) == len(rep.findings)
    assert any(e.kind == "dynamic" for e in bad.errors)
