"""A mask's selections followed to their reductions, masked cross-entropy, the ends of
``nonzero()``, ``unique`` classes reduced at once and size reads (issue 22, branch fixflow).

Each rewrite is checked twice: the text the codemod writes (static, fast), and, marked
``torch``, the fixed model against the original on the installed torch (no graph break with
``fullgraph=True``; outputs and parameter gradients equal, compiled and uncompiled). The cases
where the rewrite must not apply (a selection returned or concatenated, a size read) are
checked for their reason.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_result, fixed_text, load_module
from .torch_checks import compile_without_break

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

DEPTH = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, gt):
            pred = F.softplus(self.lin(x)) + 1e-3
            valid = (gt > 0.1) & (gt < 0.9)
            pred = pred[valid]
            gt = gt[valid]
            thresh = torch.max(gt / pred, pred / gt)
            a1 = (thresh < 1.25).float().mean()
            abs_rel = torch.mean(torch.abs(gt - pred) / gt)
            rmse = torch.sqrt(((gt - pred) ** 2).mean())
            return abs_rel + rmse, a1
    """
)
DEPTH_FIXED = """\
        pred = torch.where(valid, pred, 1)
        gt = torch.where(valid, gt, 1)
        thresh = torch.max(gt / pred, pred / gt)
        a1 = torch.where(valid, (thresh < 1.25).float(), 0).sum() / valid.sum()
        abs_rel = torch.where(valid, torch.abs(gt - pred) / gt, 0).sum() / valid.sum()
        rmse = torch.sqrt(torch.where(valid, (gt - pred) ** 2, 0).sum() / valid.sum())
"""

SILOG = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.variance_focus = 0.85

        def forward(self, x, gt):
            est = torch.sigmoid(self.lin(x)) * 10.0 + 0.1
            mask = gt > 0.3
            d = torch.log(est[mask]) - torch.log(gt[mask])
            return torch.sqrt((d**2).mean() - self.variance_focus * (d.mean() ** 2))
    """
)

MNN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, y):
            d1 = self.lin(x)
            d2 = self.lin(y)
            dist = torch.cdist(d1, d2)
            _, i2 = dist.min(dim=1)
            _, i1 = dist.min(dim=0)
            ar = torch.arange(d1.shape[0])
            mutual = i1[i2] == ar
            good = mutual.nonzero(as_tuple=True)[0]
            diff = d1[ar[good]] - d2[i2[good]]
            return diff.pow(2).sum(-1).mean()
    """
)

CE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            logits = self.lin(x)
            labels = (gt * 5).long().clamp(max=4)
            keep = gt > 0.4
            return F.cross_entropy(logits[keep], labels[keep], label_smoothing=0.1)
    """
)

LAST = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, gt):
            h = self.lin(x)
            out = []
            for b in range(h.shape[0]):
                last = (gt[b] > 0.2).nonzero().max()
                first = (gt[b] > 0.2).nonzero().min()
                out.append(h[b].index_select(0, last.view(1)) + h[b].index_select(0, first.view(1)))
            return torch.cat(out)
    """
)

DICE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            probs = self.lin(x).softmax(-1)
            target = (gt * 3).long()
            onehot = F.one_hot(target, 5).float()
            inter = (probs * onehot).sum((0, 1))
            dice = (2 * inter + 1) / (probs.sum((0, 1)) + onehot.sum((0, 1)) + 1)
            present = torch.unique(target)
            return 1.0 - dice[present].mean()
    """
)

LOSSES = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, gt):
            pred = self.lin(x)
            valid = gt > 0.2
            pred = pred[valid]
            gt = gt[valid]
            smooth = F.smooth_l1_loss(pred, gt, beta=0.5)
            return smooth + 0.1 * F.mse_loss(torch.log(pred.abs() + 1), torch.log(gt), reduction="sum")
    """
)

