"""Issue 23, pred24r: recompile kinds of the fourth development set (``dev3s``), each checked
against torch 2.13.

- a tensor argument that a later call passes as ``None`` (or another type) fails the tensor
  guard's type check before the frame runs: torch names no user line, the ``def``;
- module-level state that traced code reads and then changes (a ``global`` counter or flag, an
  item of a module-level dict, an attribute of a module-level class) is guarded where it is first read (``G['_STEP'] == 0``): the next
  call recompiles there;
- an attribute of a submodule changed from its own value (``self.drop.p = min(m, self.drop.p +
  s)``) is guarded at its first read; ``nn.Dropout`` then hands the symbolic value to
  ``F.dropout``, which specialises it in torch's file: later calls recompile at the ``def``.
"""

from __future__ import annotations

import textwrap
from typing import Any

from tests.pred_helpers import (
    case_tests,
    line_of,
    predicted_recompile_lines,
    torch_recompile_lines,
)

HEAD = "import torch\nfrom torch import nn\n"


def _model(body: str, init: str = "", top: str = "") -> str:
    return (
        HEAD
        + textwrap.dedent(top)
        + "\n\nclass M(nn.Module):\n    def __init__(self):\n"
        + "        super().__init__()\n        self.fc = nn.Linear(8, 8)\n"
        + textwrap.indent(textwrap.dedent(init), "        ")
        + "\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


def _calls(n: int) -> dict[str, Any]:
    return {"inputs": [{"tensor": [2, 8]}], "calls": n}


MASK = """
    def forward(self, x, mask=None):
        h = self.fc(x)
        if mask is not None:
            h = h * mask
        return h.relu()
    """
T, NONE = {"tensor": [2, 8]}, None

GLOBAL_COUNTER = """
    def forward(self, x):
        global _STEP
        _STEP += 1
        return self.fc(x) * min(1.0, _STEP / 100)
    """
GLOBAL_FLAG = """
    def forward(self, x):
        global _WARNED
        if not _WARNED:
            _WARNED = True
            x = x * 2
        return self.fc(x)
    """
DICT_FLAG = """
    def forward(self, x):
        if not _STATE["warned"]:
            _STATE["warned"] = True
            x = x * _STATE["scale"]
        return self.fc(x)
    """
DICT_STORE_ONLY = """
    def forward(self, x):
        _STATE["last_batch"] = 7
        return self.fc(x)
    """
GLOBAL_READ_ONLY = """
    def forward(self, x):
        return self.fc(x) * min(1.0, _STEP / 100)
    """
CLASS_COUNTER = """
    def forward(self, x):
        Stats.calls += 1
        return self.fc(x) * (1.0 if Stats.calls < 100 else 0.5)
    """
DROPOUT = """
    def forward(self, x):
        self.drop.p = min(0.5, self.drop.p + 0.1)
        return self.drop(self.fc(x))
    """

# name: (source, spec, the lines torch reports, as texts of m.py: "def" for the forward's def)
CASES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    # VALID: a tensor first, then None: the tensor guard's type check, at the def
    "tensor_then_none": (
        _model(MASK),
        {"inputs": [T, T], "variants": [{"inputs": [T, NONE]}]},
        {"def"},
    ),
    # INVALID: None first, then a tensor: the `is None` guard of the test, at the test
    "none_then_tensor": (
        _model(MASK),
        {"inputs": [T, NONE], "variants": [{"inputs": [T, T]}]},
        {"if mask is not None:"},
    ),
    # VALID: a global counter: guarded at its first read (the update), once (then symbolic)
    "global_counter": (_model(GLOBAL_COUNTER, top="_STEP = 0\n"), _calls(3), {"_STEP += 1"}),
    # VALID: a global flag set under the test that reads it
    "global_flag": (_model(GLOBAL_FLAG, top="_WARNED = False\n"), _calls(3), {"if not _WARNED:"}),
    # VALID: an item of a module-level dict, set under the test that reads it
    "dict_flag": (
        _model(DICT_FLAG, top='_STATE = {"warned": False, "scale": 1.0}\n'),
        _calls(3),
        {'if not _STATE["warned"]:'},
    ),
    # INVALID: an item only stored (never read before): nothing guards it
    "dict_store_only": (
        _model(DICT_STORE_ONLY, top='_STATE = {"last_batch": 0}\n'),
        _calls(3),
        set(),
    ),
    # INVALID: a global read, never changed
    "global_read_only": (_model(GLOBAL_READ_ONLY, top="_STEP = 3\n"), _calls(3), set()),
    # VALID: an attribute of a module-level class, bound in its body, counted in traced code
    "class_counter": (
        _model(CLASS_COUNTER, top="\n\nclass Stats:\n    calls = 0\n"),
        _calls(3),
        {"Stats.calls += 1"},
    ),
    # VALID: a submodule's float attribute: its first read, then the def (F.dropout)
    "dropout_p": (
        _model(DROPOUT, init="self.drop = nn.Dropout(0.0)\n"),
        {**_calls(4), "mode": "train"},
        {"self.drop.p = min(0.5, self.drop.p + 0.1)", "def"},
    ),
    # INVALID: two calls: only the first read's recompile
    "dropout_p_two_calls": (
        _model(DROPOUT, init="self.drop = nn.Dropout(0.0)\n"),
        {**_calls(2), "mode": "train"},
        {"self.drop.p = min(0.5, self.drop.p + 0.1)"},
    ),
}


test_the_prediction, test_the_prediction_matches_torch = case_tests(
    CASES, predicted_recompile_lines, torch_recompile_lines
)


def test_global_state_rows() -> None:
    import ast

    from compilelint.static.predict import _function_node, global_state

    src = _model(DICT_FLAG, top='_STATE = {"warned": False}\n')
    tree = ast.parse(src)
    fn = _function_node(tree, "M.forward")
    assert fn is not None
    got = global_state(fn, tree)
    assert got == [
        (
            "_STATE['warned']",
            line_of(src, 'if not _STATE["warned"]:'),
            "G['_STATE']['warned'] == False",
        )
    ]
