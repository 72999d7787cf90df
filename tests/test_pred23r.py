"""Issue 23, pred23r: a module attribute bound once in ``__init__`` is a constant for the guard
rows, checked against torch 2.13.

``if x.size(1) > self.max_len:`` on a size that automatic dynamic made symbolic installs a
range guard at the branch (``2 <= x.size()[1] <= 8``): a later call on the other side of the
bound recompiles there. ``self.max_len`` is a constant when ``__init__`` binds it once, in its
own body, from a literal number or an ``__init__`` parameter (the spec's constructor
arguments, else its literal default), and nothing else in the class stores it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import (
    case_tests,
    line_of,
    predicted_recompile_lines,
    torch_recompile_lines,
)

TORCH = "import torch\nfrom torch import nn\n"


def _model(init_sig: str, init: str, body: str) -> str:
    return (
        TORCH
        + f"\n\nclass M(nn.Module):\n    def __init__(self{init_sig}):\n"
        + "        super().__init__()\n        self.fc = nn.Linear(8, 8)\n"
        + textwrap.indent(textwrap.dedent(init), "        ")
        + "\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
    )


CROP = """
    def forward(self, x):
        if x.size(1) > self.max_len:
            x = x[:, -self.max_len :]
        return self.fc(x).mean(1)
    """


def _seq(*lens: int) -> dict[str, Any]:
    first, *rest = lens
    return {
        "inputs": [{"tensor": [1, first, 8]}],
        "variants": [{"inputs": [{"tensor": [1, n, 8]}]} for n in rest],
    }


BRANCH = "if x.size(1) > self.max_len:"

# name: (source, spec, the lines torch reports, as texts of m.py: "def" for the forward's def)
CASES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    # VALID: a literal in __init__; the calls cross 8 after the dim turned symbolic
    "literal": (_model("", "self.max_len = 8\n", CROP), _seq(4, 6, 9, 12), {"def", BRANCH}),
    # VALID: a parameter's literal default, no constructor arguments in the spec
    "default": (
        _model(", max_len=8", "self.max_len = max_len\n", CROP),
        _seq(4, 6, 9, 12),
        {"def", BRANCH},
    ),
    # VALID: the spec's constructor argument (5, not the default 32) decides the side
    "ctor_arg": (
        _model(", max_len=32", "self.max_len = max_len\n", CROP),
        {**_seq(3, 4, 7), "init": {"args": [5]}},
        {"def", BRANCH},
    ),
    # VALID: a keyword constructor argument, the comparison written the other way round
    "ctor_kwarg_flipped": (
        _model(
            ", max_len=32",
            "self.max_len = max_len\n",
            """
            def forward(self, x):
                if self.max_len < x.size(1):
                    x = x[:, : self.max_len]
                return self.fc(x).mean(1)
            """,
        ),
        {**_seq(3, 4, 7), "init": {"kwargs": {"max_len": 5}}},
        {"def", "if self.max_len < x.size(1):"},
    ),
    # INVALID: the calls stay below the bound: one recompile, at the def (automatic dynamic)
    "one_side": (_model("", "self.max_len = 8\n", CROP), _seq(3, 5, 7), {"def"}),
    # INVALID: the constructor argument puts every call above the bound (the default would
    # have put the last one across it)
    "ctor_arg_one_side": (
        _model(", max_len=16", "self.max_len = max_len\n", CROP),
        {**_seq(4, 6, 9, 12), "init": {"args": [2]}},
        {"def"},
    ),
}


test_the_prediction, test_the_prediction_matches_torch = case_tests(
    CASES, predicted_recompile_lines, torch_recompile_lines
)


# ---------------------------------------------------------------------------- not a constant
@pytest.mark.parametrize(
    ("init_sig", "init", "extra"),
    [
        # rebound in another method: not bound once
        ("", "self.max_len = 8\n", "def grow(self):\n    self.max_len = 16\n"),
        # bound under a condition of __init__
        (", m=8", "if m > 0:\n    self.max_len = m\nelse:\n    self.max_len = 4\n", ""),
        # the parameter rebound before it is stored
        (", max_len=None", "max_len = max_len or 8\nself.max_len = max_len\n", ""),
        # a parameter without a default and no constructor argument in the spec
        (", max_len", "self.max_len = max_len\n", ""),
    ],
)
def test_not_a_constant(init_sig: str, init: str, extra: str) -> None:
    src = _model(init_sig, init, CROP + textwrap.indent(extra, "    "))
    assert _bound(src) == {}


def _bound(src: str) -> dict[int, tuple[str, Any]]:
    import tempfile

    from compilelint.static.predict import _bound_attr_branches

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.py"
        p.write_text(src)
        return _bound_attr_branches(str(p), "M.forward", (), {})


def test_a_constant_is_read() -> None:
    src = _model("", "self.max_len = 8\n", CROP)
    assert _bound(src) == {line_of(src, BRANCH): (">", 8)}