DICE_COUNT = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            probs = self.lin(x).softmax(-1)
            target = (gt * 3).long()
            onehot = F.one_hot(target, 5).float()
            dice = (2 * (probs * onehot).sum((0, 1)) + 1) / (probs.sum((0, 1)) + onehot.sum((0, 1)) + 1)
            present = torch.unique(target)
            return 1.0 - torch.mean(dice[present]) + dice[present].sum() / len(present)
    """
)

LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 1)

        def forward(self, x, gt):
            ctr = self.lin(x).squeeze(-1)
            losses = []
            for i in range(ctr.shape[0]):
                pos = gt[i] > 0.3
                pred = ctr[i][pos]
                target = gt[i][pos]
                bce = F.binary_cross_entropy_with_logits(pred, target, reduction="sum")
                losses.append(bce / target.numel())
            return torch.stack(losses).mean()
    """
)

RETURNED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, gt):
            keep = gt > 0.5
            salient = x[keep]
            return x.sum(), salient
    """
)

SIZE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, batch):
            size = int(batch.max()) + 1
            return torch.zeros(size, x.size(-1)).index_add_(0, batch, x)
    """
)

# a tuple assignment of selections, re-binding the names (torchmetrics-style), a comparison
# with the selection on the right, a count
TUPLE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            conf, preds = self.lin(x).softmax(-1).max(-1)
            target = (gt * 6).long()
            valid = target < 5
            preds, target = preds[valid], target[valid]
            conf = conf[valid]
            correct = (preds == target).float()
            return correct.sum() / correct.numel(), conf.mean()
    """
)
TUPLE_FIXED = """\
        valid = target < 5
        correct = (preds == target).float()
        return torch.where(valid, correct, 0).sum() / valid.sum(), torch.where(valid, conf, 0).sum() / valid.sum()
"""

TUPLE_LOG = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, gt):
            pred = F.softplus(self.lin(x)) + 1e-3
            valid = gt > 0.2
            pred, gt = pred[valid], gt[valid]
            d = torch.log(pred) - torch.log(gt)
            return torch.sqrt((d**2).mean()), torch.mean(torch.abs(gt - pred) / gt)
    """
)

# the classes found before the per-class Dice is computed (the presence mask must follow it)
DICE_FIRST = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            target = (gt * 3).long()
            present = torch.unique(target)
            probs = self.lin(x).softmax(-1)
            onehot = F.one_hot(target, 5).float()
            inter = (probs * onehot).sum((0, 1))
            dice = (2 * inter + 1) / (probs.sum((0, 1)) + onehot.sum((0, 1)) + 1)
            return 1.0 - dice[present].mean()
    """
)

# per-class Dice in a loop over the classes, `len(present)` as the count
DICE_LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 4)

        def forward(self, x, gt):
            probs = torch.sigmoid(self.lin(x))
            target = (gt * 3).long()
            present = target.unique()
            scores = []
            for c in range(4):
                p = probs[..., c]
                t = (target == c).float()
                scores.append((2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1))
            dice = torch.stack(scores)

            # the mean over the present classes
            loss = 1.0 - dice[present].sum() / len(present)
            return loss
    """
)


def _fix(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL110", "CL111")) -> str:
    return fixed_text(fix_result(tmp_path, code, select), code)


def _reasons(tmp_path: Path, code: str, select: tuple[str, ...]) -> list[str]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=select, cache=False), unsafe=True)
    return [r.reason for r in res.records]


def test_selections_followed_through_statements(tmp_path: Path) -> None:
    assert DEPTH_FIXED in _fix(tmp_path, DEPTH)


def test_log_of_selections_keeps_finite_leaves(tmp_path: Path) -> None:
    out = _fix(tmp_path, SILOG)
    assert "d = torch.log(torch.where(mask, est, 1)) - torch.log(torch.where(mask, gt, 1))" in out
    assert "torch.where(mask, d**2, 0).sum() / mask.sum()" in out
    assert "torch.where(mask, d, 0).sum() / mask.sum()" in out


def test_rows_gathered_by_selected_indices(tmp_path: Path) -> None:
    out = _fix(tmp_path, MNN)
    assert "good = " not in out
    assert "diff = d1[ar] - d2[i2]" in out
    assert "torch.where(mutual, diff.pow(2).sum(-1), 0).sum() / mutual.sum()" in out


