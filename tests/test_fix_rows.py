"""Masks that select whole rows (issue 22, branch fixrows): ``box_pred[pos]`` with ``pos`` of
fewer dimensions than ``box_pred`` (positive anchors, visible keypoints, masked tokens of
``[B, T, D]`` features), reduced over every element or by an elementwise loss.

The static stage does not know the mask's rank, so where the mask is not computed from the
selected tensor itself the rewrite is rank-agnostic: ``pos_b = pos.reshape(pos.shape + (1,) *
(x.dim() - pos.dim()))`` (ranks are static under dynamo), ``torch.where(pos_b, ..., 0).sum()``
and the element count ``pos_b.expand_as(x).sum()``. Each case is checked as text and, marked
``torch``, against the original on the installed torch with both a row mask and a mask of the
tensor's own shape (no graph break with ``fullgraph=True``; outputs and parameter gradients
equal, compiled and uncompiled).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_result, fixed_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

LOSS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, score):
            pos = score > 0.4
            box_pred = self.lin(x)
            return F.l1_loss(box_pred[pos], y[pos])
    """
)
LOSS_FIXED = """\
        pos_b = pos.reshape(pos.shape + (1,) * (box_pred.dim() - pos.dim()))
        return torch.where(pos_b, F.l1_loss(box_pred, y, reduction="none"), 0).sum() / pos_b.expand_as(box_pred).sum()
"""

AT_ONCE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, score):
            pos = score > 0.4
            reg = self.lin(x)
            loss = (reg[pos] - y[pos]).abs().mean()
            return loss
    """
)
AT_ONCE_FIXED = """\
        pos_b = pos.reshape(pos.shape + (1,) * (reg.dim() - pos.dim()))
        loss = torch.where(pos_b, reg - y, 0).abs().sum() / pos_b.expand_as(reg).sum()
"""

FLOW = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, score):
            pos = score > 0.4
            pred = self.lin(x).sigmoid()
            pbox = pred[pos]
            tbox = y[pos]
            l2 = ((pbox - tbox) ** 2).mean()
            l1 = (pbox - tbox).abs().sum() / len(pbox)
            return 5.0 * l2 + l1
    """
)
FLOW_FIXED = """\
        pos_b = pos.reshape(pos.shape + (1,) * (pred.dim() - pos.dim()))
        pbox = pred
        tbox = y
        l2 = torch.where(pos_b, (pbox - tbox) ** 2, 0).sum() / pos_b.expand_as(pred).sum()
        l1 = torch.where(pos_b, (pbox - tbox).abs(), 0).sum() / pos.sum()
"""

NUMEL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, score):
            visible = score > 0.4
            kpt = self.lin(x).sigmoid()
            diff = (kpt[visible] - y[visible]).abs()
            return diff.sum() / diff.numel()
    """
)

ELEMENT = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, pos):
            h = self.lin(x)
            valid = y > 0.3
            return F.smooth_l1_loss(h[valid], y[valid]) + h[valid].mean()
    """
)

DECODED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.dec = nn.Linear(4, 4)

        def forward(self, x, y, score):
            mask = score > 0.4
            masked = x[mask]
            recon = self.dec(masked)
            return recon, (recon - masked).pow(2).mean()
    """
)

COORDS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, y, score):
            peaks = score > 0.4
            idx = peaks.nonzero()
            err = (self.lin(x) - y).abs()
            return err[idx[:, 0], idx[:, 1]].sum() / max(len(idx), 1)
    """
)
COORDS_FIXED = """\
        peaks = score > 0.4
        err = (self.lin(x) - y).abs()
        peaks_b = peaks.reshape(peaks.shape + (1,) * (err.dim() - peaks.dim()))
        return torch.where(peaks_b, err, 0).sum() / peaks.sum().clamp(min=1)
"""
# the coordinates flow on: one tensor per selected score, concatenated (torchvision-style)
COORDS_CAT = COORDS.replace(
    "return err[idx[:, 0], idx[:, 1]].sum() / max(len(idx), 1)",
    "return torch.cat([err[idx[:, 0], idx[:, 1]], idx[:, 1].float()])",
)


def _fix(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL110", "CL111")) -> str:
    return fixed_text(fix_result(tmp_path, code, select), code)


def test_a_loss_of_row_selections_reads_the_broadcast_mask(tmp_path: Path) -> None:
    assert LOSS_FIXED in _fix(tmp_path, LOSS)


def test_a_mean_over_every_element_of_selected_rows(tmp_path: Path) -> None:
    assert AT_ONCE_FIXED in _fix(tmp_path, AT_ONCE)


def test_a_flow_counts_elements_for_a_mean_and_rows_for_len(tmp_path: Path) -> None:
    assert FLOW_FIXED in _fix(tmp_path, FLOW)


def test_numel_of_a_row_selection_counts_elements(tmp_path: Path) -> None:
    out = _fix(tmp_path, NUMEL)
    assert "visible_b = visible.reshape(visible.shape + (1,) * (kpt.dim() - visible.dim()))" in out
    assert "/ visible_b.expand_as(kpt).sum()" in out and "numel" not in out


def test_an_element_mask_of_the_selected_tensor_keeps_the_plain_form(tmp_path: Path) -> None:
    out = _fix(tmp_path, ELEMENT)
    assert "reshape" not in out and "expand_as" not in out
    assert "/ valid.sum()" in out


def test_a_selection_passed_to_a_module_is_not_rewritten(tmp_path: Path) -> None:
    assert "x[mask]" in _fix(tmp_path, DECODED)


def test_nonzero_coordinates_read_in_order_and_reduced_become_the_mask(tmp_path: Path) -> None:
    out = _fix(tmp_path, COORDS)
    assert COORDS_FIXED in out and "nonzero" not in out


def test_nonzero_coordinates_used_otherwise_keep_their_reason(tmp_path: Path) -> None:
    assert _fix(tmp_path, COORDS_CAT) == COORDS_CAT
    path = tmp_path / "cat.py"
    path.write_text(COORDS_CAT, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL110",), cache=False), unsafe=True)
    assert any("used as they are" in r.reason for r in res.records)


# ---------------------------------------------------------------------------- with torch
CASES = {
    "loss": LOSS,
    "at_once": AT_ONCE,
    "flow": FLOW,
    "numel": NUMEL,
    "element": ELEMENT,
    "coords": COORDS,
}


@pytest.mark.torch
@pytest.mark.parametrize("mask_dims", [1, 2, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fixed_model_compiles_whole_and_computes_the_same(
    tmp_path: Path, case: str, mask_dims: int
) -> None:
    """A row mask over [B, A] of [B, A, 4] boxes (2 dims), over the boxes of one image
    ([A] of [A, 4]: 1 dim, the input then 2-D), and an element mask (3 dims)."""
    torch = pytest.importorskip("torch")
    code = CASES[case]
    fixed = _fix(tmp_path, code)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "rows")
    if case == "coords" and mask_dims != 2:
        pytest.skip("two coordinates read: x[m] only for a mask of two dimensions")
    for seed in range(3):
        torch.manual_seed(100 + seed)
        shape = (12, 4) if mask_dims == 1 else (3, 5, 4)
        x, y = torch.randn(shape), torch.rand(shape)
        m = torch.rand(shape[:mask_dims] if mask_dims < 3 else shape)
        assert_same_as_original(a, b, (x, y, m))
