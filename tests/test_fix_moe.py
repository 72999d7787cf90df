"""Dense dispatch of sparse Mixture-of-Experts loops (``src/compilelint/fix/codemods/moe.py``).

VALID: a loop over experts that selects the routed tokens with a data-dependent shape, runs a
row-wise expert on them and scatter-adds the weighted rows back is rewritten to run every expert
on every token with the routing weight (zero when not routed); torch gives the same outputs,
and the rewritten model compiles without a break. INVALID: an expert that is not known to act
per token (``Dropout``) is only proposed, and a capacity cut (``top = top[:capacity]``) or rows
used elsewhere are declined; torch shows why (the dense form of a capacity-dropping loop adds
the dropped tokens' outputs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.fix.engine import EngineResult

from .fix_modules import fix_result, fixed_text

MIXTRAL = """\
import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w1 = nn.Linear(d, 2 * d, bias=False)
        self.w2 = nn.Linear(2 * d, d, bias=False)
        self.w3 = nn.Linear(d, 2 * d, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, d=8, n=4, k=2):
        super().__init__()
        self.n, self.k = n, k
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList([Expert(d) for _ in range(n)])

    def forward(self, x):
        w = F.softmax(self.gate(x), dim=1)
        w, sel = torch.topk(w, self.k, dim=-1)
        out = torch.zeros_like(x)
        expert_mask = F.one_hot(sel, num_classes=self.n).permute(2, 1, 0)
        for e in range(self.n):
            idx, top = torch.where(expert_mask[e])
            if top.shape[0] == 0:
                continue
            y = self.experts[e](x[top]) * w[top, idx, None]
            out.index_add_(0, top, y.to(x.dtype))
        return out
"""

SWITCH = """\
import torch
from torch import nn


class Switch(nn.Module):
    def __init__(self, d=8, n=4):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(), nn.Linear(2 * d, d)) for _ in range(n)]
        )

    def forward(self, x):
        p, route = torch.softmax(self.router(x), -1).max(-1)
        out = x.new_zeros(x.shape)
        for i in range(self.n):
            mask = route == i
            if mask.any():
                out[mask] = self.experts[i](x[mask])
        return out * p[:, None]
