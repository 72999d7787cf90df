"""Break kinds of the fix corpus's development sets (issue 23, pred23m).

Each kind is a change of the value model, checked against the break lines torch 2.13 reports
(``run_dynamic``, ``-m torch``):

- **values read through a dynamic attribute name or an item of an attribute**: ``getattr(self,
  "name")`` is ``self.name``; ``getattr(self, f"running_{stat}")`` may be any attribute of the
  class whose name fits ``running_*`` (a buffer ``register_buffer(f"running_{stat}", ...)``
  registers, a module ``setattr(self, f"to_{n}", nn.Linear(...))`` stores); an item stored in
  forward (``self.cache["score"] = y.mean()``) is what reading the item back gives. A branch on
  such a tensor breaks (GB0170); on a Python number there it does not.
- **a parameter's name does not make it a Python value**: an entry's ``step``/``use_mask``
  (named like a flag or counter) is what the spec passes (a 0-d tensor ``step``: ``float(step)``
  reads its value, GB0124; a Python int: no break), and a submodule's is what its caller passes.
  Without a spec an entry's flag-named parameter stays a Python value, as before.
- **an entry's own 0-d integer tensor input as an index is not read**: ``self.sigmas[step]``,
  ``x[:, offset]`` with the spec's 0-d ``int64`` input as it came do not break in torch 2.13;
  a computed index (``step + 1``, ``offset - 1``, a rebound ``step = step.clamp(...)``, a
  ``clone``) is read (GB0033). CL120 asks ``!inp`` of a parameter used as it came, which phase 2
  holds false for an entry's spec tensor (``!idx`` elsewhere).
- **a module's ``parameters()``/``buffers()`` (and their ``named_`` forms) yield tensors**:
  ``for p in self.backbone.parameters(): p.requires_grad_(flag)`` breaks (GB0125), a branch on
  ``p.norm()`` breaks (GB0170); ``p.requires_grad`` and ``p.numel()`` are Python values.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.analysis import values as V
from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

TORCH = "import torch\nfrom torch import nn\n"

# ------------------------------------------------------------- dynamic attribute names
# VALID: per-split statistics buffers registered in a loop (a feature normaliser keeping
# `train_var` / `eval_var`) and read back by the mode's name
SPLIT_STATS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, splits=("train", "eval")):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            for s in splits:
                self.register_buffer(f"{s}_var", torch.ones(4))

        def forward(self, x):
            split = "train" if self.training else "eval"
            var = getattr(self, f"{split}_var")
            if var.min() <= 0:
                var = var.clamp(min=1e-5)
            return self.lin(x) / var.sqrt()
    """)
# VALID: task heads stored with setattr (a multi-task model's `head_<task>`), the main
# task's output clipped when it spreads too wide
TASK_HEADS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, tasks=("cls", "reg"), main="cls"):
            super().__init__()
            self.main = main
            self.body = nn.Linear(4, 8)
            for t in tasks:
                setattr(self, f"head_{t}", nn.Linear(8, 3))

        def forward(self, x):
            h = self.body(x).relu()
            out = getattr(self, f"head_{self.main}")(h)
            if out.abs().max() > 10.0:
                out = out / 10.0
            return out
    """)
# VALID: a learned temperature read by its literal name with a default (optional
# parameters of a contrastive head), and compared with a Python number
LITERAL_GETATTR = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)
            self.logit_scale = nn.Parameter(torch.tensor(2.0))

        def forward(self, x):
            scale = getattr(self, "logit_scale", None)
            z = self.proj(x)
            if scale is not None and scale > 4.0:
                z = z * 4.0
            return z
    """)
# INVALID: the attributes the dynamic name fits are Python floats (the buffers have another
# prefix): a branch on them does not break
FLOAT_SCALES = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, stat="rms", scales=None):
            super().__init__()
            self.stat = stat
            self.lin = nn.Linear(4, 4)
            self.register_buffer(f"running_{stat}", torch.ones(()))
            for k, v in (scales or {"rms": 2.0, "abs": 1.0}).items():
                setattr(self, f"scale_{k}", float(v))

        def forward(self, x):
            scale = getattr(self, f"scale_{self.stat}")
            if scale > 1.0:
                x = x * scale
            return self.lin(x)
    """)

# ------------------------------------------------------------- items of attributes
# VALID: a statistics dict filled in forward (a logging habit) and read back for a decision
STATS_DICT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, max_norm=5.0):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.max_norm = max_norm
            self.stats = {}

        def forward(self, x):
            h = self.lin(x)
            self.stats["norm"] = h.norm()
            if self.stats["norm"] > self.max_norm:
                h = h * (self.max_norm / self.stats["norm"])
            return h
    """)
