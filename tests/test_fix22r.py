"""Row-wise steps after a boolean-mask selection (issue 22, branch fix22r): a selection of
rows followed through steps that act on each row alone (:mod:`compilelint.fix.codemods.rowwise`:
linear layers, ``@ W``, activations, norms and softmax over the last dim, ``nn.Sequential`` of
them, a module of the file whose forward is row-wise by the same rule) keeps the full tensor
through them, and the mask is applied where the value is reduced.

Each VALID case is checked as text and, marked ``torch``, against the original (no graph break
by ``explain`` first; outputs and parameter gradients equal, compiled and uncompiled, on three
inputs). Each INVALID case (element masks before a softmax, dropout, a module that mixes rows,
a weight read from the selection) is checked for what stays.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_case_tests, fix_masks, fix_reasons, load_module

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# BERT-style MLM head on the masked tokens: a module of the file (dense, GELU, LayerNorm,
# decoder) whose forward is row-wise, then a cross-entropy, which shows the rows
MLM = HEAD + textwrap.dedent(
    """\
    class Head(nn.Module):
        def __init__(self, d, v):
            super().__init__()
            self.dense = nn.Linear(d, d)
            self.norm = nn.LayerNorm(d)
            self.out = nn.Linear(d, v)

        def forward(self, x):
            h = self.norm(F.gelu(self.dense(x)))
            return self.out(h)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.head = Head(8, 20)

        def forward(self, ids, labels):
            h = self.emb(ids)
            masked = labels != -100
            sel = h[masked]
            logits = self.head(sel)
            return F.cross_entropy(logits, labels[masked])
    """
)

# valid tokens through an nn.Sequential, a softmax over the features and `@ W`, reduced over
# the selected rows and over everything: the rows are stated where the tensor is read
SEQ = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
            self.w = nn.Parameter(torch.randn(4, 3))

        def forward(self, x, lengths):
            valid = lengths > 0.5
            tok = x[valid]
            z = self.proj(tok).softmax(-1)
            return z.sum(0), (z @ self.w).sum()
    """
)

# a residual block of the file (`x + self.mlp(self.ln(x))`), F.linear with a parameter, a
# log_softmax, then the per-row maximum summed: reductions over the last dim then the rows
RES = HEAD + textwrap.dedent(
    """\
    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.ln = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))

        def forward(self, x):
            return x + self.mlp(self.ln(x))


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block(8)
            self.cls = nn.Parameter(torch.randn(5, 8))

        def forward(self, feats, scores):
            keep = scores > 0.3
            kept = feats[keep]
            logp = F.log_softmax(F.linear(self.block(kept), self.cls), dim=-1)
            return logp.amax(-1).sum() + kept.sum()
    """
)

# fairseq RobertaLMHead style: `x[m, :]`, a head of the file with a tied weight and its own
# bias vector; the mask is an input (torch observes the break), so the targets' mask is stated
ROBERTA = HEAD + textwrap.dedent(
    """\
    class LMHead(nn.Module):
        def __init__(self, dim, weight):
            super().__init__()
            self.dense = nn.Linear(dim, dim)
            self.layer_norm = nn.LayerNorm(dim)
            self.weight = weight
            self.bias = nn.Parameter(torch.zeros(weight.size(0)))

        def forward(self, features):
            x = self.dense(features)
            x = F.gelu(x)
            x = self.layer_norm(x)
            x = F.linear(x, self.weight) + self.bias
            return x


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.lm_head = LMHead(8, self.embed.weight)

        def forward(self, src_tokens, masked_tokens):
            x = self.embed(src_tokens)
            logits = self.lm_head(x[masked_tokens, :])
            targets = src_tokens[masked_tokens]
            return F.cross_entropy(logits, targets)
    """
)

# MAE's normalized pixel loss on the masked patches: reductions over the last dim that keep it,
# a name bound again from itself, an elementwise loss over rows (mean over their elements)
MAE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.decoder_norm = nn.LayerNorm(8)
            self.decoder_pred = nn.Linear(8, 6)

        def forward(self, latent, patches, mask):
            x = self.decoder_norm(latent[mask])
            pred = self.decoder_pred(x)
            target = patches[mask]
            mean = target.mean(dim=-1, keepdim=True)
            var = target.var(dim=-1, keepdim=True)
            target = (target - mean) / (var + 1.0e-6) ** 0.5
            return F.mse_loss(pred, target)
    """
)

# a mean over every element of decoded rows
RECON = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Sequential(nn.LayerNorm(8), nn.Linear(8, 5))

        def forward(self, tokens, target, mask):
            recon = self.proj(tokens[mask])
            err = (recon - target[mask]).abs()
            return err.mean()
    """
)

