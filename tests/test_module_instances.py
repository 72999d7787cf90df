"""A module instance bound at module level (``model = Net()``) and called inside compiled code:
what its call gives is what the class's ``forward`` returns, per position, when that forward
returns a tuple display (``evaluate._module_forward``). Before, the call was "a tensor" and a
tuple target unpacking it held unknowns, so ``loss, stats = model(x, y); loss.backward()`` in a
compiled training step was not reported (CL504), while torch breaks there.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan

SRC = """\
import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, y):
        logits = self.lin(x)
        loss = F.cross_entropy(logits, y)
        return loss, {"n": 1, "scale": 2.0}


model = Net()


@torch.compile
def step(x):
    y = torch.zeros(x.shape[0], dtype=torch.long)
    loss, stats = model(x, y)
    if stats["n"] > 0:
        loss = loss * stats["scale"]
    loss.backward()
    return loss
"""
BACKWARD = SRC.splitlines().index("    loss.backward()") + 1
STATS_IF = SRC.splitlines().index('    if stats["n"] > 0:') + 1


def _static(tmp_path: Path) -> dict[int, set[str]]:
    (tmp_path / "m.py").write_text(SRC)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = scan(["m.py"], load_config(["m.py"]), no_cache=True)
    finally:
        os.chdir(old)
    out: dict[int, set[str]] = {}
    for f in res.findings:
        out.setdefault(f.line, set()).add(f.rule)
    return out


def test_the_unpacked_loss_is_a_tensor_and_the_dict_is_not(tmp_path: Path) -> None:
    got = _static(tmp_path)
    # VALID: the loss unpacked from the instance's call is a tensor: `.backward()` breaks
    assert "CL504" in got.get(BACKWARD, set())
    # INVALID: the dict beside it holds Python numbers: the `if` on it is not a tensor branch
    assert STATS_IF not in got


@pytest.mark.torch
def test_torch_breaks_at_the_backward_only(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    name = "modinst_step"
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(SRC.replace("@torch.compile\n", ""), f"<{name}>", "exec"), mod.__dict__)
    # the decorator line is removed for the exec'd copy: lines below it move up by one
    assert logged_break_lines(mod.step, torch.randn(2, 4), name) == {BACKWARD - 1}
