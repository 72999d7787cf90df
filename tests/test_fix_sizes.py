"""Data-dependent sizes (issue 22, branch fixsizes): split sizes read with ``.tolist()`` whose
pieces are only reduced (one segment reduction over ``repeat_interleave`` ids) and
``bincount`` with weights into ``minlength`` bins.

Each case is checked as text and, marked ``torch``, against the original on the installed
torch: the fixed model compiles with ``fullgraph=True`` and its outputs and parameter gradients
equal the original's, compiled and uncompiled, on three inputs. The cases that must not be
rewritten (a module applied per piece, pieces returned, a max per piece, no ``minlength``) keep
their text and give their reason.
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

HEAD = "import torch\nfrom torch import nn\n\n\n"

MEAN_COMP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, counts):
            h = self.lin(x)
            return torch.stack([u.mean(dim=0) for u in h.split(counts.tolist())])
    """
)
MEAN_COMP_FIXED = """\
        h = self.lin(x)
        segment_ids = torch.repeat_interleave(torch.arange(counts.shape[0], device=counts.device), counts, output_size=h.shape[0])
        return h.new_zeros((counts.shape[0],) + h.shape[1:]).index_add_(0, segment_ids, h) / counts.to(h.dtype).reshape((-1,) + (1,) * (h.dim() - 1))
"""

SUM_LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, counts):
            feats = []
            for g in torch.split(self.lin(x), (counts * 1).tolist(), dim=0):
                feats.append(torch.sum(g, 0))
            return torch.stack(feats) * 2
    """
)
SUM_LOOP_FIXED = """\
        rows = self.lin(x)
        counts_2 = (counts * 1)
        segment_ids = torch.repeat_interleave(torch.arange(counts_2.shape[0], device=counts_2.device), counts_2, output_size=rows.shape[0])
        feats = rows.new_zeros((counts_2.shape[0],) + rows.shape[1:]).index_add_(0, segment_ids, rows)
        return feats * 2
"""

# the sizes and the pieces bound to names first (each read once)
NAMED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, counts):
            sizes = counts.tolist()
            h = self.lin(x)
            chunks = torch.split(h, sizes)
            h = h * 2
            pooled = torch.stack([torch.mean(c, dim=0) for c in chunks])
            return pooled + h.sum()
    """
)
NAMED_FIXED = """\
        h = self.lin(x)
        segment_ids = torch.repeat_interleave(torch.arange(counts.shape[0], device=counts.device), counts, output_size=h.shape[0])
        chunks_mean = h.new_zeros((counts.shape[0],) + h.shape[1:]).index_add_(0, segment_ids, h) / counts.to(h.dtype).reshape((-1,) + (1,) * (h.dim() - 1))
        h = h * 2
        pooled = chunks_mean
"""
NAMED_LOOP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, counts):
            chunks = self.lin(x).split(counts.tolist())
            out = []
            for c in chunks:
                out.append(c.sum(dim=0))
            return torch.stack(out)
    """
)
# the counts bound again between the sizes and the split: not rewritten
REBOUND = NAMED.replace("h = self.lin(x)\n", "h = self.lin(x)\n        counts = counts + 1\n", 1)

# must not be rewritten: a module per piece, the pieces returned, a max per piece
PER_PIECE_MODULE = MEAN_COMP.replace("u.mean(dim=0)", "self.lin(u).mean(dim=0)")
RETURNED = MEAN_COMP.replace(
    "return torch.stack([u.mean(dim=0) for u in h.split(counts.tolist())])",
    "return h.split(counts.tolist())",
)
# max(...).values sends the gradient to one of tied elements (amax splits it): not rewritten
MAX_PIECE = MEAN_COMP.replace("u.mean(dim=0)", "u.max(dim=0).values")
# amax with keepdim, concatenated (PyG global_max_pool written per graph)
AMAX_CAT = MEAN_COMP.replace(
    "torch.stack([u.mean(dim=0) for u in h.split(counts.tolist())])",
    "torch.cat([u.relu().amax(0, keepdim=True) for u in h.split(counts.tolist())])",
).replace("u.relu()", "u")
OTHER_DIM = MEAN_COMP.replace("h.split(counts.tolist())", "h.split(counts.tolist(), dim=1)")

WEIGHTS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(4, 3)
            self.num_experts = 3

        def forward(self, x, counts):
            top_p, expert = self.gate(x).softmax(-1).max(-1)
            conf = torch.bincount(expert, weights=top_p.detach(), minlength=self.num_experts)
            n = torch.bincount(expert, None, self.num_experts)
            return top_p * 2, conf / n.clamp(min=1)
    """
)
WEIGHTS_FIXED = """\
        bin_weights = top_p.detach()
        conf = torch.zeros(self.num_experts, dtype=(torch.float32 if bin_weights.dtype == torch.float32 else torch.float64), device=expert.device).index_add_(0, expert, bin_weights.to(torch.float32 if bin_weights.dtype == torch.float32 else torch.float64))
        n = torch.zeros(self.num_experts, dtype=torch.long, device=expert.device).index_add_(0, expert, torch.ones_like(expert, dtype=torch.long))
"""
NO_MINLENGTH = WEIGHTS.replace(", minlength=self.num_experts)", ")")