def test_masked_cross_entropy_by_ignore_index(tmp_path: Path) -> None:
    out = _fix(tmp_path, CE)
    assert (
        "F.cross_entropy(logits.flatten(0, -2), torch.where(keep, labels, -100).flatten(), "
        "label_smoothing=0.1)" in out
    )


def test_nonzero_max_and_min_by_argmax(tmp_path: Path) -> None:
    out = _fix(tmp_path, LAST)
    assert "last = (gt[b] > 0.2).long().cumsum(0).argmax()" in out
    assert "first = (gt[b] > 0.2).long().argmax()" in out


def test_unique_classes_reduced_at_once(tmp_path: Path) -> None:
    out = _fix(tmp_path, DICE)
    assert "torch.isin(torch.arange(dice.shape[0], device=target.device), target)" in out
    assert "return 1.0 - (torch.where(" in out and "dice, 0).sum() / " in out


def test_elementwise_losses_of_flow_values(tmp_path: Path) -> None:
    out = _fix(tmp_path, LOSSES)
    assert (
        'smooth = torch.where(valid, F.smooth_l1_loss(pred, gt, beta=0.5, reduction="none"), 0)'
        ".sum() / valid.sum()" in out
    )
    assert 'F.mse_loss(torch.log(pred.abs() + 1), torch.log(gt), reduction="none"), 0).sum()' in out


def test_unique_classes_in_function_reductions_and_counts(tmp_path: Path) -> None:
    out = _fix(tmp_path, DICE_COUNT)
    assert "len(present)" not in out and "torch.unique" not in out
    assert "torch.mean(" not in out


def test_a_flow_inside_a_per_image_loop(tmp_path: Path) -> None:
    out = _fix(tmp_path, LOOP)
    assert "pred = ctr[i]\n" in out and "target = gt[i]\n" in out
    assert "bce / pos.sum()" in out


def test_a_flow_value_read_in_a_later_iteration_is_not_rewritten(tmp_path: Path) -> None:
    code = LOOP.replace(
        "            pos = gt[i] > 0.3\n",
        "            pos = gt[i] > 0.3\n            if i:\n                losses.append(pred.sum())\n",
    )
    assert code != LOOP
    assert "ctr[i][pos]" in _fix(tmp_path, code)


def test_a_returned_selection_is_proposed_with_the_config_remedy(tmp_path: Path) -> None:
    assert _fix(tmp_path, RETURNED) == RETURNED
    reasons = " ".join(_reasons(tmp_path, RETURNED, ("CL111",)))
    assert "`salient` is used in `return x.sum(), salient`" in reasons
    assert "capture_dynamic_output_shape_ops" in reasons


def test_a_size_read_names_its_remedies(tmp_path: Path) -> None:
    assert _fix(tmp_path, SIZE, ("CL102", "CL103")) == SIZE
    reasons = " ".join(_reasons(tmp_path, SIZE, ("CL102", "CL103")))
    assert "as a size it makes the output's shape depend on the data" in reasons
    assert "capture_scalar_outputs" in reasons


def test_a_selection_used_by_a_module_is_not_rewritten(tmp_path: Path) -> None:
    code = DEPTH.replace("return abs_rel + rmse, a1", "return abs_rel + rmse, a1, self.lin(pred)")
    assert "pred[valid]" in _fix(tmp_path, code)


def test_tuple_assignment_of_selections_followed(tmp_path: Path) -> None:
    assert TUPLE_FIXED in _fix(tmp_path, TUPLE)
    out = _fix(tmp_path, TUPLE_LOG)
    assert "pred, gt = torch.where(valid, pred, 1), torch.where(valid, gt, 1)" in out
    assert "torch.sqrt(torch.where(valid, d**2, 0).sum() / valid.sum())" in out


def test_tuple_assignment_flowing_on_is_proposed(tmp_path: Path) -> None:
    code = TUPLE.replace(
        "return correct.sum() / correct.numel(), conf.mean()", "return preds, target"
    )
    assert code != TUPLE
    assert "preds[valid], target[valid]" in _fix(tmp_path, code)
    reasons = " ".join(_reasons(tmp_path, code, ("CL111",)))
    assert "`target` is used in `return preds, target`" in reasons
    assert "capture_dynamic_output_shape_ops" in reasons