"""

CAPACITY = MIXTRAL.replace(
    "            if top.shape[0] == 0:\n",
    "            top, idx = top[:3], idx[:3]\n            if top.shape[0] == 0:\n",
)


def _fix(tmp_path: Path, src: str, code: str) -> tuple[EngineResult, str]:
    res = fix_result(tmp_path, src, (code,), name="m.py")
    return res, fixed_text(res, src)


def test_mixtral_pairs_become_per_token_weights(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, MIXTRAL, "CL110")
    assert [r.status for r in res.records] == ["applied"]
    assert "E/k x the expert FLOPs" in res.records[0].title
    assert "torch.where(expert_mask[e])" not in after
    assert "continue" not in after
    assert "y = self.experts[e](x) * (w * expert_mask[e].t()).sum(-1)[:, None]" in after
    assert "out.add_(torch.where(expert_mask[e].any(0)[..., None], y.to(x.dtype), 0))" in after


def test_a_loop_over_tolist_rows_is_not_a_count_loop(tmp_path: Path) -> None:
    """`for row in x.argmax(-1).tolist():` binds `row` in a `for`, not an assignment: the MoE
    count-loop reader took that binding for `row = ...` and CL105 ended in an internal error."""
    src = (
        "import torch\nfrom torch import nn\n\n\nclass T(nn.Module):\n"
        "    def forward(self, logits):\n        spans = []\n"
        "        for row in logits.argmax(-1).tolist():\n"
        "            start = None\n            for i, t in enumerate(row):\n"
        "                if t == 1 and start is None:\n                    start = i\n"
        "            spans.append(start)\n        return spans\n"
    )
    res, _ = _fix(tmp_path, src, "CL105")
    assert res.records
    assert not any("internal error" in (r.reason or "") for r in res.records)


def test_switch_mask_assignment_becomes_where(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, SWITCH, "CL111")
    assert {r.status for r in res.records} == {"applied"}
    assert "out = torch.where(mask[..., None], self.experts[i](x), out)" in after
    assert "if mask.any():" not in after


def test_dropout_expert_is_only_proposed(tmp_path: Path) -> None:
    src = SWITCH.replace("nn.ReLU(),", "nn.ReLU(), nn.Dropout(0.1),")
    res, after = _fix(tmp_path, src, "CL111")
    assert after == src
    assert {r.status for r in res.records} == {"proposed"}
    assert "`nn.Dropout` draws a new mask per call" in res.records[0].reason


def test_capacity_cut_is_declined(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, CAPACITY, "CL110")
    assert after == CAPACITY
    assert "`top` are changed by `top, idx = top[:3], idx[:3]` (a capacity cut" in (
        res.records[0].reason
    )


def test_expert_rows_kept_in_a_list_are_declined(tmp_path: Path) -> None:
    src = SWITCH.replace(
        "        for i in range(self.n):\n",
        "        keep = []\n        for i in range(self.n):\n",
    ).replace(
        "                out[mask] = self.experts[i](x[mask])\n",
        "                h = self.experts[i](x[mask])\n                keep.append(h)\n"
        "                out[mask] = h\n",
    )
    res, after = _fix(tmp_path, src, "CL111")
    assert after == src
    assert "`keep.append(h)` does more than compute and scatter" in res.records[0].reason


def _load(path: Path, name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"moe_{path.stem}_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.torch
@pytest.mark.parametrize(
    ("src", "code", "name"),
    [(MIXTRAL, "CL110", "Block"), (SWITCH, "CL111", "Switch")],
    ids=["mixtral", "switch"],
)
def test_valid_dense_dispatch_matches_and_compiles_without_breaks(
    tmp_path: Path, src: str, code: str, name: str
) -> None:
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, src, code)
    (tmp_path / "orig.py").write_text(src, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", name)()
    dense = _load(tmp_path / "dense.py", name)()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(11, 8, requires_grad=True)
    a, b = orig(x), dense(x)
    torch.testing.assert_close(a, b)
    ga = torch.autograd.grad(a.square().sum(), [x, *orig.parameters()], allow_unused=True)
    gb = torch.autograd.grad(b.square().sum(), [x, *dense.parameters()], allow_unused=True)
    for u, v in zip(ga, gb, strict=True):
        if u is None:  # an expert no token was routed to: zero gradient in the dense form
            assert v is None or not v.any()
        else:
            torch.testing.assert_close(u, v)
    torch._dynamo.reset()
    explain = torch._dynamo.explain(dense)(x.detach())
    assert explain.graph_break_count == 0 and not explain.break_reasons  # see tests/torch_checks.py
    assert torch._dynamo.explain(orig)(x.detach()).graph_break_count != 0  # breaks (or gives up)
    torch.testing.assert_close(torch.compile(dense, backend="eager")(x.detach()), a.detach())


@pytest.mark.torch
def test_invalid_capacity_cut_differs_from_its_dense_form(tmp_path: Path) -> None:
    """What the codemod declines: the dense form of a capacity-dropping loop (the cut removed)
    adds the tokens past the capacity, so torch gives other outputs."""
    torch = pytest.importorskip("torch")
    (tmp_path / "cap.py").write_text(CAPACITY, encoding="utf-8")
    _, dense_src = _fix(tmp_path, MIXTRAL, "CL110")
    (tmp_path / "dense.py").write_text(dense_src, encoding="utf-8")
    torch.manual_seed(0)
    cap = _load(tmp_path / "cap.py", "Block")()
    dense = _load(tmp_path / "dense.py", "Block")()
    dense.load_state_dict(cap.state_dict())
    x = torch.randn(16, 8)
    assert not torch.allclose(cap(x), dense(x))


def test_a_reduction_over_the_selected_rows_is_only_proposed(tmp_path: Path) -> None:
    src = MIXTRAL.replace(
        "y = self.experts[e](x[top]) * w[top, idx, None]",
        "y = self.experts[e](x[top]) * w[top, idx, None]\n            y = y - y.mean(0)",
    )
    res, after = _fix(tmp_path, src, "CL110")
    assert after == src
    assert {r.status for r in res.records} == {"proposed"}
    assert "`y.mean(0)` is applied to the selected rows" in res.records[0].reason


# ---------------------------------------------------------------------------- sorted split
SORTED = """\
import torch
import torch.nn.functional as F
from torch import nn


class Sorted(nn.Module):
    def __init__(self, d=8, n=4):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)) for _ in range(n)]
        )

    def forward(self, x):
        weight, expert_idx = torch.softmax(self.router(x), -1).max(-1)
        order = expert_idx.argsort()
        x_sorted = x[order]
        counts = F.one_hot(expert_idx, self.n).sum(0)
        outs = []
        for e, chunk in enumerate(x_sorted.split(counts.tolist())):
            if chunk.shape[0] == 0:
                continue
            outs.append(self.experts[e](chunk))
        y_sorted = torch.cat(outs, dim=0)
        y = torch.empty_like(y_sorted)
        y[order] = y_sorted
        return y * weight[:, None]