# VALID: a per-key cache of the last output (any key), compared before it is replaced
LAST_OUTPUT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, key="enc"):
            super().__init__()
            self.key = key
            self.lin = nn.Linear(4, 4)
            self.last = {}

        def forward(self, x):
            y = self.lin(x)
            self.last[self.key] = y.mean()
            drift = self.last[self.key]
            if drift < 0:
                y = -y
            return y
    """)
# INVALID: the items stored are Python numbers (a config filled in `__init__` and in
# forward): branching on them does not break
CONFIG_ITEMS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.cfg = {"gate": True}
            self.cfg["thresh"] = 0.5

        def forward(self, x):
            self.cfg["scale"] = 2.0
            h = self.lin(x)
            if self.cfg["gate"] and self.cfg["thresh"] < self.cfg["scale"]:
                h = h * self.cfg["scale"]
            return h
    """)
X24 = {"inputs": [{"tensor": [2, 4]}], "mode": "eval"}

# ------------------------------------------------------------- flag-named parameters
# VALID with a tensor step (INVALID with an int one): a warmup factor from the step (a
# scheduler inlined in the model)
WARMUP_STEP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, warmup=50):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.warmup = warmup

        def forward(self, x, step):
            factor = min(1.0, (int(step) + 1) / self.warmup)
            return self.lin(x) * factor
    """)
TENSOR_STEP = {"inputs": [{"tensor": [2, 4]}, {"tensor": [], "dtype": "int64", "data": [7]}]}
INT_STEP = {"inputs": [{"tensor": [2, 4]}, 7]}
# VALID: a `use_mask` flag the spec passes as a bool tensor (a per-batch switch)
USE_MASK = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, use_mask):
            h = self.lin(x)
            if use_mask:
                h = h.masked_fill(h < 0, 0.0)
            return h
    """)
BOOL_FLAG = {"inputs": [{"tensor": [2, 4]}, {"tensor": [], "dtype": "bool", "data": [True]}]}
# VALID: a submodule's `step` is the tensor its caller passes (a time embedding of a
# diffusion step)
SUB_STEP = TORCH + textwrap.dedent("""
    import math


    class StepScale(nn.Module):
        def forward(self, h, step):
            return h * math.cos(float(step) / 100.0)


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.scale = StepScale()

        def forward(self, x, t):
            return self.scale(self.lin(x), t)
    """)
TENSOR_T = {"inputs": [{"tensor": [2, 4]}, {"tensor": [], "data": [30.0]}]}

# ------------------------------------------------------------- an entry's own index input
# VALID: an Euler scheduler's step index picks its sigma (no break) and the next one (a
# computed index: a break)
EULER_STEP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, n=10):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("sigmas", torch.linspace(1.0, 0.0, n + 1))

        def forward(self, x, step_index):
            sigma = self.sigmas[step_index]
            sigma_next = self.sigmas[step_index + 1]
            return self.lin(x) * sigma + (sigma_next - sigma)
    """)
# VALID: a decoding offset picks a position embedding and a column (no break); the previous
# column's index is computed (a break)
DECODE_OFFSET = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.pe = nn.Parameter(torch.randn(16, 4))

        def forward(self, x, offset):
            pe = self.pe[offset]
            cur = x[:, offset]
            prev = x[:, offset - 1]
            return cur[:, None] * pe + prev[:, None]
    """)
# INVALID: the step is rebound (clamped) before it indexes: a computed tensor, read
CLAMPED_STEP = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.linspace(0.0, 1.0, 8))

        def forward(self, x, step):
            step = step.clamp(max=7)
            return x * self.table[step]
    """)
STEP_SPEC = {
    "inputs": [{"tensor": [2, 4]}, {"tensor": [], "dtype": "int64", "data": [3]}],
    "mode": "eval",
}

# ------------------------------------------------------------- a module's parameters
# VALID: encoder layers frozen by name in forward (a fine-tuning schedule)
FREEZE_BY_NAME = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(4, 4)
            self.head = nn.Linear(4, 2)
            self.frozen = True

        def forward(self, x):
            for name, p in self.enc.named_parameters():
                if name.startswith("weight"):
                    p.requires_grad_(not self.frozen)
            return self.head(self.enc(x))
    """)