def test_presence_mask_follows_the_scores_it_sizes(tmp_path: Path) -> None:
    out = _fix(tmp_path, DICE_FIRST)
    assert "present = torch.unique" not in out
    want = (
        "        dice = (2 * inter + 1) / (probs.sum((0, 1)) + onehot.sum((0, 1)) + 1)\n"
        "        present_present = torch.isin(torch.arange(dice.shape[0], device=target.device), "
        "target)\n"
        "        return 1.0 - (torch.where(present_present, dice, 0).sum() / present_present.sum())\n"
    )
    assert want in out
    out = _fix(tmp_path, DICE_LOOP)
    want = (
        "        dice = torch.stack(scores)\n\n"
        "        # the mean over the present classes\n"
        "        present_present = torch.isin(torch.arange(dice.shape[0], device=target.device), "
        "target)\n"
        "        loss = 1.0 - (torch.where(present_present, dice, 0).sum()) / present_present.sum()\n"
    )
    assert want in out


def test_presence_mask_not_moved_past_a_new_target(tmp_path: Path) -> None:
    code = DICE_FIRST.replace(
        "        probs = self.lin(x)",
        "        target = target[:, ::2]\n        probs = self.lin(x[:, ::2])",
    )
    assert code != DICE_FIRST
    assert _fix(tmp_path, code) == code
    reasons = " ".join(_reasons(tmp_path, code, ("CL110",)))
    assert "`target` is bound again in between" in reasons


def test_presence_mask_not_moved_past_scores_bound_again(tmp_path: Path) -> None:
    code = DICE_FIRST.replace(
        "        return 1.0 - dice[present].mean()",
        "        out = dice[present].mean()\n        dice = dice * 2\n        return out + dice.sum()",
    )
    assert code != DICE_FIRST
    assert _fix(tmp_path, code) == code
    assert "bound again where `present` is used" in " ".join(_reasons(tmp_path, code, ("CL110",)))


# ---------------------------------------------------------------------------- with torch
CASES = {
    "tuple": TUPLE,
    "tuple_log": TUPLE_LOG,
    "dice_first": DICE_FIRST,
    "dice_loop": DICE_LOOP,
    "depth": DEPTH,
    "silog": SILOG,
    "mnn": MNN,
    "ce": CE,
    "last": LAST,
    "dice": DICE,
    "losses": LOSSES,
    "dice_count": DICE_COUNT,
    "loop": LOOP,
}


def _load(path: Path) -> Any:
    return load_module(path, "flow")


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = CASES[case]
    fixed = _fix(tmp_path, code)
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = _load(tmp_path / "a.py"), _load(tmp_path / "b.py")

    def run(mod: Any, compiled: bool, inputs: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        fn = compile_without_break(model, inputs) if compiled else model
        out = fn(*inputs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        sum(o.float().sum() for o in outs).backward()
        return [o.detach() for o in outs], [p.grad for p in model.parameters()]

    for seed in range(3):
        torch.manual_seed(100 + seed)
        inputs = (torch.randn(4, 6, 8), torch.rand(4, 6))
        if case in ("depth", "losses", "tuple_log"):
            inputs = (torch.randn(4, 8), torch.rand(4, 8))
        if case == "silog":
            inputs = (torch.randn(4, 8), torch.rand(4, 8) * 3)
        if case == "mnn":
            inputs = (torch.randn(7, 8), torch.randn(5, 8))
        if case in ("dice", "dice_count"):
            inputs = (torch.randn(4, 6, 8), torch.rand(4, 6))
        want = run(a, False, inputs)
        for compiled in (False, True):
            got = run(b, compiled, inputs)
            torch.testing.assert_close(got[0], want[0])
            torch.testing.assert_close(got[1], want[1])


def test_a_count_used_as_a_python_number_is_not_rewritten(tmp_path: Path) -> None:
    code = LOOP.replace(
        "            losses.append(bce / target.numel())",
        "            if target.numel() > 0:\n                losses.append(bce / target.numel())",
    )
    assert code != LOOP
    assert "ctr[i][pos]" in _fix(tmp_path, code)
