"""Breaks inside an installed library reached from a user's line (issue 22, branch fixdev2):
the user's call goes through a module-level ``torch.compiler.disable``d helper.

Checked as text and, marked ``torch``, against the original on the installed torch: the fixed
model has fewer observed graph breaks (one, at the disabled helper's call, on torch 2.13) and
its outputs and parameter gradients equal the original's, compiled and uncompiled.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_result, fixed_text, load_module

pytest.importorskip("torchmetrics")

# VALID: a torchmetrics functional metric returned with the loss
AUROC = textwrap.dedent(
    """\
    import torch
    from torch import nn
    from torchmetrics.functional.classification import binary_auroc


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 1)

        def forward(self, x, target):
            logits = self.net(x).squeeze(-1)
            loss = nn.functional.binary_cross_entropy_with_logits(logits, target.float())
            auroc = binary_auroc(logits.sigmoid(), target)
            return loss, auroc
    """
)
AUROC_FIXED_CALL = "auroc = _run_eager(binary_auroc, logits.sigmoid(), target)"
AUROC_HELPER = "@torch.compiler.disable\ndef _run_eager(fn, *args, **kwargs):\n"
# INVALID: the call already goes through the helper: nothing more to move
ROUTED = AUROC.replace("auroc = binary_auroc(", "auroc = _run_eager(binary_auroc, ").replace(
    "\n\nclass Model",
    "\n\n@torch.compiler.disable\ndef _run_eager(fn, *args, **kwargs):\n"
    "    return fn(*args, **kwargs)\n\n\nclass Model",
)


def _fix(tmp_path: Path, code: str) -> tuple[str, list[str]]:
    res = fix_result(tmp_path, code, ("CL101", "CL110"))
    return fixed_text(res, code), [f"{r.status}: {r.reason}" for r in res.records]


def test_a_library_call_goes_through_a_disabled_helper(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, AUROC)
    assert AUROC_FIXED_CALL in out and AUROC_HELPER in out
    assert out.count("def _run_eager") == 1
    assert "from torchmetrics.functional.classification import binary_auroc\n\n\n@torch" in out


def test_a_call_already_routed_is_left_alone(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, ROUTED)
    assert out == ROUTED


def _load(path: Path) -> Any:
    return load_module(path, "libcall")


@pytest.mark.torch
def test_fixed_model_breaks_less_and_computes_the_same(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    fixed, _ = _fix(tmp_path, AUROC)
    assert fixed != AUROC
    (tmp_path / "a.py").write_text(AUROC, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = _load(tmp_path / "a.py"), _load(tmp_path / "b.py")
    g = torch.Generator().manual_seed(0)
    x, t = torch.randn(16, 8, generator=g), torch.randint(0, 2, (16,), generator=g)

    def breaks(mod: Any) -> int:
        torch.manual_seed(0)
        torch._dynamo.reset()
        return len(torch._dynamo.explain(mod.Model())(x, t).break_reasons)

    # torch 2.13: break records (what the verifier counts): the library's own breaks (nonzero, unique, data-dependent branches) vs one
    # "Skip calling `torch.compiler.disable()`d function" at the helper's call
    assert breaks(b) == 1 < breaks(a)

    def run(mod: Any, compiled: bool) -> tuple[list[Any], list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        fn = torch.compile(model, backend="eager") if compiled else model
        outs = list(fn(x, t))
        outs[0].backward()
        return [o.detach() for o in outs], [p.grad for p in model.parameters()]

    want = run(a, False)
    for compiled in (False, True):
        got = run(b, compiled)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])


# CL501 (same branch): a counter whose read decides Python control flow stays a Python int
FREEZE = textwrap.dedent(
    """\
    from torch import nn


    class Model(nn.Module):
        def __init__(self, unfreeze_at=2):
            super().__init__()
            self.body = nn.Linear(8, 8)
            self.unfreeze_at = unfreeze_at
            self.step = 0

        def forward(self, x):
            trainable = self.step >= self.unfreeze_at
            for p in self.body.parameters():
                p.requires_grad_(trainable)
            self.step += 1
            return self.body(x)
    """
)


def test_a_counter_read_in_a_comparison_names_the_control_flow_reason(tmp_path: Path) -> None:
    path = tmp_path / "freeze.py"
    path.write_text(FREEZE, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL501",), cache=False), unsafe=True)
    assert not res.changes
    (rec,) = res.records
    assert rec.status == "no-fix" and "decides Python control flow" in rec.reason
    assert "training loop" in rec.reason
