"""Vendored library code, round 23 (issue 22, branch fix27a): a tensor passed where torch takes a
Python number (``benchmarks/fix_corpus_vendc``'s torchode ``IntegralController``:
``torch.add(self.atol, torch.maximum(y0.abs(), y1.abs()), alpha=self.rtol)`` with ``rtol`` a
buffer). Torch reads ``alpha=``/``value=`` with ``.item()``: GB0033 "Data dependent operator"
under torch 2.13. Where torch observed that break, CL103's codemod moves the scale onto the
operand it multiplies (``b * s.detach()``), a 0-d tensor kept in the graph.

Each VALID case is checked as text and, marked ``torch``, against the original (the original
breaks; the fixed model compiles with ``fullgraph=True`` and gives the same outputs and
parameter gradients, compiled and uncompiled). Each INVALID case is checked for what stays.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from .fix_modules import dynamo_breaks, fix_text, load_module
from .torch_checks import assert_same_as_original

HEAD = "import torch\nfrom torch import nn\n\n\n"

# torchode 1.0.1 step_size_controllers.py: the error bounds of `adapt_step_size`
ADAPT = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("atol", torch.tensor(1e-6))
            self.register_buffer("rtol", torch.tensor(1e-3))

        def forward(self, y0):
            y1 = self.lin(y0)
            error_bounds = torch.add(
                self.atol, torch.maximum(y0.abs(), y1.abs()), alpha=self.rtol
            )
            return (y1 - y0) * error_bounds.reciprocal().clamp(max=10.0)
    """
)

# an EMA-style in-place update whose decay is a 0-d tensor (a schedule's output)
EMA = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("shadow", torch.zeros(4, 4))

        def forward(self, x, step):
            decay = 1 - torch.exp(-step)
            h = self.lin(x)
            avg = self.shadow.clone()
            avg.mul_(decay).add_(h - h.mean(0), alpha=1 - decay)
            return torch.addcmul(h, avg, h, value=decay)
    """
)


def _fix(tmp_path: Path, code: str, lines: tuple[str, ...]) -> tuple[str, list[str]]:
    return fix_text(tmp_path, code, ("CL103",), observed=[(t, "GB0033") for t in lines])


def _write(tmp_path: Path, code: str) -> Path:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    return path


def _inputs(seed: int) -> tuple[object, ...]:
    import torch

    g = torch.Generator().manual_seed(seed)
    return (torch.randn(3, 4, generator=g),)


def _ema_inputs(seed: int) -> tuple[object, ...]:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(4, 4, generator=g), torch.tensor(0.5 + seed)


# ---------------------------------------------------------------------------- VALID (text)
def test_alpha_of_torch_add_moves_onto_the_operand(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, ADAPT, ("error_bounds = torch.add(",))
    assert "alpha=" not in out
    assert "torch.maximum(y0.abs(), y1.abs()) * self.rtol.detach()" in out


def test_alpha_of_a_method_and_value_of_addcmul_move_too(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, EMA, ("avg.mul_(decay).add_(", "return torch.addcmul("))
    assert "avg.mul_(decay).add_((h - h.mean(0)) * (1 - decay).detach())" in out
    assert "torch.addcmul(h, avg * decay.detach(), h)" in out


@pytest.mark.torch
def test_the_scaled_operand_compiles_whole_and_matches(tmp_path: Path) -> None:
    orig = load_module(_write(tmp_path, ADAPT), "orig")
    assert dynamo_breaks(orig.Model(), _inputs(0))  # the original breaks at `alpha=`
    out, _ = _fix(tmp_path, ADAPT, ("error_bounds = torch.add(",))
    fixed = load_module(_write(tmp_path, out), "fixed")
    assert not dynamo_breaks(fixed.Model(), _inputs(0))
    for seed in (0, 1):
        assert_same_as_original(orig, fixed, _inputs(seed))


@pytest.mark.torch
def test_the_ema_update_compiles_whole_and_matches(tmp_path: Path) -> None:
    orig = load_module(_write(tmp_path, EMA), "orig")
    assert dynamo_breaks(orig.Model(), _ema_inputs(0))
    out, _ = _fix(tmp_path, EMA, ("avg.mul_(decay).add_(", "return torch.addcmul("))
    fixed = load_module(_write(tmp_path, out), "fixed")
    for seed in (0, 1):
        assert_same_as_original(orig, fixed, _ema_inputs(seed))


# ---------------------------------------------------------------------------- INVALID
def test_a_literal_alpha_is_not_offered(tmp_path: Path) -> None:
    code = ADAPT.replace("alpha=self.rtol", "alpha=1e-3")
    out, _ = fix_text(tmp_path, code, ("CL103",))
    assert out == code


def test_an_out_keyword_is_left_with_its_reason(tmp_path: Path) -> None:
    code = ADAPT.replace("alpha=self.rtol", "alpha=self.rtol, out=None")
    out, reasons = _fix(tmp_path, code, ("error_bounds = torch.add(",))
    assert "alpha=self.rtol, out=None" in out
    assert any("other keywords" in r for r in reasons)