# VALID: a branch on a head parameter's norm (a max-norm check in forward)
PARAM_NORM = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self, max_norm=100.0):
            super().__init__()
            self.head = nn.Linear(4, 2)
            self.max_norm = max_norm

        def forward(self, x):
            for p in self.head.parameters():
                if p.norm() > self.max_norm:
                    print("head weights exploded")
            return self.head(x)
    """)
# INVALID: what a parameter's flags and sizes give are Python values
PARAM_FLAGS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            n = sum(p.numel() for p in self.head.parameters() if p.requires_grad)
            for _, b in self.named_buffers():
                if b.dim() > 1:
                    x = x * 2
            return self.head(x) / n
    """)

# name -> (source, spec, the lines' markers torch reports and the static stage predicts)
CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "split_stats": (SPLIT_STATS, X24, ("if var.min() <= 0",)),
    "task_heads": (TASK_HEADS, X24, ("if out.abs().max()",)),
    "literal_getattr": (LITERAL_GETATTR, X24, ("scale > 4.0",)),
    "float_scales": (FLOAT_SCALES, X24, ()),
    "stats_dict": (STATS_DICT, X24, ('if self.stats["norm"]',)),
    "last_output": (LAST_OUTPUT, X24, ("if drift < 0",)),
    "config_items": (CONFIG_ITEMS, X24, ()),
    "warmup_tensor_step": (WARMUP_STEP, TENSOR_STEP, ("int(step)",)),
    "warmup_int_step": (WARMUP_STEP, INT_STEP, ()),
    "use_mask_tensor": (USE_MASK, BOOL_FLAG, ("if use_mask",)),
    "submodule_step": (SUB_STEP, TENSOR_T, ("float(step)",)),
    "euler_step": (EULER_STEP, STEP_SPEC, ("self.sigmas[step_index + 1]",)),
    "decode_offset": (DECODE_OFFSET, STEP_SPEC, ("x[:, offset - 1]",)),
    "clamped_step": (CLAMPED_STEP, STEP_SPEC, ("self.table[step]",)),
    "freeze_by_name": (FREEZE_BY_NAME, {**X24, "mode": "train"}, ("p.requires_grad_(",)),
    "param_norm": (PARAM_NORM, X24, ("if p.norm() > self.max_norm",)),
    "param_flags": (PARAM_FLAGS, X24, ()),
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


def test_dynamic_attribute_names() -> None:
    """A dynamic name's fields stand for any text; a literal name is itself."""
    p = f"running_{V.DYN_ATTR}"
    assert V.attr_names_match(p, "running_rms") and V.attr_names_match(p, p)
    assert not V.attr_names_match(p, "scale_rms") and not V.attr_names_match(p, "running")
    q = f"{V.DYN_ATTR}_to_{V.DYN_ATTR}"
    assert V.attr_names_match(q, "a_to_b") and not V.attr_names_match(q, "a_from_b")
    assert V.attr_names_match("proj", "proj") and not V.attr_names_match("proj", "proj2")


def test_attribute_name_keys() -> None:
    import libcst as cst

    from compilelint.static.analysis.evaluate import attr_name_key

    assert attr_name_key(cst.parse_expression('"to_q"')) == "to_q"
    assert attr_name_key(cst.parse_expression('f"to_{n}"')) == f"to_{V.DYN_ATTR}"
    assert attr_name_key(cst.parse_expression('f"{a}.{b}"')) is None  # no identifier
    assert attr_name_key(cst.parse_expression("name")) is None


def test_without_a_spec_a_flag_named_entry_parameter_is_no_tensor(tmp_path: Path) -> None:
    """Without a spec nothing says what the entry's `step` or `use_mask` is: their names keep
    them Python values (no finding); a submodule's `step` is still its caller's tensor."""
    assert predicted_break_lines(tmp_path, WARMUP_STEP, None) == set()
    assert predicted_break_lines(tmp_path, USE_MASK, None) == set()
    assert predicted_break_lines(tmp_path, SUB_STEP, None) == _lines(SUB_STEP, ("float(step)",))


def test_the_index_tests() -> None:
    """``!inp`` holds of a 0-d integer or bool tensor, as ``!idx``; phase 2 tells them apart."""
    assert V.input_index(V.tensor(0, "int")) == V.tensor(0, "int")
    assert V.input_index(V.tensor(1, "int")) == V.UNKNOWN
    assert V.sources(V.input_index(V.sym("P|M.forward|i"))) == {"P|M.forward|i@!inp"}
    assert V.has_test(["!inp"])
