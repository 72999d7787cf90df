"""Dense dispatch of a per-row function applied to a data-dependent subset of rows and scattered
back (``src/compilelint/fix/codemods/moe.py``, branch moe11).

The class: a loop step selects rows (``torch.where(M[e])`` pairs, ``nonzero``, ``x[mask]``),
applies a function whose output row i depends only on input row i, and scatters the rows back
(``index_add_``, ``out[sel] += / =``). Beyond experts of a ``ModuleList``, the function may be
written inline with the expert's weights (``F.linear(x[idx], self.w[e])``, ``x[idx] @
self.w[e]``, ``.chunk(2, dim=-1)``, a row-wise module on ``self``), the loop may visit only the
experts hit (``for e in V.nonzero()``, transformers 5's ``MixtralExperts``), and (token, slot)
pairs of a ``topk`` index output are added once per token.

VALID (torch-checked): the rewrite gives the original's outputs and gradients, and compiles
with no break. INVALID: an inline step that mixes rows is only proposed and its dense form
differs; a scatter that overwrites is not the blend; weights that are not zero off-route need
the mask (the rewrite keeps it, a multiply alone differs); a hit list that is not the
selection's experts is declined and its dense form differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.fix.engine import EngineResult

from .fix_modules import fix_result, fixed_text, load_module
from .torch_checks import assert_no_graph_break

# transformers 5's MixtralExperts: stacked weights, experts hit by `nonzero`, (slot, token)
# pairs, SwiGLU through `F.linear(...).chunk(2, dim=-1)`, top-2
HF5 = """\
import torch
import torch.nn.functional as F
from torch import nn