def _fix(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL105", "CL110")) -> str:
    return fixed_text(fix_result(tmp_path, code, select), code)


def _reasons(tmp_path: Path, code: str) -> list[str]:
    path = tmp_path / f"r_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL105", "CL110"), cache=False), unsafe=True)
    return [f"{r.status}: {r.reason}" for r in res.records]


def test_a_mean_per_piece_becomes_a_segment_mean(tmp_path: Path) -> None:
    out = _fix(tmp_path, MEAN_COMP)
    assert MEAN_COMP_FIXED in out and "tolist" not in out


def test_a_loop_summing_each_piece_into_a_list_becomes_a_segment_sum(tmp_path: Path) -> None:
    out = _fix(tmp_path, SUM_LOOP)
    assert SUM_LOOP_FIXED in out and "tolist" not in out and "append" not in out


def test_sizes_and_pieces_bound_to_names_are_followed(tmp_path: Path) -> None:
    out = _fix(tmp_path, NAMED)
    assert NAMED_FIXED in out and "tolist" not in out and "split" not in out
    out = _fix(tmp_path, NAMED_LOOP)
    assert "out = rows.new_zeros(" in out and "return out\n" in out
    assert "chunks" not in out and "append" not in out


def test_amax_kept_and_concatenated_becomes_a_segment_amax(tmp_path: Path) -> None:
    out = _fix(tmp_path, AMAX_CAT)
    assert '.index_reduce_(0, segment_ids, h, "amax", include_self=False)' in out
    assert "tolist" not in out and "torch.cat" not in out


def test_counts_bound_again_before_the_split_are_not_rewritten(tmp_path: Path) -> None:
    assert "split" in _fix(tmp_path, REBOUND)


@pytest.mark.parametrize("code", [PER_PIECE_MODULE, RETURNED, MAX_PIECE, OTHER_DIM])
def test_pieces_used_otherwise_keep_the_config_proposal(tmp_path: Path, code: str) -> None:
    assert _fix(tmp_path, code) == code
    assert any(
        r.startswith("proposed: the pieces are not only reduced") and "Python sizes only" in r
        for r in _reasons(tmp_path, code)
    )


def test_bincount_with_weights_sums_into_minlength_bins(tmp_path: Path) -> None:
    out = _fix(tmp_path, WEIGHTS)
    assert WEIGHTS_FIXED in out and "bincount" not in out


def test_bincount_without_minlength_asks_for_the_bin_count(tmp_path: Path) -> None:
    assert "bincount(expert, weights=top_p.detach())" in _fix(tmp_path, NO_MINLENGTH)
    assert any("pass the number of bins" in r for r in _reasons(tmp_path, NO_MINLENGTH))


# ---------------------------------------------------------------------------- with torch
CASES = {
    "mean_comp": MEAN_COMP,
    "sum_loop": SUM_LOOP,
    "weights": WEIGHTS,
    "named": NAMED,
    "named_loop": NAMED_LOOP,
    "amax_cat": AMAX_CAT,
    # ties (ReLU zeros): amax and index_reduce split the gradient the same way
    "amax_ties": AMAX_CAT.replace("h = self.lin(x)", "h = self.lin(x).relu().round()"),
}


def _load(path: Path) -> Any:
    return load_module(path, "sizes")


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
        g = torch.Generator().manual_seed(100 + seed)
        counts = torch.randint(1, 5, (4,), generator=g)
        x = torch.randn(int(counts.sum()), 4, generator=g)
        want = run(a, False, (x, counts))
        for compiled in (False, True):
            got = run(b, compiled, (x, counts))
            torch.testing.assert_close(got[0], want[0])
            torch.testing.assert_close(got[1], want[1])


GRAPH_COUNT = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, batch):
            num_graphs = batch.max().item() + 1
            out = torch.full((num_graphs,), float("-inf"))
            return out.scatter_reduce(0, batch, x[:, 0], reduce="amax")
    """
)


def test_a_graph_count_read_with_item_as_a_size_names_the_remedies(tmp_path: Path) -> None:
    """No rewrite keeps the shape (one row per graph is the data's): the reason says so, with
    the remedies (pass the count in; ``capture_scalar_outputs``)."""
    path = tmp_path / "g.py"
    path.write_text(GRAPH_COUNT, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL103",), cache=False), unsafe=True)
    assert not res.changes
    assert any(
        "is also a size of `torch.full((num_graphs,)" in r.reason
        and "capture_scalar_outputs" in r.reason
        for r in res.records
    )
