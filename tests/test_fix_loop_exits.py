"""``for`` loops whose ``continue``/``break`` read tensors: a per-iteration mask and a cumulative
flag; loops over ``unique`` values over every class with a presence mask (issue 22, branch
fixgen; ``fix/codemods/loops.py``'s ``masked_for``, ``classes.unique_iter_loop``).

Checked as the other loop rewrites are (``test_fix_loops.py``): the text the codemod writes,
and, marked ``torch``, the fixed model against the original on the installed torch with inputs
where the exits fire and where they do not (no graph break with ``fullgraph``, outputs and
gradients equal, compiled and uncompiled). The INVALID cases are declined or proposed, and
torch shows the difference that makes them unsafe.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import load_module
from .test_fix_branchless import _check, _fix

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# a `continue` on an empty class, a Python counter of the kept classes, `max(n, 1)` after
DICE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, num_classes=4):
            super().__init__()
            self.head = nn.Conv2d(3, num_classes, 1)
            self.num_classes = num_classes

        def forward(self, x, target):
            probs = self.head(x).softmax(dim=1)
            onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
            total = probs.new_zeros(())
            n_valid = 0
            for c in range(self.num_classes):
                tgt = onehot[:, c]
                if tgt.sum() == 0:
                    continue
                p = probs[:, c]
                inter = (p * tgt).sum()
                dice = (2 * inter + 1.0) / (p.sum() + tgt.sum() + 1.0)
                total = total + (1 - dice)
                n_valid += 1
            return total / max(n_valid, 1)
    """
)

# the skip tests a count that divides after it (a 0/0 on the masked side without the guard)
SUPCON = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, feats, labels):
            z = F.normalize(self.proj(feats), dim=-1)
            sim = z @ z.T / 0.1
            n = z.shape[0]
            eye = torch.eye(n, dtype=torch.bool)
            loss, anchors = 0.0, 0
            for i in range(n):
                pos = (labels == labels[i]) & ~eye[i]
                num_pos = pos.sum()
                if num_pos == 0:
                    continue
                logits = sim[i].masked_fill(eye[i], -1e9)
                log_prob = logits - torch.logsumexp(logits, dim=0)
                loss = loss - (log_prob * pos).sum() / num_pos
                anchors += 1
            return loss / max(anchors, 1)
    """
)

# a `continue` and a `break` on tensors in one loop; a list summed after it
BOTH = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, levels=4, budget=2.0):
            super().__init__()
            self.heads = nn.ModuleList(nn.Linear(4, 1) for _ in range(levels))
            self.budget = budget

        def forward(self, x):
            losses = []
            spent = x.new_zeros(())
            for head in self.heads:
                out = head(x).squeeze(-1)
                if not torch.isfinite(out.log()).all():
                    continue
                loss = out.pow(2).mean()
                spent = spent + loss
                losses.append(loss)
                if spent > self.budget:
                    break
            return sum(losses), spent
    """
)

