"""Data-dependent shapes that a mask expresses (issue 22, branch fix25b): the consumer model of
the masked rewrites (:mod:`compilelint.fix.codemods.flow`, :mod:`compilelint.fix.codemods.masks`)
follows a selection through

- a loss module bound to a local name in the same function (``loss_fct =
  nn.BCEWithLogitsLoss()``, the transformers heads' form), read as its functional loss;
- reshapes that leave the selection as it is: ``t.view(-1)`` of a one-dimensional selection,
  ``r.view(-1, r.size(-1))`` of the rows a cross-entropy reads (fairseq's ``masked_lm``), and
  ``dtype=torch.float32`` of a ``log_softmax`` over the last dim;
- ``x.index_select(0, idx)`` with ``idx`` the indices of a mask's Trues, read as ``x[idx]``;
- ``F.one_hot(t, n)`` of a one-dimensional selection (``n`` a configured number): one row per
  selected element, kept on the full-size index whose unselected positions read 0;
- a selection's count bound to a name read only in arithmetic or by ``max(n, c)``;
- ``x.ne(pad)`` (``eq``/``gt``/...) as an element mask of ``x``;

and shapes the mask against each terminal's own leaf where the leaves differ in rank.

Each VALID case is checked as text and, marked ``torch``, against the original (the original
breaks; the fixed model compiles with ``fullgraph=True`` and gives the same outputs and
parameter gradients, compiled and uncompiled). Each INVALID case is checked for what stays.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_case_tests, fix_masks, fix_reasons, fix_text, load_module
from .torch_checks import assert_same_as_original

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# transformers ElectraForPreTraining: BCEWithLogitsLoss, bound locally, on the active positions
ELECTRA = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = nn.Linear(8, 1)

        def forward(self, hidden, attention_mask, labels):
            logits = self.dense(hidden).squeeze(-1)
            loss_fct = nn.BCEWithLogitsLoss()
            active_loss = attention_mask.view(-1, hidden.shape[1]) == 1
            active_logits = logits.view(-1, hidden.shape[1])[active_loss]
            active_labels = labels[active_loss]
            loss = loss_fct(active_logits, active_labels.float())
            return loss, logits
    """
)

# fairseq masked_lm: the head on the masked tokens, the NLL summed over them
FAIRSEQ = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, padding_idx=1):
            super().__init__()
            self.padding_idx = padding_idx
            self.emb = nn.Embedding(20, 8)
            self.lm_head = nn.Linear(8, 20)

        def forward(self, src_tokens, target):
            masked_tokens = target.ne(self.padding_idx)
            sample_size = masked_tokens.int().sum()
            features = self.emb(src_tokens)
            logits = self.lm_head(features[masked_tokens])
            targets = target[masked_tokens]
            loss = F.nll_loss(
                F.log_softmax(logits.view(-1, logits.size(-1)), dim=-1, dtype=torch.float32),
                targets.view(-1),
                reduction="sum",
                ignore_index=self.padding_idx,
            )
            return loss / sample_size
    """
)

# RecBole-style pointwise loss: nonzero indices, one read with index_select
BPR = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.u = nn.Embedding(10, 4)
            self.i = nn.Embedding(10, 4)

        def forward(self, user, item, label):
            scores = (self.u(user) * self.i(item)).sum(-1)
            pos_idx = torch.nonzero(label == 1, as_tuple=True)[0]
            neg_idx = torch.nonzero(label == 0, as_tuple=True)[0]
            pos_loss = -F.logsigmoid(scores.index_select(0, pos_idx)).mean()
            neg_loss = -F.logsigmoid(-torch.index_select(scores, 0, neg_idx)).mean()
            return pos_loss + neg_loss
    """
)

