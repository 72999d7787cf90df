"""The Python API: ``compilelint.check`` is what the CLI renders; importing stays cheap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import compilelint
from compilelint.cli import main
from compilelint.config import Config, ConfigError
from compilelint.report.json_reporter import report_dict

ROOT = Path(__file__).resolve().parent.parent
FIX = "fixtures/dynamic"
BAD = textwrap.dedent(
    """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            return x.max().item()
    """
)


def cli_json(args: list[str], cwd: Path) -> dict:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, [*args, "--format", "json"], catch_exceptions=False)
    finally:
        os.chdir(old)
    return json.loads(res.stdout)


def comparable(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    data["summary"].pop("seconds")
    if isinstance(data.get("dynamic"), dict):
        data["dynamic"].pop("seconds")
        data["dynamic"].pop("import_seconds", None)
        data["dynamic"].pop("phases")
    return data


def test_import_is_cheap_and_torch_free() -> None:
    code = (
        "import sys, compilelint; "
        "heavy = [m for m in ('torch', 'libcst', 'rich', 'click', 'compilelint.static.engine') "
        "if m in sys.modules]; "
        "print(heavy); "
        "assert callable(compilelint.check) and callable(compilelint.assert_compiles); "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["[]", "False"]


def test_check_is_what_the_cli_renders(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = compilelint.check(".", no_cache=True)
        also = compilelint.check(["bad.py"], config=Config(select=("CL103",)), no_cache=True)
    finally:
        os.chdir(old)
    assert isinstance(report, compilelint.Report)
    assert [(f.rule, f.line) for f in report.findings] == [("CL101", 6), ("CL103", 8)]
    assert comparable(report_dict(report)) == comparable(cli_json(["check", "."], tmp_path))
    assert [f.rule for f in also.findings] == ["CL103"]


def test_config_as_pyproject_path_and_baseline(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    cfg = tmp_path / "conf.toml"
    cfg.write_text('[tool.compilelint]\nignore = ["CL101"]\n', encoding="utf-8")
    report = compilelint.check(tmp_path / "bad.py", config=cfg, no_cache=True)
    assert [f.rule for f in report.findings] == ["CL103"]
    with pytest.raises(ConfigError, match="config file not found"):
        compilelint.check(tmp_path, config=tmp_path / "nope.toml")
    # a missing baseline is a usage error in the report, not an exception
    report = compilelint.check(tmp_path / "bad.py", baseline=str(tmp_path / "none.json"))
    assert [e.kind for e in report.errors] == ["usage"]
    assert "baseline file not found" in report.errors[0].message


@pytest.mark.torch
def test_check_with_spec_runs_the_dynamic_stage_like_the_cli() -> None:
    pytest.importorskip("torch")
    model = f"{FIX}/tensor_if.py:Net"  # a spec dict's paths are relative to the current folder
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        report = compilelint.check(
            f"{FIX}/tensor_if.py", spec=f"{FIX}/tensor_if.json", no_cache=True
        )
        as_dict = compilelint.check(
            f"{FIX}/tensor_if.py",
            spec={**json.loads((ROOT / FIX / "tensor_if.json").read_text()), "model": model},
            max_graph_breaks=0,
            no_cache=True,
        )
    finally:
        os.chdir(old)
    [f] = report.findings
    assert (f.rule, f.stage, f.gb_id, f.line) == ("CL101", "both", "GB0170", 12)
    cli = cli_json(
        ["check", f"{FIX}/tensor_if.py", "--input-spec", f"{FIX}/tensor_if.json", "--no-cache"],
        ROOT,
    )
    assert comparable(report_dict(report)) == comparable(cli)
    # a spec given as a dict; budgets through the API
    assert [f.stage for f in as_dict.findings] == ["both"]
    assert [e.kind for e in as_dict.errors] == ["budget"]