# round 10's MLM with a mask not computed from the targets (was left as it is): the logits'
# rows are shown by the cross-entropy, the targets' element mask is stated
FOREIGN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 7)

        def forward(self, x, labels):
            logits = self.lin(x)
            masked = x[..., 0] > 0
            masked_labels = labels[masked]
            masked_logits = logits[masked]
            loss = F.cross_entropy(masked_logits, masked_labels)
            acc = (masked_logits.argmax(-1) == masked_labels).float().mean()
            return loss, acc
    """
)

# accuracy of a head over the masked tokens: a per-row argmax against the targets, which are
# then read as elements (stated), beside a cross-entropy
ACC = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 5))

        def forward(self, h, labels, mask):
            logits = self.head(h[mask])
            correct = (logits.argmax(-1) == labels[mask]).float()
            norms = h[mask].norm(dim=-1)
            return correct.mean(), norms.sum() + logits.sum()
    """
)

# the same with the tanh approximation of GELU (a string option) and F.gelu's
SEQ_TANH = SEQ.replace("nn.GELU()", 'nn.GELU(approximate="tanh")').replace(
    "self.proj(tok).softmax(-1)", 'F.gelu(self.proj(tok), approximate="tanh").softmax(-1)'
)
CASES = {
    "acc": ACC,
    "seq_tanh": SEQ_TANH,
    "foreign": FOREIGN,
    "mlm": MLM,
    "seq": SEQ,
    "res": RES,
    "roberta": ROBERTA,
    "mae": MAE,
    "recon": RECON,
}
# breaks torch observes at lines the static stage does not predict (the mask is an input)
OBSERVED = {
    "acc": ("logits = self.head(h[mask])",),
    "roberta": (
        "logits = self.lm_head(x[masked_tokens, :])",
        "targets = src_tokens[masked_tokens]",
    ),
    "mae": ("x = self.decoder_norm(latent[mask])", "target = patches[mask]"),
    "recon": ("recon = self.proj(tokens[mask])",),
}


# ---------------------------------------------------------------------------- VALID (text)
def test_a_module_of_the_file_before_a_cross_entropy_keeps_the_rows(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, MLM)
    assert "sel = torch.where(masked.unsqueeze(-1), h, 1)" in out
    assert "logits = self.head(sel)" in out
    assert "F.cross_entropy(logits.flatten(0, -2), torch.where(masked, " in out


def test_a_sequential_softmax_and_matmul_state_the_rows(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, SEQ)
    assert "tok = torch.where(valid.view(x.shape[:-1] + (1,)), x, 1)" in out
    assert "z = self.proj(tok).softmax(-1)" in out
    assert "torch.where(valid.unsqueeze(-1), z @ self.w, 0).sum()" in out
    assert "z.flatten(0, valid.dim() - 1).movedim(0, -1), 0).sum(-1)" in out


def test_string_options_of_an_activation_keep_it_row_wise(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, SEQ_TANH)
    assert "tok = torch.where(valid.view(x.shape[:-1] + (1,)), x, 1)" in out
    assert 'F.gelu(self.proj(tok), approximate="tanh").softmax(-1)' in out


def test_a_residual_block_and_functional_steps(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, RES)
    assert "kept = torch.where(keep.view(feats.shape[:-1] + (1,)), feats, 1)" in out
    assert "torch.where(keep, logp.amax(-1), 0).sum()" in out


def test_targets_whose_mask_is_not_computed_from_them_are_stated(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, FOREIGN)
    assert "torch.where(masked.view(labels.shape), masked_labels, -100).flatten()" in out


def test_targets_met_by_a_row_argmax_are_read_as_elements(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, ACC, OBSERVED["acc"])
    assert "torch.where(mask.view(labels.shape), labels, 1)" in out
    assert "logits = self.head(torch.where(mask.view(h.shape[:-1] + (1,)), h, 1))" in out
    assert "torch.where(mask, correct, 0).sum() / mask.sum()" in out
    assert (
        "torch.where(mask, norms, 0).sum() + torch.where(mask.unsqueeze(-1), logits, 0).sum()"
        in out
    )


