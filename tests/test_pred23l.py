"""Break kinds of the fix corpus's second development set (issue 23, pred23l).

Each kind is a change of the value model or of what torch resumes, checked against the break
lines torch 2.13 reports (``run_dynamic``, ``-m torch``):

- **a bool tensor of at least one dim is a boolean mask** (CL111 by the value model's dtype, the
  ``!mask`` test): a spec's bool input, ``torch.eye(n, dtype=torch.bool)`` (and ``~`` of it,
  through a helper's return); ``x[mask]`` has a data-dependent size (GB0036). An integer index
  tensor and a masked store do not break.
- **the elements of a 1-d integer tensor are 0-d integer tensors** (CL120): ``torch.unique(t)``
  and ``t.unique()`` without a ``dim`` are 1-d, so ``for c in torch.unique(target): p[:, c]``
  indexes with a 0-d tensor (GB0033). A comparison with ``c`` does not break.
- **a spec's Python number is not a tensor**: an entry's parameter the spec passes as a Python
  number in every call (``float(timestep)`` is no tensor read); the same spec with a 0-d tensor
  breaks there (GB0124).
- **an RNN module call ends its function's tracing** (CL510 unresumable): GB0014 "Skipping the
  function and falling back to eager", so a later line of the same function is not reported;
  a later line of the caller of a submodule holding it is.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.analysis import values as V
from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

TORCH = "import torch\nfrom torch import nn\n"

# ---------------------------------------------------------------------------- boolean masks
# VALID: the spec's bool input selects the masked positions (a BERT MLM head's `logits[mask]`)
SPEC_MASK = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, mask):
            h = self.lin(x)
            return h[mask].sum()
    """)
MASK_SPEC = {"inputs": [{"tensor": [2, 5, 4]}, {"tensor": [2, 5], "dtype": "bool", "p": 0.5}]}
# VALID: the off-diagonal pairs by `~eye` (bool by its dtype=) from a helper, the diagonal by
# `eye` itself
EYE_MASK = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def _off(self, n):
            return ~torch.eye(n, dtype=torch.bool)

        def forward(self, h):
            n = h.shape[0]
            pairs = h[:, None] * h[None, :]
            edges = pairs[self._off(n)]
            loops = pairs[torch.eye(n, dtype=torch.bool)]
            return edges.sum() + loops.sum()
    """)
H54 = {"inputs": [{"tensor": [5, 4]}]}
# INVALID: the spec's int64 input is an index tensor (advanced indexing, no break), a masked
# store writes in place, and a long `eye` is an index tensor too
INT_INDEX = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x, idx, mask):
            x = x.clone()
            x[mask] = 0.0
            sel = torch.eye(2, dtype=torch.long)
            return x[idx] * 2, x[sel]
    """)
INT_INDEX_SPEC = {
    "inputs": [
        {"tensor": [5, 4]},
        {"tensor": [3], "dtype": "int64", "init": "randint", "low": 0, "high": 5},
        {"tensor": [5, 4], "dtype": "bool", "p": 0.5},
    ]
}

# ---------------------------------------------------------------------------- unique elements
# VALID: soft Dice over the classes present in the target (the class picked by a 0-d tensor)
UNIQUE_LOOP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, probs, target):
            out = []
            for c in torch.unique(target):
                p = probs[:, c]
                out.append(p.sum())
            return torch.stack(out).mean()
    """)
# VALID: the method form
UNIQUE_METHOD = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, probs, target):
            out = []
            for c in target.unique():
                out.append(probs[:, c].mean())
            return torch.stack(out).sum()
    """)
SEG_SPEC = {
    "inputs": [
        {"tensor": [2, 4, 6]},
        {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 0, "high": 4},
    ]
}
# INVALID for CL120: the class only meets tensors in comparisons (only `torch.unique` breaks)
UNIQUE_COMPARE = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, probs, target):
            out = []
            for c in torch.unique(target):
                g = (target == c).float()
                out.append((probs[:, 0] * g).sum())
            return torch.stack(out).mean()
    """)

# ---------------------------------------------------------------------------- spec numbers
# a timestep read with `float()`: the spec decides whether it is a tensor
TIMESTEP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(5, 4)

        def forward(self, sample, timestep):
            t_in = torch.full((sample.shape[0], 1), float(timestep))
            return self.lin(torch.cat([sample, t_in], dim=-1))
    """)
# VALID (no break): a Python int timestep
INT_TIMESTEP = {"inputs": [{"tensor": [2, 4]}, 9]}
# INVALID for the number: a 0-d tensor timestep (`float()` reads its value: a break)
TENSOR_TIMESTEP = {"inputs": [{"tensor": [2, 4]}, {"tensor": [], "data": [9.0]}]}

