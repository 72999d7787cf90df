"""Break kinds of the third development set ``dev3b`` (issue 23, pred23o).

Each kind is a change of what the static stage knows of traced code, checked against the break
lines torch 2.13 reports (``run_dynamic``, ``-m torch``):

- **calls torch does not trace** (CL205): ``heapq.nlargest``/``heapq.nsmallest`` (pure Python
  over the C ``_heapq`` helpers: GB0007 in a module's ``forward`` whatever the items are),
  ``torch.nn.utils.rnn.pack_padded_sequence``/``pack_sequence`` (marked skipped by dynamo) and
  the sparse constructors ``torch.sparse_coo_tensor``/``sparse_csr_tensor``. Their lookalikes
  ``pad_sequence`` and a dense adjacency built with ``index_put_`` are traced.

A tried change of the value model (the rank of what a ``torch.nn`` module returns, so that
``self.out(h).argmax(-1)`` of a 2-d ``h`` is 1-d) is not kept: see docs/corpus.md (pred23o).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

TORCH = "import heapq\n\nimport torch\nfrom torch import nn\n"

# ------------------------------------------------------------------ calls torch does not trace
# VALID: ASR n-best rescoring keeps the hypotheses of lowest perplexity with heapq.nsmallest
NSMALLEST_PPL = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, keep=2):
            super().__init__()
            self.lm = nn.Linear(4, 6)
            self.keep = keep

        def forward(self, h):
            ppl = self.lm(h).log_softmax(-1).amax(-1).neg().exp()
            best = heapq.nsmallest(self.keep, range(ppl.shape[0]), key=lambda i: ppl[i])
            return h[torch.tensor(best)]
    """)
# VALID: a beam's candidates kept with heapq.nlargest over plain Python scores (the selection
# itself is skipped, whatever the items)
NLARGEST_INTS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.widths = [3, 1, 4, 1]

        def forward(self, h):
            top = heapq.nlargest(2, self.widths)
            return h * top[0]
    """)
# INVALID: the same selection made once in __init__ (not traced), a Python int in forward
NLARGEST_INIT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.top = heapq.nlargest(2, [3, 1, 4, 1])[0]

        def forward(self, h):
            return h * self.top
    """)
RNN = TORCH + "from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence\n"
# VALID: padded utterances packed before an encoder (the pack itself is skipped)
PACK_PADDED = RNN + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(4, 4)

        def forward(self, feats, lengths):
            x = self.inp(feats)
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            return packed.data.sum(0)
    """)
# INVALID: the utterances padded with pad_sequence (traced)
PAD_SEQUENCE = RNN + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(4, 4)

        def forward(self, feats, lengths):
            x = self.inp(feats)
            padded = pad_sequence([x[0, :3], x[1, :2]], batch_first=True)
            return padded.sum(1)
    """)
# VALID: a GCN's adjacency built as a sparse COO matrix (then made dense)
SPARSE_ADJ = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, edge_index):
            n = x.shape[0]
            w = torch.ones(edge_index.shape[1])
            adj = torch.sparse_coo_tensor(edge_index, w, (n, n)).to_dense()
            return adj @ self.lin(x)
    """)
# INVALID: the same adjacency dense, filled with index_put_ (traced)
DENSE_ADJ = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, edge_index):
            n = x.shape[0]
            w = torch.ones(edge_index.shape[1])
            adj = torch.zeros(n, n).index_put_((edge_index[0], edge_index[1]), w, accumulate=True)
            return adj @ self.lin(x)
    """)

X2 = {"inputs": [{"tensor": [5, 4]}]}
LENGTHS = {
    "inputs": [{"tensor": [2, 3, 4]}, {"tensor": [2], "dtype": "int64", "data": [3, 2]}],
}
EDGES = {
    "inputs": [
        {"tensor": [5, 4]},
        {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 5},
    ]
}

CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "nsmallest_ppl": (NSMALLEST_PPL, X2, ("heapq.nsmallest(",)),
    "nlargest_ints": (NLARGEST_INTS, X2, ("heapq.nlargest(",)),
    "nlargest_init": (NLARGEST_INIT, X2, ()),
    "pack_padded": (PACK_PADDED, LENGTHS, ("pack_padded_sequence(x",)),
    "pad_sequence": (PAD_SEQUENCE, LENGTHS, ()),
    "sparse_adj": (SPARSE_ADJ, EDGES, ("torch.sparse_coo_tensor(",)),
    "dense_adj": (DENSE_ADJ, EDGES, ()),
}


def _lines(src: str, markers: tuple[str, ...]) -> set[int]:
    return {line_of(src, m) for m in markers}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, spec, markers = CASES[name]
    assert predicted_break_lines(tmp_path, src, spec) == _lines(src, markers)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec, markers = CASES[name]
    assert torch_break_lines(tmp_path, src, {**spec, "calls": 1}) == _lines(src, markers)


def test_without_a_spec_the_skipped_calls_are_reported(tmp_path: Path) -> None:
    """The skipped calls need no argument values: reported without a spec as with one."""
    for src, marker in (
        (NLARGEST_INTS, "heapq.nlargest("),
        (PACK_PADDED, "pack_padded_sequence(x"),
    ):
        assert predicted_break_lines(tmp_path, src, None) == _lines(src, (marker,))
