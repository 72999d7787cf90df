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
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_text, load_pair
from .torch_checks import assert_same_as_original

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
    return fix_text(tmp_path, code, ("CL110", "CL111"))[0]


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


# FOREIGN (a mask not computed from the targets) is rewritten since fix22r: the targets' mask
# is stated where they are read (`masked.view(labels.shape)`), checked in tests/test_fix22r.py
@pytest.mark.parametrize("code", [RETURNED, DIM0], ids=["returned", "dim0"])
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
    a, b = load_pair(tmp_path, code, fixed, "mask10")
    for seed in range(3):
        torch.manual_seed(100 + seed)
        shape = (12,) if rank == 1 else (3, 5)
        x = torch.randn(*shape, 8)
        labels = torch.randint(-1, 7, shape)
        labels.view(-1)[0] = 2  # at least one selected position
        assert_same_as_original(a, b, (x, labels))


# ------------------------------------------- the ends of named row coordinates; two-bound trims
SPAN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 6)

        def forward(self, x, gt):
            voiced = torch.where(gt > 0.5)[0]
            start, end = voiced[0], voiced[-1] + 1
            seg = x[start:end]
            return self.proj(seg).mean(0)
    """
)
SPAN_FIXED = """\
        voiced_mask = gt > 0.5
        start, end = voiced_mask.reshape(voiced_mask.shape[0], -1).any(1).long().argmax(), voiced_mask.reshape(voiced_mask.shape[0], -1).any(1).long().cumsum(0).argmax() + 1
"""

# a mask of two dimensions: `[:, 0]` of `nonzero()` are the rows of its Trues, in order (the
# span between them as SPAN's: the two one-sided trims `x[first:]`, `x[:last]` it had before
# stayed as slices by a tensor, an `.item()` break that explain lists with a count of 0)
ROWS_2D = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 6)

        def forward(self, x, gt):
            rows = (gt > 0.5).nonzero()[:, 0]
            first, end = rows[0], rows[-1] + 1
            seg = x[first:end]
            return self.proj(seg).mean(0)
    """
)

# a bound written as a tensor name plus a number (`x[first : last + 1]`): the same span
ROWS_EXPR = ROWS_2D.replace(
    "first, end = rows[0], rows[-1] + 1\n        seg = x[first:end]",
    "first, last = rows[0], rows[-1]\n        seg = x[first : last + 1]",
)
# INVALID: a bound that is not a name plus or minus a number stays a slice by a tensor
ROWS_SCALED = ROWS_EXPR.replace("x[first : last + 1]", "x[first : last * 2]")

# INVALID: the second index (not an end), the flattened coordinates (not rows), the cut
# returned (its length is the caller's)
SECOND = SPAN.replace("voiced[0], voiced[-1] + 1", "voiced[1], voiced[-1] + 1")
FLAT = SPAN.replace("torch.where(gt > 0.5)[0]", "(gt > 0.5).nonzero().flatten()")
CUT_RETURNED = SPAN.replace("return self.proj(seg).mean(0)", "return self.proj(seg)")


def _fix_all(tmp_path: Path, code: str) -> str:
    return fix_text(tmp_path, code, ("CL105", "CL110", "CL111", "CL113"))[0]


def test_ends_of_named_row_coordinates_and_a_two_bound_trim(tmp_path: Path) -> None:
    fixed = _fix_all(tmp_path, SPAN)
    assert SPAN_FIXED in fixed
    assert "seg = x\n" in fixed and "keep.sum()" in fixed and "x[start:end]" not in fixed


@pytest.mark.parametrize("code", [SECOND, FLAT], ids=["second", "flat"])
def test_other_reads_of_the_indices_keep_them(tmp_path: Path, code: str) -> None:
    fixed = _fix_all(tmp_path, code)
    assert "voiced[" in fixed


def test_a_returned_cut_is_not_masked(tmp_path: Path) -> None:
    fixed = _fix_all(tmp_path, CUT_RETURNED)
    assert "seg = x[start:end]" in fixed


