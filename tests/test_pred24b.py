"""New break forms from the fourth development set (issue 23, pred24b).

A sparse or strided nested tensor made by a call that breaks the graph reaches the resume
function after that break, which cannot wrap it either: its first use breaks again (GB0015,
GB0016). torch's generator state, ``checkpoint_sequential``, ``torch.autograd.functional``,
``Tensor.apply_``, ``tensor_split`` at a tensor's points, ``torch.linalg.lstsq`` and a
``requires_grad_()`` tensor read after ``loss.backward()`` break too. Each case is predicted
and run through torch (``run_dynamic``); the table is in docs/corpus.md (pred24b).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

HEAD = """import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))

    def forward(self, x):
"""
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "to_sparse_then_mm": (
        """        adj = (x @ x.t() > 0).float()
        sp = adj.to_sparse()  # BRK1
        h = torch.sparse.mm(sp, self.fc(x))  # BRK2
        return h.relu()
""",
        ("BRK1", "BRK2"),
    ),
    "rebound_in_place": (
        """        adj = (x @ x.t() > 0).float()
        adj = adj.to_sparse()  # BRK1
        return torch.sparse.mm(adj, self.fc(x))  # BRK2
""",
        ("BRK1", "BRK2"),
    ),
    "nested": (
        """        nt = torch.nested.nested_tensor(list(x.split(1)))  # BRK1
        padded = torch.nested.to_padded_tensor(nt, 0.0)  # BRK2
        return self.fc(padded).sum(1)
""",
        ("BRK1", "BRK2"),
    ),
    "rng_state": (
        """        state = torch.get_rng_state()  # BRK1
        a = x + torch.randn_like(x)
        torch.set_rng_state(state)  # BRK2
        return self.fc(a - x - torch.randn_like(x))
""",
        ("BRK1", "BRK2"),
    ),
    "checkpoint_sequential": (
        """        h = checkpoint_sequential(self.seq, 2, x, use_reentrant=False)  # BRK1
        return self.fc(h)
""",
        ("BRK1",),
    ),
    "jacobian": (
        """        j = torch.autograd.functional.jacobian(self.fc, x[0])  # BRK1
        return self.fc(x) + j.sum()
""",
        ("BRK1",),
    ),
    "tensor_split_points": (
        """        points = (x[:, 0] > 0).long().cumsum(0)[:2]
        parts = torch.tensor_split(self.fc(x), points)  # BRK1
        return torch.cat([p.sum(0, keepdim=True) for p in parts])
""",
        ("BRK1",),
    ),
    "lstsq": (
        """        coef = torch.linalg.lstsq(self.fc(x), x[:, :1]).solution  # BRK1
        return x @ coef
""",
        ("BRK1",),
    ),
    "requires_grad_after_backward": (
        """        w = self.fc.weight.detach().clone().requires_grad_(True)  # BRK1
        loss = F.linear(x, w).pow(2).mean()
        loss.backward()  # BRK2
        return F.linear(x, w - 0.1 * w.grad)
""",
        ("BRK1", "BRK2"),
    ),
    # VALID: sparse made and used in one statement, int split points, num_classes given
    "no_resume_use": (
        """        h = torch.sparse.mm((x @ x.t() > 0).float().to_sparse(), x)  # BRK1
        parts = torch.tensor_split(h, 2)
        return F.one_hot(h.argmax(1), 4).float() + parts[0].sum()
""",
        ("BRK1",),
    ),
}
SPEC = {"inputs": [{"tensor": [3, 4]}]}
# the inner backward needs autograd on (the dynamic stage runs eval under no_grad)
TRAIN = {"requires_grad_after_backward"}


def _case(name: str) -> tuple[str, set[int], dict[str, Any]]:
    body, markers = CASES[name]
    src = HEAD + body
    spec: dict[str, Any] = {**SPEC, "mode": "train"} if name in TRAIN else SPEC
    return src, {line_of(src, m) for m in markers}, spec


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, want, spec = _case(name)
    assert predicted_break_lines(tmp_path, src, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, want, spec = _case(name)
    assert torch_break_lines(tmp_path, src, {**spec, "calls": 1}) == want


def test_a_sparse_tensor_not_made_by_a_break_is_not_followed(tmp_path: Path) -> None:
    """``.to_sparse()`` on something that is not a tensor (a user object) is no break, and a
    later use of what it returns is none either."""
    src = """import torch
from torch import nn


class Graph:
    def to_sparse(self):
        return self


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.g = Graph()

    def forward(self, x):
        g = self.g.to_sparse()
        return self.fc(x) + len(str(type(g)))
"""
    assert predicted_break_lines(tmp_path, src, SPEC) == set()


def test_the_generator_state_restore_is_no_observation(tmp_path: Path) -> None:
    """CL205's codemod runs a call that only observes in eager only; ``set_rng_state`` sets
    the generator's next draws (paired noise): no fix, for either call."""
    from compilelint.config import Config
    from compilelint.fix.engine import run_fixes

    src, _want, _spec = _case("rng_state")
    work = tmp_path / "m.py"
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL205",), cache=False), unsafe=True)
    assert not res.changes
    assert [r.status for r in res.records] == ["no-fix", "no-fix"]