# Switch-Transformers load balancing over the real tokens: one-argument where's indices,
# one_hot of the gathered expert index
SWITCH = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, num_experts=4):
            super().__init__()
            self.num_experts = num_experts
            self.classifier = nn.Linear(8, num_experts, bias=False)

        def forward(self, hidden_states, attention_mask):
            router_probs = F.softmax(self.classifier(hidden_states), dim=-1)
            expert_index = torch.argmax(router_probs, dim=-1)
            valid = torch.where(attention_mask.reshape(-1) > 0)[0]
            probs = router_probs.reshape(-1, self.num_experts)[valid]
            expert_mask = F.one_hot(expert_index.reshape(-1)[valid], self.num_experts).float()
            aux = (expert_mask.mean(dim=0) * probs.mean(dim=0)).sum()
            return router_probs, aux * self.num_experts
    """
)

# OpenNMT-style statistics: masked_select's numel bound to a name, max(n, 1)
TOKACC = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, pad_idx=0):
            super().__init__()
            self.pad_idx = pad_idx
            self.emb = nn.Embedding(12, 6)
            self.gen = nn.Linear(6, 12)

        def forward(self, tgt_in, tgt_out):
            scores = self.gen(self.emb(tgt_in))
            loss = F.cross_entropy(scores.transpose(1, 2), tgt_out, ignore_index=self.pad_idx, reduction="sum")
            non_padding = tgt_out.ne(self.pad_idx)
            num_correct = scores.argmax(-1).eq(tgt_out).masked_select(non_padding).sum()
            num_non_padding = tgt_out.masked_select(non_padding).numel()
            n_words = max(num_non_padding, 1)
            return loss / n_words, num_correct.float() / n_words
    """
)