"""

# the tokens sorted by their routing weight, not by expert: the chunks are not the experts' rows
SORTED_BY_WEIGHT = SORTED.replace("order = expert_idx.argsort()", "order = weight.argsort()")


def test_sorted_split_loop_becomes_dense_on_the_sorted_rows(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, SORTED, "CL105")
    assert [r.status for r in res.records] == ["applied"]
    assert "E/k x the expert FLOPs" in res.records[0].title
    assert ".tolist()" not in after
    assert (
        "outs.append(sum(torch.where((expert_idx[order] == e_2)[:, None], expert(x_sorted), 0) "
        "for e_2, expert in enumerate(self.experts)))"
    ) in after
    assert "y[order] = y_sorted" in after  # the un-sort is kept


def test_sorted_split_by_another_key_is_declined(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, SORTED_BY_WEIGHT, "CL105")
    assert after == SORTED_BY_WEIGHT
    assert "the split sizes are not shown to be the counts of `weight` per expert" in (
        res.records[0].reason
    )


def test_sorted_split_of_a_non_rowwise_expert_is_only_proposed(tmp_path: Path) -> None:
    src = SORTED.replace("nn.GELU(),", "nn.GELU(), nn.Dropout(0.1),")
    res, after = _fix(tmp_path, src, "CL105")
    assert after == src
    assert {r.status for r in res.records} == {"proposed"}
    assert "`nn.Dropout` draws a new mask per call" in res.records[0].reason


@pytest.mark.torch
def test_valid_sorted_split_dense_form_matches_and_compiles_without_breaks(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, SORTED, "CL105")
    (tmp_path / "orig.py").write_text(SORTED, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Sorted")()
    dense = _load(tmp_path / "dense.py", "Sorted")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(13, 8, requires_grad=True)
    a, b = orig(x), dense(x)
    torch.testing.assert_close(a, b)
    ga = torch.autograd.grad(a.square().sum(), [x, *orig.parameters()], allow_unused=True)
    gb = torch.autograd.grad(b.square().sum(), [x, *dense.parameters()], allow_unused=True)
    for u, v in zip(ga, gb, strict=True):
        if u is None:
            assert v is None or not v.any()
        else:
            torch.testing.assert_close(u, v)
    torch._dynamo.reset()
    assert torch._dynamo.explain(dense)(x.detach()).graph_break_count == 0
    assert torch._dynamo.explain(orig)(x.detach()).graph_break_count != 0


@pytest.mark.torch
def test_invalid_sorted_by_weight_differs_from_the_dense_form(tmp_path: Path) -> None:
    """What the codemod declines: sorted by another key, the `split` chunks are not the rows of
    each expert, and the dense form (same substitution) gives other outputs."""
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, SORTED, "CL105")
    dense_src = after.replace("order = expert_idx.argsort()", "order = weight.argsort()")
    (tmp_path / "orig.py").write_text(SORTED_BY_WEIGHT, encoding="utf-8")
    (tmp_path / "dense.py").write_text(dense_src, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Sorted")()
    dense = _load(tmp_path / "dense.py", "Sorted")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(16, 8)
    assert not torch.allclose(orig(x), dense(x))


OFFSETS = """\
import torch
from torch import nn


class Offsets(nn.Module):
    def __init__(self, d=8, n=4):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.experts = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])

    def forward(self, x):
        gate, expert_idx = self.router(x).softmax(-1).max(-1)
        _, order = torch.sort(expert_idx)
        x_sorted = x[order]
        counts = torch.nn.functional.one_hot(expert_idx, self.n).sum(0).tolist()
        y_sorted = torch.zeros_like(x_sorted)
        start = 0
        for e, n in enumerate(counts):
            if n == 0:
                continue
            y_sorted[start : start + n] = self.experts[e](x_sorted[start : start + n])
            start += n
        return torch.zeros_like(y_sorted).index_copy(0, order, y_sorted) * gate[:, None]