# a loop over `labels.unique()` that skips the background class
CENTER = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, num_classes=4, background=0):
            super().__init__()
            self.centers = nn.Parameter(torch.randn(num_classes, 4))
            self.background = background

        def forward(self, feats, labels):
            loss = feats.new_zeros(())
            for c in labels.unique():
                if c == self.background:
                    continue
                w = (labels == c).float()[:, None]
                diff = (feats - self.centers[c]) * w
                loss = loss + diff.pow(2).sum() / w.sum()
            return loss
    """
)


def _fix_sel(tmp_path: Path, src: str, select: tuple[str, ...]) -> tuple[Any, str]:
    from compilelint.config import Config
    from compilelint.fix.engine import run_fixes

    work = tmp_path / "m.py"
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=select, cache=False), unsafe=True)
    return res, res.changes[0].after.decode() if res.changes else src


# ------------------------------------------------------------------------------ text
def test_continue_becomes_a_per_iteration_mask(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, DICE)
    assert [r.status for r in res.records] == ["applied"], [r.reason for r in res.records]
    assert "keep = torch.logical_not(tgt.sum() == 0)" in after
    assert "total = torch.where(keep, total + (1 - dice), total)" in after
    assert "n_valid = n_valid + torch.where(keep, 1, 0)" in after
    assert "torch.as_tensor(n_valid).clamp(min=1)" in after
    assert "continue" not in after


def test_zero_count_divisor_is_one_where_skipped(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, SUPCON)
    assert [r.status for r in res.records] == ["applied"], [r.reason for r in res.records]
    assert "(log_prob * pos).sum() / torch.where(keep, num_pos, 1)" in after


def test_continue_and_break_in_one_loop(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, BOTH)
    assert {r.status for r in res.records} == {"applied"}, [r.reason for r in res.records]
    assert "active = torch.ones((), dtype=torch.bool)" in after
    assert "losses.append(torch.where(keep, loss, 0))" in after
    assert "break" not in after and "continue" not in after


def test_unique_loop_with_a_skip_goes_over_every_class(tmp_path: Path) -> None:
    res, after = _fix_sel(tmp_path, CENTER, ("CL110", "CL101"))
    assert "applied" in {r.status for r in res.records}, [r.reason for r in res.records]
    assert "for c in range(self.centers.shape[0]):" in after
    assert "(labels == c).any()" in after
    assert "if c == self.background:\n                continue" in after  # a Python int now


def test_python_break_after_a_tensor_continue_is_declined(tmp_path: Path) -> None:
    src = BOTH.replace("if spent > self.budget:", "if len(self.heads) > 2:")
    res, after = _fix(tmp_path, src)
    assert after == src
    reasons = " ".join(r.reason for r in res.records)
    assert "follows a tensor `continue`" in reasons or "`losses` is read inside" in reasons


def test_list_used_beyond_a_reduction_is_declined(tmp_path: Path) -> None:
    src = BOTH.replace("return sum(losses), spent", "return torch.stack(losses), spent")
    res, after = _fix(tmp_path, src)
    assert after == src
    assert "its length is the count of kept iterations" in res.records[0].reason


# ------------------------------------------------------------------------------ torch
@pytest.mark.torch
@pytest.mark.parametrize("hi", [1, 2, 4], ids=["one-class", "some-absent", "all-present"])
def test_valid_dice_on_torch(tmp_path: Path, hi: int) -> None:
    _, after = _fix(tmp_path, DICE)
    _check(tmp_path, DICE, after, lambda t: [t.randn(2, 3, 5, 5), t.randint(0, hi, (2, 5, 5))])


@pytest.mark.torch
@pytest.mark.parametrize(
    "labels", [[0, 1, 0, 2, 1, 3], [0, 0, 1, 1, 2, 2]], ids=["singletons", "all-paired"]
)
def test_valid_supcon_on_torch(tmp_path: Path, labels: list[int]) -> None:
    _, after = _fix(tmp_path, SUPCON)
    _check(tmp_path, SUPCON, after, lambda t: [t.randn(6, 4), t.tensor(labels)])


@pytest.mark.torch
@pytest.mark.parametrize(
    ("budget", "neg"), [(1e9, False), (1e-3, False), (1e9, True)], ids=["none", "break", "skip"]
)
def test_valid_continue_and_break_on_torch(tmp_path: Path, budget: float, neg: bool) -> None:
    _, after = _fix(tmp_path, BOTH)

    def prep(m: Any) -> None:
        for h in m.heads:  # positive outputs on positive inputs
            h.weight.data.abs_()
            h.bias.data.fill_(0.1)
        if neg:  # the second level's outputs are negative: its log is NaN, it is skipped
            m.heads[1].weight.data.zero_()
            m.heads[1].bias.data.fill_(-1.0)

    _check(tmp_path, BOTH, after, lambda t: [t.rand(5, 4)], {"budget": budget}, prep=prep)


@pytest.mark.torch
@pytest.mark.parametrize(
    "labels", [[0, 0, 1, 1, 3, 3], [1, 2, 2, 3, 1, 1]], ids=["with-background", "no-background"]
)
def test_valid_unique_loop_on_torch(tmp_path: Path, labels: list[int]) -> None:
    _, after = _fix_sel(tmp_path, CENTER, ("CL110", "CL101"))
    _check(tmp_path, CENTER, after, lambda t: [t.randn(6, 4), t.tensor(labels)])


@pytest.mark.torch
def test_invalid_masking_a_collected_list_changes_its_length(tmp_path: Path) -> None:
    """Why a list read as a whole is declined: masked, it holds an entry per iteration (zeros
    where eager skipped), eager's only the kept ones."""
    torch = pytest.importorskip("torch")
    src = BOTH.replace("return sum(losses), spent", "return torch.stack(losses), spent")
    masked = src.replace(
        "            if not torch.isfinite(out.log()).all():\n                continue\n",
        "            keep = torch.isfinite(out.log()).all()\n",
    ).replace("losses.append(loss)", "losses.append(torch.where(keep, loss, 0))")
    (tmp_path / "orig.py").write_text(src, encoding="utf-8")
    (tmp_path / "masked.py").write_text(masked, encoding="utf-8")
    torch.manual_seed(0)
    orig = load_module(tmp_path / "orig.py", "orig").Model()
    other = load_module(tmp_path / "masked.py").Model()
    for h in orig.heads:
        h.weight.data.abs_()
        h.bias.data.fill_(0.1)
    orig.heads[1].weight.data.zero_()
    orig.heads[1].bias.data.fill_(-1.0)
    other.load_state_dict(orig.state_dict())
    x = torch.rand(5, 4)
    assert orig(x)[0].shape != other(x)[0].shape


