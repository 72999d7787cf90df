"""Lengths read with ``.tolist()`` where a tensor of the lengths does the same job (issue 22,
branch fix24).

A padded batch carries one length per row. Reading the lengths back as Python ints to build a
padding mask (``torch.stack([torch.arange(T) < n for n in lens])``), to pool each row over its
valid steps (``torch.stack([h[i, :n].mean(0) for i, n in enumerate(lens)])``, ``zip(h, lens)``)
or to hand them to ``ctc_loss`` breaks the graph at the ``.tolist()``; each has a tensor form
with static shapes (:mod:`compilelint.fix.codemods.lengths`).

Each VALID case is checked as text and, marked ``torch``, against the original: the original
breaks; the fixed model compiles without a break (``ctc_loss``: with fewer breaks, the one
``ctc_loss`` itself makes on torch 2.13 kept); outputs and parameter gradients equal, compiled
and uncompiled. Each INVALID case is checked for what it keeps.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_case_tests, fix_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# an encoder's key padding mask and a mean over each row's valid steps (enumerate)
MASK_MEAN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 8)
            self.att = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x, lengths):
            T = x.shape[1]
            lens = lengths.tolist()
            pad = torch.stack([torch.arange(T) >= n for n in lens])
            h = self.proj(x)
            h, _ = self.att(h, h, h, key_padding_mask=pad, need_weights=False)
            return torch.stack([h[i, :n].mean(0) for i, n in enumerate(lens)])
    """
)

# the valid-step mask the other way round, and a mean over `zip(h, lens)` with `dim=0`
ZIP_MEAN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 8)

        def forward(self, x, lengths):
            lens = lengths.tolist()
            valid = torch.stack([n > torch.arange(x.size(1)) for n in lens])
            h = self.proj(x) * valid[..., None]
            pooled = torch.stack([r[:n].mean(dim=0) for r, n in zip(h, lens)])
            return pooled
    """
)

# a bag of embeddings summed over each sentence's tokens, the lengths inline
BAG_SUM = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.fc = nn.Linear(8, 3)

        def forward(self, ids, lengths):
            e = self.emb(ids)
            bags = torch.stack([e[b, :n].sum(0) for b, n in enumerate(lengths.tolist())])
            return self.fc(bags)
    """
)

# CTC lengths as lists: mapped by the conv arithmetic, and read directly
CTC = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(6, 8, 3, stride=2, padding=1)
            self.out = nn.Linear(8, 5)

        def forward(self, x, lengths, targets, target_lengths):
            h = self.conv(x.transpose(1, 2)).transpose(1, 2)
            log_probs = self.out(h).log_softmax(-1).transpose(0, 1)
            out_lens = [(n + 1) // 2 for n in lengths.tolist()]
            return F.ctc_loss(
                log_probs, targets, out_lens, target_lengths=target_lengths.tolist(), zero_infinity=True
            )
    """
)

# a per-utterance L1 loss over its valid frames, the losses appended in a loop and stacked
L1_LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 4)

        def forward(self, x, lengths):
            pred = self.proj(x)
            target = x[..., :4].flip(-1)
            losses = []
            for b, n in enumerate(lengths.tolist()):
                losses.append(F.mse_loss(pred[b, :n], target[b, :n], reduction="mean"))
            return torch.stack(losses).mean()
    """
)

# each row's mean appended in a loop over `zip(h, lens)`
ZIP_LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 8)

        def forward(self, x, lengths):
            h = torch.tanh(self.proj(x))
            rows = []
            for r, n in zip(h, lengths.tolist()):
                rows.append(r[:n].mean(0))
            return torch.stack(rows) @ self.proj.weight
    """
)

CASES = {
    "mask_mean": MASK_MEAN,
    "zip_mean": ZIP_MEAN,
    "bag_sum": BAG_SUM,
    "ctc": CTC,
    "l1_loop": L1_LOOP,
    "zip_loop": ZIP_LOOP,
}

# INVALID: the list is also returned to the caller
RETURNED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, lengths):
            lens = lengths.tolist()
            mask = torch.stack([torch.arange(x.shape[1]) < n for n in lens])
            return x * mask[..., None], lens
    """
)

# INVALID: each row keeps a window that does not start at 0
WINDOW = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, lengths):
            return torch.stack([x[i, 1:n].mean(0) for i, n in enumerate(lengths.tolist())])
    """
)

# INVALID: `max(0)` (values and indices), not a sum or a mean
ROW_MAX = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, lengths):
            return torch.stack([x[i, :n].max(0).values for i, n in enumerate(lengths.tolist())])
    """
)

