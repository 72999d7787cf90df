"""Issue 23, pred24c: clean models in real styles (dev3c), no break predicted where torch 2.13
traces none, checked against torch.

A name a tensor test rules out is no tensor there: in the ``else``/``elif`` of ``if
torch.is_tensor(mask):`` or ``if isinstance(mask, torch.Tensor):`` (a tuple of types holding
``torch.Tensor`` too), and in the body of ``if not torch.is_tensor(t):``, ``float(mask)`` reads
no tensor data whatever the caller passes (FusionHead's ``elif mask is not None: feats *
float(mask)``, diffusers' timestep handling). The side where it is a tensor is left as it was, and
a test of a subclass (``torch.nn.Parameter``, ``torch.FloatTensor``) narrows nothing: a plain
tensor fails it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"

# name: (forward, the markers of the lines torch reports)
CASES: dict[str, tuple[str, set[str]]] = {
    # VALID: the elif of a positive test (dev3c's c3_isinstance_multi_input)
    "is_tensor_elif": (
        """
    def forward(self, x, mask=None):
        if torch.is_tensor(mask):
            x = x * mask
        elif mask is not None:
            x = x * float(mask)
        return x
""",
        set(),
    ),
    # VALID: the else of isinstance with a tuple holding torch.Tensor
    "isinstance_tuple_else": (
        """
    def forward(self, x, mask=None):
        if isinstance(mask, (torch.Tensor, list)):
            x = x * torch.as_tensor(mask)
        else:
            x = x * float(mask)
        return x
""",
        set(),
    ),
    # VALID: the body of a negated test
    "not_is_tensor_body": (
        """
    def forward(self, x, mask=None):
        if not torch.is_tensor(mask):
            return x * float(mask)
        return x * mask
""",
        set(),
    ),
    # INVALID: a subclass test narrows nothing: a plain tensor takes the else and breaks
    "parameter_subclass": (
        """
    def forward(self, x, mask=None):
        if isinstance(mask, nn.Parameter):
            return x
        return x * float(mask)
""",
        {"float(mask)"},
    ),
    # INVALID: the tensor side still breaks
    "tensor_side": (
        """
    def forward(self, x, mask=None):
        if torch.is_tensor(mask):
            return x * float(mask)
        return x
""",
        {"float(mask)"},
    ),
}

SPEC: dict[str, Any] = {"inputs": [{"tensor": [2, 3]}, {"tensor": []}]}


def _case(name: str) -> tuple[str, set[int]]:
    body, markers = CASES[name]
    src = HEAD + body.lstrip("\n")
    return src, {line_of(src, m) for m in markers}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines(tmp_path: Path, name: str) -> None:
    src, want = _case(name)
    assert predicted_break_lines(tmp_path, src, SPEC) == want
    assert predicted_break_lines(tmp_path, src, None) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_break_lines_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, want = _case(name)
    assert torch_break_lines(tmp_path, src, {**SPEC, "calls": 1}) == want


# --------------------------------------------------------------------------- training-only operands
# The right operand of `self.training and ...` and the body of `... if self.training else ...` run
# in training only (x-transformers' layer dropout `if self.training and layer_dropout > 0. and
# random() < layer_dropout:`, its `randrange(n) + 1 if self.training else None`): in eval mode
# torch never evaluates them.
DROP = """\
import random

import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.layer_dropout = 0.5

    def forward(self, x):
        if self.training and self.layer_dropout > 0.0 and random.random() < self.layer_dropout:
            return x
        k = random.randrange(3) + 1 if self.training else 2
        return self.fc(x) * k
"""


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_training_only_operands(tmp_path: Path, mode: str) -> None:
    want = (
        set() if mode == "eval" else {line_of(DROP, "random.random()"), line_of(DROP, "randrange")}
    )
    spec = {"inputs": [{"tensor": [2, 4]}], "mode": mode}
    assert predicted_break_lines(tmp_path, DROP, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["eval", "train"])
def test_training_only_operands_match_torch(tmp_path: Path, mode: str) -> None:
    pytest.importorskip("torch")
    want = (
        set() if mode == "eval" else {line_of(DROP, "random.random()"), line_of(DROP, "randrange")}
    )
    spec = {"inputs": [{"tensor": [2, 4]}], "mode": mode, "calls": 1}
    assert torch_break_lines(tmp_path, DROP, spec) == want


def test_a_librarys_training_only_break_is_left_out_in_eval(tmp_path: Path) -> None:
    """The same marks in a followed library's code: its findings, anchored at the user's call,
    are left out in the other mode, as the user's own are."""
    import json

    from tests.cli_invoke import invoke

    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    (site / "droplib").mkdir(parents=True)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    body = DROP.split("class M(nn.Module):", 1)[1]
    (site / "droplib" / "__init__.py").write_text(
        DROP.split("class M", 1)[0] + "class Layers(nn.Module):" + body
    )
    meta = site / "droplib-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: droplib\nVersion: 0.1\n\n")
    (meta / "top_level.txt").write_text("droplib\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "m.py").write_text(
        "from torch import nn\nfrom droplib import Layers\n\n\nclass M(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.layers = Layers()\n\n"
        "    def forward(self, x):\n        return self.layers(x)\n"
    )

    def lines(mode: str) -> set[tuple[str, int]]:
        args = ["check", "m.py", "--python", str(tmp_path / "env"), "--mode", mode]
        code, out, err = invoke([*args, "--format", "json", "--no-cache"], cwd=proj)
        assert code in (0, 1), err
        return {(f["rule"], f["frames"][-1]["line"]) for f in json.loads(out)["findings"]}

    lib_line = line_of(DROP, "random.random()")
    assert ("CL205", lib_line) in lines("train")
    assert lines("eval") == set()