# a loop over `torch.unique` that no index bounds: the class's count attribute, checked in-graph
PULL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, max_instances=6):
            super().__init__()
            self.embed = nn.Linear(4, 3)
            self.max_instances = max_instances

        def forward(self, x, ids):
            emb = self.embed(x)
            pull = emb.new_zeros(())
            n = 0
            for k in torch.unique(ids):
                if k == 0:
                    continue
                w = (ids == k).float()[:, None]
                mu = (emb * w).sum(0) / w.sum()
                pull = pull + ((emb - mu).pow(2) * w).sum() / w.sum()
                n += 1
            return pull / max(n, 1)
    """
)


def test_unique_loop_bounded_by_a_count_attribute_is_checked(tmp_path: Path) -> None:
    res, after = _fix_sel(tmp_path, PULL, ("CL110", "CL101"))
    assert "applied" in {r.status for r in res.records}, [r.reason for r in res.records]
    assert "for k in range(self.max_instances):" in after
    assert "torch._assert_async(((ids >= 0) & (ids < self.max_instances)).all()" in after


@pytest.mark.torch
@pytest.mark.parametrize("ids", [[0, 1, 1, 3, 3, 3], [2, 2, 5, 5, 1, 1]], ids=["bg", "no-bg"])
def test_valid_unique_loop_count_attribute_on_torch(tmp_path: Path, ids: list[int]) -> None:
    _, after = _fix_sel(tmp_path, PULL, ("CL110", "CL101"))
    _check(tmp_path, PULL, after, lambda t: [t.randn(6, 4), t.tensor(ids)])


@pytest.mark.torch
def test_invalid_class_beyond_the_count_attribute_raises(tmp_path: Path) -> None:
    """Eager visits an id past `max_instances`; the rewrite's in-graph check raises there
    instead of leaving it out silently."""
    torch = pytest.importorskip("torch")
    _, after = _fix_sel(tmp_path, PULL, ("CL110", "CL101"))
    (tmp_path / "orig.py").write_text(PULL, encoding="utf-8")
    (tmp_path / "fixed.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = load_module(tmp_path / "orig.py", "orig").Model()
    fixed = load_module(tmp_path / "fixed.py").Model()
    fixed.load_state_dict(orig.state_dict())
    x, ids = torch.randn(6, 4), torch.tensor([1, 1, 9, 9, 2, 2])
    orig(x, ids)  # eager counts id 9
    with pytest.raises(RuntimeError):
        fixed(x, ids)


# `if t: return v` in a loop, `x = v` next, `return x` after it (the test reads the old `x`)
REFINE = HEAD + textwrap.dedent(
    """\
    def refine(step_fn, x, n_steps=10, tol=1e-3):
        for _ in range(n_steps):
            x_new = step_fn(x)
            if (x_new - x).abs().max() < tol:
                return x_new
            x = x_new
        return x


    class Model(nn.Module):
        def __init__(self, tol=1e-4):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.tol = tol

        def step(self, x):
            return 0.5 * x + 0.1 * torch.tanh(self.lin(x))

        def forward(self, x):
            return refine(self.step, x, n_steps=12, tol=self.tol)
    """
)


def test_return_in_a_loop_with_the_value_kept_next(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, REFINE)
    assert [r.status for r in res.records] == ["applied"], [r.reason for r in res.records]
    assert "stop_now = (x_new - x).abs().max() < tol" in after
    assert "x = torch.where(active, x_new, x)" in after
    assert "return x_new" not in after


@pytest.mark.torch
@pytest.mark.parametrize("tol", [1e-2, 0.0], ids=["returns-early", "runs-to-bound"])
def test_valid_return_in_a_loop_on_torch(tmp_path: Path, tol: float) -> None:
    _, after = _fix(tmp_path, REFINE)
    _check(tmp_path, REFINE, after, lambda t: [t.randn(3, 4)], {"tol": tol})