# INVALID: the mapped lengths are also summed as Python numbers
CTC_ALSO_SUMMED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, log_probs, targets, lengths, target_lengths):
            out_lens = [n // 2 for n in lengths.tolist()]
            loss = F.ctc_loss(log_probs, targets, out_lens, target_lengths)
            return loss / sum(out_lens)
    """
)


def _fix(tmp_path: Path, code: str) -> tuple[str, str]:
    fixed, reasons = fix_text(tmp_path, code, ("CL105",))
    return fixed, " | ".join(reasons)


# ---------------------------------------------------------------------------- VALID (text)
def test_a_padding_mask_compares_arange_with_the_lengths_as_a_column(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, MASK_MEAN)
    assert ".tolist()" not in fixed
    assert "lens = " not in fixed
    assert "pad = torch.arange(T, device=lengths.device) >= lengths[:, None]" in fixed
    fixed, _ = _fix(tmp_path, ZIP_MEAN)
    assert "valid = lengths[:, None] > torch.arange(x.size(1), device=lengths.device)" in fixed


def test_a_mean_over_each_rows_valid_steps_is_a_masked_mean(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, MASK_MEAN)
    assert (
        "n_valid = torch.where(lengths < 0, lengths + h.shape[1], lengths).clamp(0, h.shape[1])"
        ".to(h.device)" in fixed
    )
    assert "return torch.where(" in fixed
    assert ".sum(1) / n_valid.reshape(n_valid.shape + (1,) * (h.dim() - 2))" in fixed
    fixed, _ = _fix(tmp_path, ZIP_MEAN)
    assert "pooled = torch.where(" in fixed
    assert "zip(" not in fixed


def test_a_sum_over_each_rows_tokens_is_a_masked_sum(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, BAG_SUM)
    assert ".tolist()" not in fixed
    assert "bags = torch.where(" in fixed
    assert "e, 0).sum(1)\n" in fixed


def test_ctc_lengths_stay_tensors(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, CTC)
    assert "out_lens = (lengths + 1) // 2" in fixed
    assert "target_lengths=target_lengths," in fixed
    assert ".tolist()" not in fixed


def test_a_loop_of_per_row_losses_is_one_masked_loss(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, L1_LOOP)
    assert "for b, n in" not in fixed
    assert "losses = []" not in fixed
    assert "(pred - target).pow(2), 0).flatten(1).sum(1) / (n_valid * pred.shape[2:].numel())" in (
        fixed
    )
    assert "return losses.mean()" in fixed
    fixed, _ = _fix(tmp_path, ZIP_LOOP)
    assert "rows = torch.where(" in fixed
    assert "return rows @ self.proj.weight" in fixed


# ---------------------------------------------------------------------------- INVALID
def test_a_list_returned_to_the_caller_is_kept(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, RETURNED)
    assert "lens = lengths.tolist()" in fixed
    assert "lengths[:, None]" not in fixed


def test_a_window_not_starting_at_zero_is_kept(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, WINDOW)
    assert "n_valid" not in fixed


def test_a_row_max_is_kept(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, ROW_MAX)
    assert "n_valid" not in fixed


def test_lengths_also_read_as_numbers_are_kept(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, CTC_ALSO_SUMMED)
    assert "out_lens = [n // 2 for n in lengths.tolist()]" in fixed


# INVALID: the loop also logs each length
LOOP_PRINTS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, lengths):
            rows = []
            for i, n in enumerate(lengths.tolist()):
                rows.append(x[i, :n].sum(0))
                print(n)
            return torch.stack(rows)
    """
)


def test_a_loop_that_does_more_than_append_is_kept(tmp_path: Path) -> None:
    fixed, _ = _fix(tmp_path, LOOP_PRINTS)
    assert "n_valid" not in fixed


# INVALID (a number `topk` and `histc` take): refused with the static form named
TOPK_K = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(6, 1)

        def forward(self, x):
            scores = self.gate(x).squeeze(-1).sigmoid()
            budget = max(2, int(scores.mean().item() * x.shape[1]))
            top = scores.topk(budget, dim=1).indices
            return torch.gather(x, 1, top[..., None].expand(-1, -1, x.shape[-1])).mean(1)
    """
)

HISTC_RANGE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x):
            lo = x.min().item()
            hi = x.max().item()
            return torch.histc(x, 8, min=lo, max=hi)
    """
)