def test_a_tied_head_with_a_bias_and_stated_targets(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, ROBERTA, OBSERVED["roberta"])
    assert (
        "logits = self.lm_head(torch.where(masked_tokens.view(x.shape[:-1] + (1,)), x, 1))" in out
    )
    assert "targets = torch.where(masked_tokens.view(src_tokens.shape), src_tokens, 1)" in out
    assert "F.cross_entropy(logits.flatten(0, -2), torch.where(masked_tokens.view(" in out


def test_row_statistics_a_rebound_name_and_a_loss_over_rows(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, MAE, OBSERVED["mae"])
    assert "target = torch.where(mask.view(patches.shape[:-1] + (1,)), patches, 1)" in out
    assert "target = (target - mean) / (var + 1.0e-6) ** 0.5" in out
    assert (
        'torch.where(mask.unsqueeze(-1), F.mse_loss(pred, target, reduction="none"), 0).sum() '
        "/ (mask.sum() * pred.shape[-1])" in out
    )


def test_a_mean_over_every_element_of_rows(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, RECON, OBSERVED["recon"])
    assert "torch.where(mask.unsqueeze(-1), err, 0).sum() / (mask.sum() * err.shape[-1])" in out


# ---------------------------------------------------------------------------- INVALID
def test_a_name_bound_again_to_another_value_stops_the_flow(tmp_path: Path) -> None:
    code = MAE.replace(
        "target = (target - mean) / (var + 1.0e-6) ** 0.5", "target = latent[:, 0, :6]"
    )
    assert code != MAE
    assert "target = patches[mask]" in fix_masks(tmp_path, code, OBSERVED["mae"])


def test_a_reduction_that_drops_the_row_dim_or_another_dim_is_not_row_wise(
    tmp_path: Path,
) -> None:
    for new in ("target.mean(dim=-1)", "target.mean(dim=0, keepdim=True)", "target.mean(-2, True)"):
        code = MAE.replace("target.mean(dim=-1, keepdim=True)", new)
        assert code != MAE
        assert "target = patches[mask]" in fix_masks(tmp_path, code, OBSERVED["mae"]), new


def test_a_bias_of_unknown_rank_is_not_row_wise(tmp_path: Path) -> None:
    for old, new in (
        ("torch.zeros(weight.size(0))", "torch.zeros(weight.shape)"),
        ("torch.zeros(weight.size(0))", "torch.zeros(4, weight.size(0))"),
    ):
        code = ROBERTA.replace(old, new)
        assert code != ROBERTA
        assert "x[masked_tokens, :]" in fix_masks(tmp_path, code, OBSERVED["roberta"]), new


