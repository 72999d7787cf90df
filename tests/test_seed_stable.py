"""A local that joins two submodule attributes (``blocks = self.a if c else self.b``) calls the
classes both hold: the analysis once picked one attribute from the join's set, so which class's
``forward`` it followed depended on the interpreter's hash seed (reformer-pytorch's
``ReversibleSequence``). Checked in fresh processes under several seeds, and against torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = """\
import torch
from torch import nn


class Rev(nn.Module):
    def forward(self, x):
        print("rev")
        return x * 2


class Irrev(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Rev() for _ in range(2)])
        self.irrev_blocks = nn.ModuleList([Irrev() for _ in range(2)])

    def forward(self, x):
        reverse = x.shape[1] > 2
        blocks = self.blocks if reverse else self.irrev_blocks
        for block in blocks:
            x = block(x)
        return x
"""
LINES = SRC.splitlines()
PRINT = LINES.index('        print("rev")') + 1  # Rev's print
BRANCH = LINES.index("        if x.sum() > 0:") + 1  # Irrev's tensor branch


def _lines(tmp_path: Path, seed: int) -> set[int]:
    """Library mode's finding lines on ``seedpkg`` (entry ``seedpkg.Seq.*``) in a fresh process
    under hash seed ``seed``."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    src = Path(__file__).resolve().parents[1] / "src"
    env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "compilelint", "check", "seedpkg", "--no-cache", "--no-follow"]
    cmd += ["--config", "pyproject.toml", "--format", "json", "--fail-on", "never"]
    out = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    return {f["line"] for f in json.loads(out.stdout)["findings"] if f["path"].endswith("model.py")}


def test_both_classes_under_every_seed(tmp_path: Path) -> None:
    # (before: seeds 0, 2, 3, 5 found only the print, 1 and 4 only the branch)
    pkg = tmp_path / "seedpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .model import Seq\n", encoding="utf-8")
    (pkg / "model.py").write_text(SRC, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.compilelint]\nentries = ["seedpkg.Seq.*"]\n', encoding="utf-8"
    )
    got = {seed: _lines(tmp_path, seed) for seed in range(6)}
    assert all({PRINT, BRANCH} <= lines for lines in got.values()), got


@pytest.mark.torch
@pytest.mark.parametrize(("width", "which"), [(4, "print"), (2, "branch")])
def test_torch_breaks_in_the_class_the_branch_takes(
    monkeypatch: pytest.MonkeyPatch, width: int, which: str
) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import in_memory_package, logged_break_lines

    pkg = in_memory_package(monkeypatch, "seedpkg", {"_m": SRC})
    model = pkg._m.Seq()
    line = PRINT if which == "print" else BRANCH
    assert line in logged_break_lines(model, torch.randn(3, width), "seed_m")