# ---------------------------------------------------------------------------- expert capacity
MOE_CAP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, capacity_factor=1.0):
            super().__init__()
            self.router = nn.Linear(8, 3)
            self.experts = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
            self.capacity_factor = capacity_factor

        def forward(self, x, gt):
            tokens = x.reshape(-1, 8)
            gate, expert = self.router(tokens).softmax(-1).max(-1)
            capacity = int(self.capacity_factor * tokens.shape[0] / len(self.experts))
            out = tokens.clone()
            for e, layer in enumerate(self.experts):
                idx = torch.where(expert == e)[0][:capacity]
                out[idx] = layer(tokens[idx]) * gate[idx, None]
            return out
    """
)
# INVALID: the capacity is bound in the loop, after the indices (the mask would read it later)
MOE_CAP_LOOP = MOE_CAP.replace(
    "            out[idx] = layer(tokens[idx]) * gate[idx, None]",
    "            capacity = capacity + 1\n"
    "            out[idx] = layer(tokens[idx]) * gate[idx, None]",
)
# INVALID: the output may be a view of the input: writing into it changes the input
MOE_CAP_VIEW = MOE_CAP.replace("out = tokens.clone()", "out = tokens[:]")
assert MOE_CAP_LOOP != MOE_CAP and MOE_CAP_VIEW != MOE_CAP
assert SECOND != SPAN and FLAT != SPAN and CUT_RETURNED != SPAN


def test_a_capacity_cut_of_the_routed_indices_is_a_token_mask(tmp_path: Path) -> None:
    fixed = _fix_all(tmp_path, MOE_CAP)
    assert "(expert == e).long().cumsum(0) <= (expert == e).sum() * (capacity < 0) + capacity" in (
        fixed
    )
    assert "idx" not in fixed


@pytest.mark.parametrize("code", [MOE_CAP_LOOP, MOE_CAP_VIEW], ids=["loop", "view"])
def test_a_capacity_cut_kept_where_not_shown(tmp_path: Path, code: str) -> None:
    assert "[0][:capacity]" in _fix_all(tmp_path, code)


def _same(a: Any, b: Any, inputs: tuple[Any, ...], **kw: Any) -> None:
    assert_same_as_original(a, b, inputs, model_kw=kw, loss=lambda o: (o.float() ** 2).sum())


@pytest.mark.torch
@pytest.mark.parametrize(
    "case", ["span", "rows_2d", "rows_expr", "moe_cap", "moe_cap_low", "moe_cap_neg"]
)
def test_fixed_ends_trims_and_capacity_compute_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = {"span": SPAN, "rows_2d": ROWS_2D, "rows_expr": ROWS_EXPR}.get(case, MOE_CAP)
    kw = {"moe_cap_low": {"capacity_factor": 0.5}, "moe_cap_neg": {"capacity_factor": -0.4}}
    fixed = _fix_all(tmp_path, code)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "mask10e")
    for seed in range(3):
        torch.manual_seed(200 + seed)
        gt = torch.rand(10, 3) if case.startswith("rows") else torch.rand(10)
        gt.view(-1)[3] = 0.9  # at least one True (the original raises on none)
        gt.view(-1)[0] = 0.1
        _same(a, b, (torch.randn(10, 8), gt), **kw.get(case, {}))


# ------------------------------------------------ selected rows split by the mask's row counts
POOL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, attention_mask):
            hidden = self.lin(x)
            tokens = hidden[attention_mask.bool()]
            lengths = attention_mask.sum(-1)
            pooled = torch.stack([chunk.mean(0) for chunk in tokens.split(lengths.tolist())])
            summed = torch.stack([c.sum(0) for c in hidden[attention_mask > 0].split(lengths.tolist())])
            return pooled, summed
    """
)
# INVALID: the selected rows are read again (the selection stays: the segment-id form)
POOL_READ = POOL.replace(
    "        return pooled, summed", "        return pooled, summed, tokens.sum()"
)
# INVALID: a maximum per piece (the segment-id form keeps `amax`'s own rules)
POOL_MAX = POOL.replace("chunk.mean(0)", "chunk.amax(0)")
assert POOL_READ != POOL and POOL_MAX != POOL


def test_pieces_of_selected_rows_are_the_mask_rows(tmp_path: Path) -> None:
    fixed = _fix_all(tmp_path, POOL)
    assert "tokens = hidden[attention_mask.bool()]" not in fixed
    assert "_assert_async((rows_mask.sum(1) == lengths.reshape(-1)).all()" in fixed
    assert "repeat_interleave" not in fixed and ".tolist()" not in fixed


@pytest.mark.parametrize("code", [POOL_READ, POOL_MAX], ids=["read", "amax"])
def test_pieces_of_selected_rows_kept_otherwise(tmp_path: Path, code: str) -> None:
    assert "tokens = hidden[attention_mask.bool()]" in _fix_all(tmp_path, code)


@pytest.mark.torch
def test_pieces_of_selected_rows_compute_the_same(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    fixed = _fix_all(tmp_path, POOL)
    a, b = load_pair(tmp_path, POOL, fixed, "mask10p")
    for seed in range(3):
        torch.manual_seed(300 + seed)
        am = (torch.rand(3, 7) > 0.4).long()
        am[:, 0] = 1  # no empty piece (its mean is NaN in both)
        _same(a, b, (torch.randn(3, 7, 8), am))
    # a mask of other values: the pieces are not its rows; the check fails loudly
    am = torch.ones(3, 7, dtype=torch.long)
    am[0, 1], am[1, 1:3] = 2, 0
    with pytest.raises(RuntimeError):
        b.Model()(torch.randn(3, 7, 8), am)


def test_a_bound_other_than_a_name_plus_a_number_stays_a_slice(tmp_path: Path) -> None:
    assert "x[first : last + 1]" in ROWS_EXPR
    fixed = _fix_all(tmp_path, ROWS_SCALED)
    assert "x[first : last * 2]" in fixed and "keep" not in fixed
    assert "keep" in _fix_all(tmp_path, ROWS_EXPR)