def test_topk_k_read_from_a_tensor_names_the_static_selection(tmp_path: Path) -> None:
    fixed, reasons = fix_text(tmp_path, TOPK_K, ("CL103",))
    why = " | ".join(reasons)
    assert ".item()" in fixed
    assert "`topk`'s `k`, a Python int" in why
    assert "`torch.arange(x.shape[dim]) < k_tensor`" in why


def test_histc_range_read_from_a_tensor_names_the_static_count(tmp_path: Path) -> None:
    fixed, reasons = fix_text(tmp_path, HISTC_RANGE, ("CL103",))
    why = " | ".join(reasons)
    assert ".item()" in fixed
    assert "`torch.histc`'s `bins`/`min`/`max` take Python numbers" in why
    assert "index_add_(0, idx" in why


# ---------------------------------------------------------------------------- torch
def _inputs(torch: Any, case: str) -> tuple[Any, ...]:
    torch.manual_seed(3)
    lengths = torch.tensor([7, 3, 5, 2])
    if case == "bag_sum":
        return torch.randint(0, 20, (4, 7)), torch.tensor([7, 3, 5, 0])
    if case == "ctc":
        targets = torch.randint(1, 5, (4, 3))
        return torch.randn(4, 7, 6), torch.tensor([7, 3, 5, 6]), targets, torch.tensor([3, 1, 2, 2])
    return torch.randn(4, 7, 6), lengths


# the originals break at the `.tolist()` reads (`_local_scalar_dense`); the fixed models
# compile whole with the same outputs and gradients, but `ctc_loss` itself breaks on torch
# 2.13 (an output shape from the data): that break stays
test_the_originals_break, test_fixed_model_compiles_and_keeps_outputs_and_grads = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: _fix(tmp_path, code)[0],
    lambda torch, case, seed: _inputs(torch, case),
    prefix="fix24",
    seeds=(0,),
    counted=("graph_break",),
    reason="_local_scalar_dense",
    left={"ctc": "aten._ctc_loss"},
)


@pytest.mark.torch
def test_a_negative_or_too_long_length_slices_as_python_does(tmp_path: Path) -> None:
    """``[:n]`` keeps ``T + n`` steps for a negative ``n`` and all of them for ``n >= T``."""
    torch = pytest.importorskip("torch")
    fixed, _ = _fix(tmp_path, BAG_SUM)
    a, b = load_pair(tmp_path, BAG_SUM, fixed, "fix24")
    inputs = (torch.randint(0, 20, (4, 7)), torch.tensor([-2, 9, 0, -9]))
    assert_same_as_original(a, b, inputs)
    torch._dynamo.reset()


@pytest.mark.torch
def test_the_histc_recipe_counts_as_histc_does() -> None:
    """The static count the `histc` refusal names equals `torch.histc` (a range from the data,
    values outside it, a value on the top edge)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = torch.cat([torch.randn(500), torch.tensor([0.5, 2.0])])
    bins = 8
    for lo_, hi_ in ((-1.0, 0.5), (float(x.min()), float(x.max())), (-0.3, 2.0)):
        lo, hi = torch.tensor(lo_), torch.tensor(hi_)
        idx = ((x - lo) * bins / (hi - lo)).floor().clamp(0, bins - 1).long()
        got = torch.zeros(bins).index_add_(0, idx, ((x >= lo) & (x <= hi)).float())
        torch.testing.assert_close(got, torch.histc(x, bins, min=lo_, max=hi_))


@pytest.mark.torch
def test_the_topk_recipe_keeps_the_same_entries() -> None:
    """The static selection the `topk` refusal names (all entries sorted, the ranks `>= k`
    masked) gives the mean over the top `k` that `topk(k)` gives, with `k` a 0-d tensor."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x, scores = torch.randn(3, 10, 4), torch.rand(3, 10)
    for k in (1, 4, 10):
        top = scores.topk(k, dim=1).indices
        want = torch.gather(x, 1, top[..., None].expand(-1, -1, 4)).mean(1)
        k_t = torch.tensor(k)
        order = scores.topk(scores.shape[1], dim=1).indices
        kept = (torch.arange(scores.shape[1]) < k_t)[None, :, None]
        allx = torch.gather(x, 1, order[..., None].expand(-1, -1, 4))
        got = torch.where(kept, allx, 0).sum(1) / k_t
        torch.testing.assert_close(got, want)
