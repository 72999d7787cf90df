"""Selections taken by a cross-entropy through names, ``masked_select`` in a flow, and row
reductions (``argmax(-1)``) of the selected rows (issue 22, branch fixmask10).

BERT-style MLM heads select the masked positions once and compute a loss and an accuracy from
them::

    masked_labels = torch.masked_select(mlm_labels, masked)
    masked_logits = logits[masked]
    loss = F.cross_entropy(masked_logits, masked_labels)
    acc = (masked_logits.argmax(-1) == masked_labels).float().mean()

The loss over the selection equals the loss over every row with the unselected targets set to
``ignore_index`` (its sum and its mean's count leave them out); the accuracy is a mean over the
mask. Each rewrite is checked as text and, marked ``torch``, against torch: no graph break
(explain first), outputs and parameter gradients equal, compiled and uncompiled, on three
inputs. The INVALID cases keep their selections.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import load_module
from .torch_checks import compile_without_break

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

MLM = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 7)

        def forward(self, x, labels):
            logits = self.lin(x)
            masked = labels >= 0
            masked_labels = torch.masked_select(labels, masked)
            masked_logits = logits[masked]
            loss = F.cross_entropy(masked_logits, masked_labels)
            acc = (masked_logits.argmax(-1) == masked_labels).float().mean()
            return loss, acc
    """
)
MLM_FIXED = """\
        masked_labels = torch.where(masked, labels, 1)
        masked_logits = torch.where(masked.unsqueeze(-1), logits, 1)
        loss = F.cross_entropy(masked_logits.flatten(0, -2), torch.where(masked, masked_labels, -100).flatten())
        acc = torch.where(masked, (masked_logits.argmax(-1) == masked_labels).float(), 0).sum() / masked.sum()
"""

# subscripts on both sides, options kept: an explicit ignore_index, label smoothing, a sum
MLM_OPTIONS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 7)

        def forward(self, x, labels):
            logits = self.lin(x)
            keep = (labels >= 0) & (labels != 3)
            sel_labels = labels[keep]
            sel_logits = logits[keep]
            loss = F.cross_entropy(sel_logits, sel_labels, ignore_index=5, label_smoothing=0.1)
            nll = F.nll_loss(sel_logits, sel_labels, reduction="sum")
            hits = (sel_logits.argmax(dim=-1) == sel_labels).float().sum()
            return loss + nll, hits / len(sel_labels)
    """
)

# INVALID: the selected rows are returned (the caller sees their data-dependent count)
RETURNED = MLM.replace("        return loss, acc", "        return loss, acc, masked_logits")
# INVALID: the mask does not come from the labels: a one-dimensional target is not shown
FOREIGN = MLM.replace("masked = labels >= 0", "masked = x[..., 0] > 0").replace(
    "masked_labels = torch.masked_select(labels, masked)", "masked_labels = labels[masked]"
)
# INVALID: a reduction over dim 0 of rows selected by a mask of any rank
DIM0 = MLM.replace(
    "        return loss, acc", "        return loss, acc, masked_logits.sum(0).sum()"
)


def _fix(tmp_path: Path, code: str) -> str:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL110", "CL111"), cache=False), unsafe=True)
    for c in res.changes:
        return c.after.decode()
    return code


def test_cross_entropy_and_accuracy_over_a_selection_by_names(tmp_path: Path) -> None:
    fixed = _fix(tmp_path, MLM)
    assert MLM_FIXED in fixed
    assert "masked_select" not in fixed and "logits[masked]" not in fixed


def test_cross_entropy_options_and_row_argmax(tmp_path: Path) -> None:
    fixed = _fix(tmp_path, MLM_OPTIONS)
    assert "ignore_index=5, label_smoothing=0.1" in fixed
    assert "torch.where(keep, sel_labels, 5).flatten()" in fixed
    assert '.flatten(), reduction="sum")' in fixed
    assert "logits[keep]" not in fixed and "labels[keep]" not in fixed


@pytest.mark.parametrize("code", [RETURNED, FOREIGN, DIM0], ids=["returned", "foreign", "dim0"])
def test_selections_kept_where_the_rows_are_not_shown(tmp_path: Path, code: str) -> None:
    fixed = _fix(tmp_path, code)
    assert "logits[masked]" in fixed


# ---------------------------------------------------------------------------- with torch
CASES = {"mlm": MLM, "options": MLM_OPTIONS}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("rank", [1, 2])
def test_fixed_model_compiles_whole_and_computes_the_same(
    tmp_path: Path, case: str, rank: int
) -> None:
    torch = pytest.importorskip("torch")
    code = CASES[case]
    fixed = _fix(tmp_path, code)
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "mask10"), load_module(tmp_path / "b.py", "mask10")

    def run(mod: Any, compiled: bool, inputs: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        fn = compile_without_break(model, inputs) if compiled else model
        outs = list(fn(*inputs))
        sum(o.float().sum() for o in outs).backward()
        return [o.detach() for o in outs], [p.grad for p in model.parameters()]

    for seed in range(3):
        torch.manual_seed(100 + seed)
        shape = (12,) if rank == 1 else (3, 5)
        x = torch.randn(*shape, 8)
        labels = torch.randint(-1, 7, shape)
        labels.view(-1)[0] = 2  # at least one selected position
        want = run(a, False, (x, labels))
        for compiled in (False, True):
            got = run(b, compiled, (x, labels))
            torch.testing.assert_close(got[0], want[0])
            torch.testing.assert_close(got[1], want[1])