def test_an_element_mask_before_a_softmax_is_not_rewritten(tmp_path: Path) -> None:
    # `scores[valid]` with `valid` computed from `scores`: one-dimensional, and the softmax
    # runs over the selected elements, which no full-size value computes
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def forward(self, scores):
                valid = scores > 0
                p = scores[valid].softmax(-1)
                return (p * p).sum()
        """
    )
    assert "scores[valid]" in fix_masks(tmp_path, code)
    assert "selects elements" in fix_reasons(tmp_path, code, ("CL111",))


def test_steps_outside_the_table_are_not_row_wise(tmp_path: Path) -> None:
    for old, new in (
        # dropout: in training its draws depend on the size
        ("nn.GELU(), nn.Linear(16, 4)", "nn.Dropout(0.1), nn.Linear(16, 4)"),
        # an activation in place: it would write into the full tensor the rewrite keeps
        ("nn.GELU(), nn.Linear(16, 4)", "nn.ReLU(inplace=True), nn.Linear(16, 4)"),
        # a softmax over the rows
        ("self.proj(tok).softmax(-1)", "self.proj(tok).softmax(0)"),
        # a weight read from the selection
        ("(z @ self.w).sum()", "(z @ tok[:4, :4]).sum()"),
        # a vector: `rows @ v` drops the last dim
        ("nn.Parameter(torch.randn(4, 3))", "nn.Parameter(torch.randn(4))"),
        # a weight whose rank is not known
        ("(z @ self.w).sum()", "(z @ x[0]).sum()"),
    ):
        code = SEQ.replace(old, new)
        assert code != SEQ, new
        assert "tok = x[valid]" in fix_masks(tmp_path, code), new


def test_a_module_that_mixes_rows_is_not_row_wise(tmp_path: Path) -> None:
    for old, new in (
        ("return x + self.mlp(self.ln(x))", "return x - x.mean(0)"),
        ("return x + self.mlp(self.ln(x))", "return self.mlp(x) * self.ln.weight.sum()"),
        ("self.ln = nn.LayerNorm(d)", "self.ln = nn.LayerNorm((4, d))"),
        ("self.ln = nn.LayerNorm(d)", "self.ln = nn.BatchNorm1d(d)"),
        # F.linear by a vector
        ("self.cls = nn.Parameter(torch.randn(5, 8))", "self.cls = nn.Parameter(torch.randn(8))"),
    ):
        code = RES.replace(old, new)
        assert code != RES, new
        assert "kept = feats[keep]" in fix_masks(tmp_path, code), new


def test_a_mask_expression_is_not_read_as_rows(tmp_path: Path) -> None:
    code = SEQ.replace("tok = x[valid]", "tok = x[lengths > 0.5]")
    assert code != SEQ
    assert "x[lengths > 0.5]" in fix_masks(tmp_path, code)


# ---------------------------------------------------------------------------- with torch
def _inputs(torch: Any, case: str, seed: int = 0) -> tuple[Any, ...]:
    torch.manual_seed(100 + seed)
    if case == "mlm":
        ids = torch.randint(0, 20, (3, 7))
        labels = torch.where(torch.rand(3, 7) < 0.4, torch.randint(0, 20, (3, 7)), -100)
        labels[0, 0] = 3  # at least one masked token
        return ids, labels
    if case == "acc":
        mask = torch.rand(3, 4) < 0.5
        mask[0, 0] = True
        return torch.randn(3, 4, 8), torch.randint(0, 5, (3, 4)), mask
    if case == "foreign":
        x = torch.randn(3, 5, 8)
        x[0, 0, 0] = 1.0
        return x, torch.randint(0, 7, (3, 5))
    if case == "seq":
        return torch.randn(4, 6, 8), torch.rand(4, 6)
    if case == "roberta":
        mask = torch.rand(3, 7) < 0.4
        mask[0, 0] = True
        return torch.randint(0, 20, (3, 7)), mask
    if case in ("mae", "recon"):
        mask = torch.rand(2, 5) < 0.5
        mask[0, 0] = True
        width = 6 if case == "mae" else 5
        return torch.randn(2, 5, 8), torch.randn(2, 5, width), mask
    return torch.randn(10, 8), torch.rand(10)


# the VALID cases break before the fix (what the rewrite removes is real); the fixed model
# compiles whole and computes the same
test_the_original_breaks, test_fixed_model_compiles_whole_and_computes_the_same = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: fix_masks(tmp_path, code, OBSERVED.get(case, ())),
    _inputs,
    prefix="fix22r",
)


@pytest.mark.torch
def test_a_mask_of_another_rank_raises_where_the_rows_are_stated(tmp_path: Path) -> None:
    """The stated rows are a precondition checked on static shapes: an element mask given to
    the fixed SEQ model raises rather than computing something else."""
    torch = pytest.importorskip("torch")
    path = tmp_path / "seq.py"
    path.write_text(fix_masks(tmp_path, SEQ), encoding="utf-8")
    model = load_module(path, "fix22r").Model()
    with pytest.raises(RuntimeError):
        model(torch.randn(4, 6, 8), torch.rand(4, 6, 8))


def test_a_returned_selection_through_an_activation_module_is_proposed_with_its_mask(
    tmp_path: Path,
) -> None:
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.GELU()

            def forward(self, boxes, scores):
                valid = scores > 0.3
                return self.act(boxes[valid]), F.softplus(scores[valid])
        """
    )
    path = tmp_path / "m.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL111",), cache=False), unsafe=True)
    patches = [r.patch or "" for r in res.records if r.status == "proposed"]
    assert any("+        return self.act(boxes), F.softplus(scores), valid" in p for p in patches)
    # a step that combines a row's elements is not elementwise: no such patch
    code = code.replace("self.act(boxes[valid])", "boxes[valid].softmax(-1)")
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL111",), cache=False), unsafe=True)
    patches = [r.patch or "" for r in res.records if r.status == "proposed"]
    assert not any("valid\n" in p and "return boxes.softmax(-1)" in p for p in patches)


def test_a_reduction_over_the_last_dim_of_selected_elements_is_not_per_row(
    tmp_path: Path,
) -> None:
    # `x[valid]` with `valid` computed from `x`: one-dimensional, so `.sum(-1)` sums every
    # selected element (a reduction), not one value per row
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def forward(self, x):
                valid = x > 0
                s = x[valid].sum(-1)
                return s * 2
        """
    )
    out = fix_masks(tmp_path, code)
    assert "x[valid].sum(-1)" in out or "torch.where(valid, x, 0).sum()" in out
    assert ".view(" not in out