# mmdet FCOS: positives' indices gather tensors of two ranks ([N, 4] boxes, [N] centerness)
FCOS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, num_classes=3):
            super().__init__()
            self.num_classes = num_classes
            self.reg = nn.Linear(5, 4)
            self.ctr = nn.Linear(5, 1)

        def forward(self, feats, labels, bbox_targets, centerness_targets):
            bbox_preds = self.reg(feats).exp()
            centerness = self.ctr(feats).squeeze(-1)
            pos_inds = ((labels >= 0) & (labels < self.num_classes)).nonzero().reshape(-1)
            num_pos = max(len(pos_inds), 1.0)
            pos_bbox = bbox_preds[pos_inds]
            pos_bbox_targets = bbox_targets[pos_inds]
            loss_bbox = F.smooth_l1_loss(pos_bbox, pos_bbox_targets, reduction="sum") / num_pos
            loss_ctr = F.binary_cross_entropy_with_logits(
                centerness[pos_inds], centerness_targets[pos_inds], reduction="sum"
            ) / num_pos
            return loss_bbox + loss_ctr
    """
)

CASES = {
    "electra": ELECTRA,
    "fairseq": FAIRSEQ,
    "bpr": BPR,
    "switch": SWITCH,
    "tokacc": TOKACC,
    "fcos": FCOS,
}
# breaks torch observes whose lines the static rules do not flag (mask parameters)
OBSERVED: dict[str, tuple[str, ...]] = {
    "electra": (
        "active_logits = logits.view(-1, hidden.shape[1])[active_loss]",
        "active_labels = labels[active_loss]",
    ),
}


def _inputs(torch: Any, case: str, seed: int = 0) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(seed)
    if case == "electra":
        mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0]])
        return torch.randn(2, 6, 8, generator=g), mask, torch.randint(0, 2, (2, 6), generator=g)
    if case == "fairseq":
        target = torch.tensor([[1, 4, 1, 1, 9, 1], [3, 1, 1, 7, 1, 2]])
        if seed:
            target = target.roll(seed, 1)
        return torch.randint(2, 20, (2, 6), generator=g), target
    if case == "bpr":
        label = torch.tensor([1, 0, 0, 1, 0, 1, 0, 0])
        return (
            torch.randint(0, 10, (8,), generator=g),
            torch.randint(0, 10, (8,), generator=g),
            label.roll(seed),
        )
    if case == "switch":
        mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]).roll(seed, 1)
        return torch.randn(2, 5, 8, generator=g), mask
    if case == "tokacc":
        out = torch.tensor([[3, 5, 0, 0], [7, 1, 2, 0], [4, 0, 0, 0]]).roll(seed, 0)
        return torch.randint(1, 12, (3, 4), generator=g), out
    assert case == "fcos"
    labels = torch.tensor([3, 0, 3, 1, 3, 3, 2, 3, 3, 0]).roll(seed)
    return (
        torch.randn(10, 5, generator=g),
        labels,
        torch.rand(10, 4, generator=g),
        torch.rand(10, generator=g),
    )


# ---------------------------------------------------------------------------- VALID (text)
def test_a_loss_module_bound_in_the_function_is_its_functional_loss(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, ELECTRA, OBSERVED["electra"])
    assert "active_logits = logits.view(-1, hidden.shape[1])\n" in out
    assert (
        "torch.where(active_loss, torch.nn.functional.binary_cross_entropy_with_logits("
        'active_logits, active_labels.float(), reduction="none"), 0).sum() / active_loss.sum()'
    ) in out


def test_identity_views_of_a_cross_entropys_rows_and_targets_are_dropped(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, FAIRSEQ)
    assert "logits = self.lm_head(torch.where(masked_tokens.unsqueeze(-1), features, 1))" in out
    assert "F.log_softmax(logits, dim=-1, dtype=torch.float32).flatten(0, -2)," in out
    assert "torch.where(masked_tokens, targets, self.padding_idx).flatten()," in out
    assert ".view(-1" not in out


def test_index_select_of_a_masks_indices_reads_as_the_selection(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, BPR)
    assert "nonzero" not in out and "index_select" not in out
    assert "pos_idx_mask = label == 1" in out
    assert "F.logsigmoid(torch.where(pos_idx_mask_b, scores, 1))" in out
    assert "F.logsigmoid(-torch.where(neg_idx_mask_b, scores, 1))" in out


def test_one_hot_of_a_selection_keeps_one_row_per_element(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, SWITCH)
    assert "valid_mask = attention_mask.reshape(-1) > 0" in out
    assert (
        "F.one_hot(torch.where(valid_mask, expert_index.reshape(-1), 0), self.num_experts)" in out
    )
    assert "torch.where(valid_mask.unsqueeze(-1), expert_mask, 0).sum(0) / valid_mask.sum()" in out


def test_a_count_bound_to_a_name_and_an_element_mask_by_method(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, TOKACC)
    assert "num_correct = torch.where(non_padding, scores.argmax(-1).eq(tgt_out), 0).sum()" in out
    assert "num_non_padding = non_padding.sum()" in out
    assert "n_words = num_non_padding.clamp(min=1)" in out


def test_the_mask_is_shaped_against_each_losss_own_leaf(tmp_path: Path) -> None:
    out = fix_masks(tmp_path, FCOS)
    assert "num_pos = pos_inds_mask.sum().clamp(min=1.0)" in out
    # the centerness loss is [N]: the mask shaped against `centerness`, not the [N, 4] boxes
    assert (
        "pos_inds_mask.reshape(pos_inds_mask.shape + (1,) * (centerness.dim() - "
        "pos_inds_mask.dim()))"
    ) in out


# ---------------------------------------------------------------------------- INVALID
def test_one_hot_with_a_class_count_from_the_data_is_not_followed(tmp_path: Path) -> None:
    code = SWITCH.replace(
        "F.one_hot(expert_index.reshape(-1)[valid], self.num_experts)",
        "F.one_hot(expert_index.reshape(-1)[valid], int(expert_index.max()) + 1)",
    )
    out = fix_masks(tmp_path, code)
    assert "F.one_hot(expert_index.reshape(-1)[valid]" in out


def test_a_count_read_as_a_size_stays_a_python_number(tmp_path: Path) -> None:
    code = TOKACC.replace(
        "        n_words = max(num_non_padding, 1)\n",
        "        n_words = max(num_non_padding, 1)\n        buf = torch.zeros(num_non_padding)\n",
    )
    out = fix_masks(tmp_path, code)
    assert "tgt_out.masked_select(non_padding).numel()" in out
    assert "`tgt_out.masked_select(non_padding)`" in fix_reasons(tmp_path, code, ("CL110", "CL111"))


def test_a_view_to_another_row_size_is_not_an_identity(tmp_path: Path) -> None:
    code = FAIRSEQ.replace("logits.view(-1, logits.size(-1))", "logits.view(-1, 10)")
    out = fix_masks(tmp_path, code)
    assert "features[masked_tokens]" in out and "target[masked_tokens]" in out


def test_a_flattened_two_dim_selection_is_not_an_identity(tmp_path: Path) -> None:
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def forward(self, x, y):
                keep = x.sum(-1) > 0
                a = x[keep, :2].view(-1)
                return F.l1_loss(a, y[keep, :2].view(-1))
        """
    )
    out = fix_masks(tmp_path, code)
    assert "x[keep, :2].view(-1)" in out


def test_a_loss_module_bound_twice_is_not_read_as_a_function(tmp_path: Path) -> None:
    code = ELECTRA.replace(
        "        loss_fct = nn.BCEWithLogitsLoss()\n",
        "        loss_fct = nn.BCEWithLogitsLoss()\n"
        "        if labels.dim() > 2:\n"
        "            loss_fct = nn.MSELoss()\n",
    )
    out = fix_text(
        tmp_path, code, ("CL110", "CL111"), observed=[(t, "GB0036") for t in OBSERVED["electra"]]
    )[0]
    assert "loss_fct(active_logits, active_labels.float())" in out
    assert "labels[active_loss]" in out