"""


def test_running_offsets_loop_becomes_dense_on_the_sorted_rows(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, OFFSETS, "CL105")
    assert [r.status for r in res.records] == ["applied"]
    assert "for e, n in enumerate(counts)" not in after
    assert ".tolist()" not in after  # the sizes list was read only by the loop
    assert (
        "y_sorted = sum(torch.where((expert_idx[order] == e_2)[:, None], expert(x_sorted), 0) "
        "for e_2, expert in enumerate(self.experts))"
    ) in after


def test_running_offsets_over_unsorted_rows_are_declined(tmp_path: Path) -> None:
    src = OFFSETS.replace("x_sorted = x[order]", "x_sorted = x[order.flip(0)]")
    res, after = _fix(tmp_path, src, "CL105")
    assert after == src
    assert "is not shown to be a copy of the tokens in the sort order" in res.records[0].reason


@pytest.mark.torch
def test_valid_running_offsets_dense_form_matches(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, OFFSETS, "CL105")
    (tmp_path / "orig.py").write_text(OFFSETS, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Offsets")()
    dense = _load(tmp_path / "dense.py", "Offsets")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(10, 8)
    torch.testing.assert_close(orig(x), dense(x))
    torch._dynamo.reset()
    assert torch._dynamo.explain(dense)(x).graph_break_count == 0
    assert torch._dynamo.explain(orig)(x).graph_break_count != 0


COUNTS = """\
import torch
from torch import nn


class Counts(nn.Module):
    def __init__(self, d=8, n=4):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d, d), nn.SiLU()) for _ in range(n)])

    def forward(self, x):
        gate, expert_idx = self.router(x).softmax(-1).max(-1)
        load = torch.bincount(expert_idx, minlength=self.n)
        out = torch.zeros_like(x)
        for e, n in enumerate(load.tolist()):
            if n == 0:
                continue
            rows = torch.where(expert_idx == e)[0]
            out.index_add_(0, rows, self.experts[e](x[rows]) * gate[rows, None])
        return out
"""

# the count scales the expert's rows: it is read for more than the empty-expert skip
COUNTS_SCALED = COUNTS.replace("gate[rows, None])", "gate[rows, None] / n)")


def test_count_loop_becomes_dense_and_its_counts_go(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, COUNTS, "CL105")
    assert [r.status for r in res.records] == ["applied"]
    assert "only skipped empty experts" in res.records[0].title
    assert ".tolist()" not in after
    assert "bincount" not in after  # `load` was read only by the loop's `.tolist()`
    assert "for e in range(len(self.experts)):" in after
    assert (
        "out.add_(torch.where((expert_idx == e)[..., None], self.experts[e](x) * gate[:, None], 0))"
    ) in after


def test_count_list_bound_before_the_loop_goes_with_it(tmp_path: Path) -> None:
    src = COUNTS.replace(
        "        out = torch.zeros_like(x)\n        for e, n in enumerate(load.tolist()):",
        "        counts = load.tolist()\n        out = torch.zeros_like(x)\n"
        "        for e, n in enumerate(counts):",
    )
    res, after = _fix(tmp_path, src, "CL105")
    assert [r.status for r in res.records] == ["applied"]
    assert "counts" not in after and "bincount" not in after
    kept = src.replace("return out", "return out, counts")
    res, after = _fix(tmp_path, kept, "CL105")
    assert after == kept
    assert "the per-expert counts `counts` are read outside the loop" in res.records[0].reason


def test_count_read_beyond_the_skip_is_declined(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, COUNTS_SCALED, "CL105")
    assert after == COUNTS_SCALED
    assert "the per-expert counts `n` are read for more than the empty skip" in (
        res.records[0].reason
    )


@pytest.mark.torch
def test_valid_count_loop_dense_form_matches_and_compiles_without_breaks(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, COUNTS, "CL105")
    (tmp_path / "orig.py").write_text(COUNTS, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Counts")()
    dense = _load(tmp_path / "dense.py", "Counts")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(11, 8)
    torch.testing.assert_close(orig(x), dense(x))
    torch._dynamo.reset()
    assert torch._dynamo.explain(dense)(x).graph_break_count == 0
    assert torch._dynamo.explain(orig)(x).graph_break_count != 0


@pytest.mark.torch
def test_invalid_scaled_count_loop_differs_from_the_dense_form(tmp_path: Path) -> None:
    """What the codemod declines: a count that scales the rows is not dead once the loop is
    dense, and dropping it (the dense form of the skip-only loop) gives other outputs."""
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, COUNTS, "CL105")
    (tmp_path / "orig.py").write_text(COUNTS_SCALED, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Counts")()
    dense = _load(tmp_path / "dense.py", "Counts")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(16, 8)
    assert not torch.allclose(orig(x), dense(x))