class Experts(nn.Module):
    def __init__(self, n=4, d=8, inter=16):
        super().__init__()
        self.num_experts = n
        self.gate_up_proj = nn.Parameter(torch.randn(n, 2 * inter, d) * 0.3)
        self.down_proj = nn.Parameter(torch.randn(n, d, inter) * 0.3)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states, top_k_index, top_k_weights):
        final = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            state = hidden_states[token_idx]
            gate, up = F.linear(state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            h = self.act_fn(gate) * up
            h = F.linear(h, self.down_proj[expert_idx])
            h = h * top_k_weights[token_idx, top_k_pos, None]
            final.index_add_(0, token_idx, h.to(final.dtype))
        return final


class Block(nn.Module):
    def __init__(self, n=4, d=8, k=2):
        super().__init__()
        self.k = k
        self.router = nn.Parameter(torch.randn(n, d) * 0.3)
        self.experts = Experts(n, d)

    def forward(self, x):
        probs = F.softmax(F.linear(x, self.router), dim=-1)
        w, idx = torch.topk(probs, self.k, dim=-1)
        return self.experts(x, idx, w / w.sum(-1, keepdim=True))
"""

# top-1 Switch with stacked weights: boolean-mask selection, `@`, plain GELU MLP, the rows
# written into a fresh output (`out[mask] = ...`)
SWITCH_MASK = """\
import torch
import torch.nn.functional as F
from torch import nn


class Switch(nn.Module):
    def __init__(self, n=4, d=8):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.w1 = nn.Parameter(torch.randn(n, d, 2 * d) * 0.3)
        self.w2 = nn.Parameter(torch.randn(n, 2 * d, d) * 0.3)

    def forward(self, x):
        p, route = torch.softmax(self.router(x), -1).max(-1)
        out = torch.zeros_like(x)
        for e in range(self.n):
            mask = route == e
            h = F.gelu(x[mask] @ self.w1[e])
            out[mask] = (h @ self.w2[e]) * p[mask, None]
        return out
"""

# top-2 with `nonzero(as_tuple=True)[0]` rows, a per-token weight, `F.linear` with biases
NONZERO_TOP2 = """\
import torch
import torch.nn.functional as F
from torch import nn


class Top2(nn.Module):
    def __init__(self, n=4, d=8):
        super().__init__()
        self.n = n
        self.gate = nn.Linear(d, n, bias=False)
        self.w1 = nn.Parameter(torch.randn(n, 2 * d, d) * 0.3)
        self.b1 = nn.Parameter(torch.zeros(n, 2 * d))
        self.w2 = nn.Parameter(torch.randn(n, d, 2 * d) * 0.3)

    def forward(self, x):
        w, sel = self.gate(x).softmax(-1).topk(2, dim=-1)
        out = torch.zeros_like(x)
        for e in range(self.n):
            w_e = (w * (sel == e)).sum(-1)
            rows = (sel == e).any(-1).nonzero(as_tuple=True)[0]
            h = F.relu(F.linear(x[rows], self.w1[e], self.b1[e]))
            out.index_add_(0, rows, F.linear(h, self.w2[e]) * w_e[rows, None])
        return out
"""

# top-1 with `torch.where(m)[0]` rows copied back in place (`index_copy_`), the step a
# row-wise module on `self` around the expert's weights
INDEX_COPY = """\
import torch
import torch.nn.functional as F
from torch import nn


class CopyBack(nn.Module):
    def __init__(self, n=3, d=8):
        super().__init__()
        self.n = n
        self.router = nn.Linear(d, n)
        self.norm = nn.LayerNorm(d)
        self.w = nn.Parameter(torch.randn(n, d, d) * 0.3)

    def forward(self, x):
        route = self.router(x).argmax(-1)
        out = x.clone()
        for e in range(self.n):
            rows = torch.where(route == e)[0]
            out.index_copy_(0, rows, self.norm(x[rows]) @ self.w[e])
        return out
"""

# DeepSeek-V3's pairs from a topk returned by a gate module: `y[idx] += ...` (one slot per
# token, since topk indices are distinct), SwiGLU experts of a ModuleList
DEEPSEEK = """\
import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w1 = nn.Linear(d, 2 * d)
        self.w2 = nn.Linear(2 * d, d)
        self.w3 = nn.Linear(d, 2 * d)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Gate(nn.Module):
    def __init__(self, d, n, k):
        super().__init__()
        self.k = k
        self.weight = nn.Parameter(torch.randn(n, d) * 0.3)

    def forward(self, x):
        scores = F.linear(x, self.weight).softmax(dim=-1)
        weights, indices = torch.topk(scores, self.k, dim=-1)
        return weights, indices


class MoE(nn.Module):
    def __init__(self, d=8, n=4, k=2):
        super().__init__()
        self.n = n
        self.gate = Gate(d, n, k)
        self.experts = nn.ModuleList([Expert(d) for _ in range(n)])

    def forward(self, x):
        weights, indices = self.gate(x)
        y = torch.zeros_like(x)
        for i in range(self.n):
            expert = self.experts[i]
            idx, top = torch.where(indices == i)
            y[idx] += expert(x[idx]) * weights[idx, top, None]
        return y
"""

# INVALID: a step that mixes rows (a softmax over the selected tokens)
MIXES_ROWS = SWITCH_MASK.replace(
    "            h = F.gelu(x[mask] @ self.w1[e])\n",
    "            h = F.gelu(x[mask] @ self.w1[e]).softmax(0)\n",
)
MIXES_ROWS_DENSE = SWITCH_MASK.replace(
    "            h = F.gelu(x[mask] @ self.w1[e])\n"
    "            out[mask] = (h @ self.w2[e]) * p[mask, None]\n",
    "            h = F.gelu(x @ self.w1[e]).softmax(0)\n"
    "            out = torch.where(mask[..., None], (h @ self.w2[e]) * p[:, None], out)\n",
)

# INVALID: the hit list is not the experts the selection reads (`> 1`: an expert with one
# token is skipped by the original, kept by a dense loop)
HIT_NOT_SEL = HF5.replace(
    "expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()",
    "expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 1).nonzero()",
)


def _fix(tmp_path: Path, src: str, code: str) -> tuple[EngineResult, str]:
    res = fix_result(tmp_path, src, (code,), name="m.py")
    return res, fixed_text(res, src)


# ------------------------------------------------------------------ static (no torch)
def test_hf5_experts_hit_become_a_dense_loop_over_every_expert(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, HF5, "CL110")
    assert res.records and {r.status for r in res.records} == {"applied"}
    assert "for expert_idx in range(expert_mask.shape[0]):" in after
    assert "nonzero" not in after and "expert_idx = expert_idx[0]" not in after
    assert "if expert_idx == self.num_experts:" in after  # decided on a Python int now
    assert "state = hidden_states\n" in after
    assert "(top_k_weights * expert_mask[expert_idx].t()).sum(-1)[:, None]" in after
    assert "final.add_(torch.where(expert_mask[expert_idx].any(0)[..., None]" in after
    assert "the expert's weights" in res.records[0].title


def test_stacked_weights_with_a_mask_become_where(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, SWITCH_MASK, "CL111")
    assert {r.status for r in res.records} == {"applied"}
    assert "h = F.gelu(x @ self.w1[e])" in after
    assert "out = torch.where(mask[..., None], (h @ self.w2[e]) * p[:, None], out)" in after


def test_nonzero_rows_with_linear_and_bias(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, NONZERO_TOP2, "CL110")
    assert {r.status for r in res.records} == {"applied"}
    assert "F.linear(x, self.w1[e], self.b1[e])" in after
    assert "out.add_(torch.where(((sel == e).any(-1))[..., None]" in after or (
        "out.add_(torch.where((sel == e).any(-1)[..., None]" in after
    )


def test_index_copy_becomes_an_in_place_where(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, INDEX_COPY, "CL110")
    assert {r.status for r in res.records} == {"applied"}
    assert "out.copy_(torch.where((route == e)[..., None], self.norm(x) @ self.w[e], out))" in (
        after
    )


def test_topk_pairs_added_per_token_are_a_rewrite(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, DEEPSEEK, "CL110")
    assert [r.status for r in res.records] == ["applied"]
    assert "y += torch.where((indices == i).any(-1)[..., None]" in after


def test_pairs_of_ids_not_shown_distinct_stay_a_proposal(tmp_path: Path) -> None:
    # `indices` from an argmax pair made by hand (not a topk): a token may hold the expert in
    # both slots, and `y[idx] += ...` then adds only one of them
    src = DEEPSEEK.replace(
        "        weights, indices = torch.topk(scores, self.k, dim=-1)\n",
        "        weights, indices = scores[:, :2], scores.argmax(-1, keepdim=True).repeat(1, 2)\n",
    )
    res, after = _fix(tmp_path, src, "CL110")
    assert after == src
    assert [r.status for r in res.records] == ["proposed"]
    assert "one slot at most (top-k indices), which is not shown here" in res.records[0].reason


def test_a_step_that_mixes_rows_is_only_proposed(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, MIXES_ROWS, "CL111")
    assert after == MIXES_ROWS
    assert {r.status for r in res.records} == {"proposed"}
    assert "is not known to act on each token alone" in res.records[0].reason


def test_a_matmul_by_the_rows_from_the_right_is_only_proposed(tmp_path: Path) -> None:
    src = SWITCH_MASK.replace(
        "            h = F.gelu(x[mask] @ self.w1[e])\n",
        "            h = F.gelu(x[mask] @ self.w1[e])\n            h = (h @ h.T) @ h\n",
    )
    res, after = _fix(tmp_path, src, "CL111")
    assert after == src
    assert "multiplies by the selected rows from the right: rows mix" in res.records[0].reason


def test_a_last_dim_sum_of_a_one_dim_selection_is_only_proposed(tmp_path: Path) -> None:
    # `p[mask]` is 1-d: its `.sum(-1)` adds the selected tokens' gates (rows mix)
    src = SWITCH_MASK.replace("* p[mask, None]", "* (p[mask] / p[mask].sum(-1))[:, None]")
    res, after = _fix(tmp_path, src, "CL111")
    assert after == src
    assert {r.status for r in res.records} == {"proposed"}
    assert "p[mask].sum(-1)" in res.records[0].reason


def test_a_hit_list_that_is_not_the_selections_experts_is_declined(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, HIT_NOT_SEL, "CL110")
    assert after == HIT_NOT_SEL
    assert not any(r.status == "applied" for r in res.records)


def test_a_loop_without_a_per_row_function_is_left_to_other_rewrites(tmp_path: Path) -> None:
    # no weights, no module: `out[m] = x[m] * 2` is the masks rewrites' business
    src = (
        "import torch\nfrom torch import nn\n\n\nclass T(nn.Module):\n"
        "    def forward(self, x, route):\n        out = torch.zeros_like(x)\n"
        "        for e in range(3):\n            m = route == e\n"
        "            out[m] = x[m] * (e + 1)\n        return out\n"
    )
    res, _ = _fix(tmp_path, src, "CL111")
    assert not any("dense dispatch" in (r.title or "") for r in res.records)


# ------------------------------------------------------------------ torch
def _load(path: Path, name: str):  # type: ignore[no-untyped-def]
    return getattr(load_module(path, "moe11"), name)


def _grads(torch, model, x):  # type: ignore[no-untyped-def]
    out = model(x)
    return out, torch.autograd.grad(out.square().sum(), [x, *model.parameters()], allow_unused=True)


@pytest.mark.torch
@pytest.mark.parametrize(
    ("src", "code", "name"),
    [
        (HF5, "CL110", "Block"),
        (SWITCH_MASK, "CL111", "Switch"),
        (NONZERO_TOP2, "CL110", "Top2"),
        (DEEPSEEK, "CL110", "MoE"),
        (INDEX_COPY, "CL110", "CopyBack"),
    ],
    ids=[
        "hf5-top2-where-index_add-swiglu",
        "switch-top1-mask-assign-mlp",
        "nonzero-top2",
        "deepseek-pairs",
        "index_copy-layernorm",
    ],
)
def test_valid_dense_form_matches_and_compiles_without_breaks(
    tmp_path: Path, src: str, code: str, name: str
) -> None:
    torch = pytest.importorskip("torch")
    _, after = _fix(tmp_path, src, code)
    assert after != src
    (tmp_path / "orig.py").write_text(src, encoding="utf-8")
    (tmp_path / "dense.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", name)()
    dense = _load(tmp_path / "dense.py", name)()
    dense.load_state_dict(orig.state_dict())
    for n_tokens in (3, 24):  # few tokens: some experts get none
        x = torch.randn(n_tokens, 8, requires_grad=True)
        a, ga = _grads(torch, orig, x)
        b, gb = _grads(torch, dense, x)
        torch.testing.assert_close(a, b)
        for u, v in zip(ga, gb, strict=True):
            if u is None:  # a ModuleList expert no token reached: zero in the dense form
                assert v is None or not v.any()
            else:
                torch.testing.assert_close(u, v)
        assert_no_graph_break(dense, (x.detach(),))
        compiled = torch.compile(dense, backend="eager", fullgraph=True)
        torch.testing.assert_close(compiled(x.detach()), a.detach())
    torch._dynamo.reset()
    assert torch._dynamo.explain(orig)(x.detach()).graph_break_count != 0


@pytest.mark.torch
def test_invalid_a_step_that_mixes_rows_differs_from_its_dense_form(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    (tmp_path / "a.py").write_text(MIXES_ROWS, encoding="utf-8")
    (tmp_path / "b.py").write_text(MIXES_ROWS_DENSE, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "a.py", "Switch")()
    dense = _load(tmp_path / "b.py", "Switch")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(12, 8)
    assert not torch.allclose(orig(x), dense(x), atol=1e-4)


@pytest.mark.torch
def test_invalid_an_overwriting_scatter_is_not_the_blend() -> None:
    """Two experts writing a token's row with `=` (top-2): the last one wins, while the dense
    blend sums over experts; the codemod writes `=` as `torch.where(m, y, out)` (last one
    wins, as written) and adds only for `+=`/`index_add_`."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = torch.randn(6, 4)
    sel = torch.tensor([[0, 1]] * 6)
    ys = [x * 2, x * 3]
    over = torch.zeros_like(x)
    blend = torch.zeros_like(x)
    where = torch.zeros_like(x)
    for e in range(2):
        m = (sel == e).any(-1)
        over[m] = ys[e][m]
        blend = blend + torch.where(m[:, None], ys[e], 0)
        where = torch.where(m[:, None], ys[e], where)
    assert not torch.allclose(over, blend)
    torch.testing.assert_close(over, where)


@pytest.mark.torch
def test_invalid_weights_not_zero_off_route_need_the_mask(tmp_path: Path) -> None:
    """A full-softmax weight is not zero for tokens not routed to the expert: multiplying by
    it alone (the textbook blend) adds their outputs; the rewrite's `torch.where` keeps the
    routed rows only, and matches."""
    torch = pytest.importorskip("torch")
    src = SWITCH_MASK.replace(
        "        p, route = torch.softmax(self.router(x), -1).max(-1)\n",
        "        probs = torch.softmax(self.router(x), -1)\n        route = probs.argmax(-1)\n",
    ).replace("* p[mask, None]", "* probs[mask, e, None]")
    _, after = _fix(tmp_path, src, "CL111")
    assert "torch.where(mask[..., None]" in after
    naive = after.replace(
        "out = torch.where(mask[..., None], (h @ self.w2[e]) * probs[:, e, None], out)",
        "out = out + (h @ self.w2[e]) * probs[:, e, None]",
    )
    assert naive != after
    for name, text in (("orig", src), ("dense", after), ("naive", naive)):
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "orig.py", "Switch")()
    x = torch.randn(10, 8)
    models = {}
    for name in ("dense", "naive"):
        models[name] = _load(tmp_path / f"{name}.py", "Switch")()
        models[name].load_state_dict(orig.state_dict())
    torch.testing.assert_close(models["dense"](x), orig(x))
    assert not torch.allclose(models["naive"](x), orig(x), atol=1e-4)


@pytest.mark.torch
def test_invalid_hit_list_of_other_experts_differs_densely(tmp_path: Path) -> None:
    """`> 1` skips experts with one token: visiting every expert (the dense loop) adds them."""
    torch = pytest.importorskip("torch")
    _, dense_src = _fix(tmp_path, HF5, "CL110")
    (tmp_path / "a.py").write_text(HIT_NOT_SEL, encoding="utf-8")
    (tmp_path / "b.py").write_text(dense_src, encoding="utf-8")
    torch.manual_seed(0)
    orig = _load(tmp_path / "a.py", "Block")()
    dense = _load(tmp_path / "b.py", "Block")()
    dense.load_state_dict(orig.state_dict())
    x = torch.randn(3, 8)  # 3 tokens x 2 slots over 4 experts: some expert has one token
    assert not torch.allclose(orig(x), dense(x), atol=1e-5)