def test_a_comparison_method_with_a_computed_tensor_is_not_an_element_mask(
    tmp_path: Path,
) -> None:
    """``x.ne(t)`` with ``t`` computed (a broadcast tensor) is not known to be an element mask
    of ``x``: the count is written rank-agnostic (the mask expanded to ``x``), not
    ``mask.sum()``."""
    code = TOKACC.replace("tgt_out.ne(self.pad_idx)", "tgt_out.ne(tgt_in.amax(0))")
    out = fix_masks(tmp_path, code)
    assert "num_non_padding = non_padding.sum()" not in out
    assert ".expand_as(tgt_out).sum()" in out


# ---------------------------------------------------------------------------- torch
# the VALID cases break before the fix (what the rewrite removes is real); the fixed model
# compiles whole and computes the same
test_the_originals_break, test_fixed_model_compiles_whole_and_computes_the_same = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: fix_masks(tmp_path, code, OBSERVED.get(case, ())),
    _inputs,
    prefix="fix25b",
)


@pytest.mark.torch
def test_one_hot_of_unselected_out_of_range_classes_does_not_raise(tmp_path: Path) -> None:
    """The positions the mask leaves out may hold a value `one_hot` rejects (an ignored label
    -100): the rewrite reads 0 there, as the selection never read them."""
    torch = pytest.importorskip("torch")
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.num_classes = 3
                self.w = nn.Parameter(torch.ones(3))

            def forward(self, labels):
                idx = torch.where(labels >= 0)[0]
                hist = F.one_hot(labels[idx], self.num_classes).float().mean(dim=0)
                return (hist * self.w).sum()
        """
    )
    fixed = fix_masks(tmp_path, code)
    assert "one_hot(torch.where(idx_mask.view(labels.shape), labels, 0)" in fixed
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "fix25b"), load_module(tmp_path / "b.py", "fix25b")
    labels = torch.tensor([2, -100, 0, 1, -100, 2])
    assert_same_as_original(a, b, (labels,))


FOCAL = HEAD + textwrap.dedent(
    """\
    def sigmoid_focal_loss(inputs, targets, gamma: float = 2, reduction: str = "none"):
        p = torch.sigmoid(inputs)
        ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce_loss * ((1 - p_t) ** gamma)
        if reduction == "sum":
            loss = loss.sum()
        return loss


    class Model(nn.Module):
        def forward(self, logits, target, matched):
            valid = matched != -2
            return sigmoid_focal_loss(logits[valid], target[valid], reduction="sum")
    """
)


def test_a_function_of_the_file_gets_the_masked_reduction_recipe(tmp_path: Path) -> None:
    """A selection passed to a function of this file is not followed (the proposal stays);
    the reason names the function and the remedy."""
    out = fix_masks(tmp_path, FOCAL)
    assert "sigmoid_focal_loss(logits[valid], target[valid]" in out
    why = fix_reasons(tmp_path, FOCAL, ("CL110", "CL111"))
    assert "`sigmoid_focal_loss` is a function of this file" in why
    assert 'torch.where(m, sigmoid_focal_loss(x, y, reduction="none"), 0).sum()' in why


@pytest.mark.torch
def test_the_recipe_for_a_function_of_the_file_computes_the_same(tmp_path: Path) -> None:
    """The recipe the reason gives, applied by hand to FOCAL: the same loss and gradients, and
    no break (checked against torch)."""
    torch = pytest.importorskip("torch")
    fixed = FOCAL.replace(
        'return sigmoid_focal_loss(logits[valid], target[valid], reduction="sum")',
        'return torch.where(valid, sigmoid_focal_loss(logits, target, reduction="none"), 0).sum()',
    )
    (tmp_path / "a.py").write_text(FOCAL, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "fix25b"), load_module(tmp_path / "b.py", "fix25b")
    g = torch.Generator().manual_seed(0)
    matched = torch.tensor([[0, -2, 1, -1], [-2, -2, 3, 0]])
    inputs = (
        torch.randn(2, 4, requires_grad=True, generator=g),
        torch.rand(2, 4, generator=g).round(),
        matched,
    )
    want = a.Model()(*inputs)
    (gw,) = torch.autograd.grad(want, inputs[0])
    got = b.Model()(*inputs)
    (gg,) = torch.autograd.grad(got, inputs[0])
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(gg, gw)
    torch._dynamo.reset()
    torch.compile(b.Model(), backend="eager", fullgraph=True)(*inputs)
    torch._dynamo.reset()