# ---------------------------------------------------------------------------- RNN modules
# VALID: a GRU ends the function's tracing: the print after it is not reported
GRU_THEN_PRINT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 4, batch_first=True)
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            out, h = self.rnn(self.lin(x))
            print("decoded")
            if out.sum() > 0:
                out = out * 2
            return out
    """)
# INVALID for hiding: the LSTM is in a submodule (its own frame); the parent's print still
# breaks
LSTM_IN_SUBMODULE = TORCH + textwrap.dedent("""
    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(4, 4, batch_first=True)

        def forward(self, x):
            out, _ = self.rnn(x)
            return out


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = Enc()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            y = self.enc(self.lin(x))
            print("encoded")
            return self.lin(y)
    """)
SEQ = {"inputs": [{"tensor": [2, 3, 4]}]}

# name -> (source, spec, the lines' markers torch reports and the static stage predicts)
CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "spec_mask": (SPEC_MASK, MASK_SPEC, ("h[mask]",)),
    "eye_mask": (EYE_MASK, H54, ("pairs[self._off(n)]", "pairs[torch.eye(")),
    "int_index": (INT_INDEX, INT_INDEX_SPEC, ()),
    "unique_loop": (UNIQUE_LOOP, SEG_SPEC, ("torch.unique(target)", "probs[:, c]")),
    "unique_method": (UNIQUE_METHOD, SEG_SPEC, ("target.unique()", "probs[:, c]")),
    "unique_compare": (UNIQUE_COMPARE, SEG_SPEC, ("torch.unique(target)",)),
    "int_timestep": (TIMESTEP, INT_TIMESTEP, ()),
    "tensor_timestep": (TIMESTEP, TENSOR_TIMESTEP, ("float(timestep)",)),
    "gru_then_print": (GRU_THEN_PRINT, SEQ, ("self.rnn(",)),
    "lstm_in_submodule": (LSTM_IN_SUBMODULE, SEQ, ("self.rnn(", 'print("encoded")')),
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


def test_without_a_spec_a_mask_parameter_is_not_known_bool(tmp_path: Path) -> None:
    """An entry's parameter has no known dtype without a spec: `h[mask]` is not reported (a
    name says nothing of a dtype); a factory's `dtype=` needs no spec."""
    assert predicted_break_lines(tmp_path, SPEC_MASK, None, rule="CL111") == set()
    assert predicted_break_lines(tmp_path, EYE_MASK, None, rule="CL111") == _lines(
        EYE_MASK, ("pairs[self._off(n)]", "pairs[torch.eye(")
    )


def test_the_value_model_of_masks_and_one_dim_results() -> None:
    """``!mask`` keeps a bool tensor of at least one dim (or of unknown rank), ``~1`` makes a
    1-d tensor of the same dtype, a symbolic value takes both as path steps."""
    assert V.bool_mask(V.tensor(2, "bool")) == V.tensor(2, "bool")
    assert V.bool_mask(V.tensor(-1, "bool")) == V.tensor(-1, "bool")
    assert V.bool_mask(V.tensor(0, "bool")) == V.UNKNOWN  # a 0-d bool index: CL120's
    assert V.bool_mask(V.tensor(1, "int")) == V.UNKNOWN
    assert V.bool_mask(V.TENSOR) == V.UNKNOWN
    assert V.sources(V.bool_mask(V.sym("P|f|m"))) == {"P|f|m@!mask"}
    assert V.apply_steps(V.tensor(3, "int"), ["~1", "*", "!idx"]) == V.tensor(0, "int")
    assert V.apply_steps(V.tensor(3, "float"), ["~1", "*", "!idx"]) == V.UNKNOWN
    assert V.has_test(["~1", "!mask"]) and not V.has_test(["~1", "*"])


def test_the_spec_gives_python_numbers() -> None:
    from compilelint.api import spec_tensor_inputs
    from compilelint.dynamic.spec import validate

    s = validate({"model": "m.py:M", **INT_TIMESTEP, "kwargs": {"scale": 0.5}})
    assert spec_tensor_inputs(s) == (
        ("0", 2, "float"),
        ("1", V.SPEC_NUMBER_RANK, "int"),
        ("scale", V.SPEC_NUMBER_RANK, "float"),
    )
    # a variant that passes a tensor there: nothing is known of that input
    s = validate({"model": "m.py:M", **INT_TIMESTEP, "variants": [TENSOR_TIMESTEP]})
    assert spec_tensor_inputs(s) == (("0", 2, "float"),)
