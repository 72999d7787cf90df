"""A Python argument traced code hands on unchanged to a user function is guarded where the
callee first reads it (``predict._handed_rows``), checked against torch 2.13's recompiles log.

dynamo inlines the callee; passing the value on does not read it, so torch reports the guard
(``scale == 1.0``) at the callee's line that uses it, not at the call.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_recompile_lines, torch_recompile_lines

HEAD = "import torch\nfrom torch import nn\n"

# VALID: a float and a flag handed to a helper function, a float handed by keyword to a
# submodule's forward (the call's implicit `self`), two calls deep
HANDED = HEAD + textwrap.dedent("""
    def scaled(y, scale, flag):
        y = y * 2
        if flag:
            y = y + 1
        return y * scale

    def twice(y, scale, flag):
        return scaled(y + 1, scale, flag)

    class Inner(nn.Module):
        def forward(self, x, temperature=1.0):
            return x / temperature

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x, scale=1.0, flag=True, temperature=1.0):
            z = x + 1
            z = twice(z, scale, flag)
            return self.inner(z, temperature=temperature)
    """)
# INVALID for the callee: the entry reads the value itself first (arithmetic), then hands it on
READ_FIRST = HANDED.replace("z = x + 1\n", "z = x + scale\n")
assert READ_FIRST != HANDED
# INVALID: the callee never reads what it is given: nothing guards it, no recompile
UNREAD = HEAD + textwrap.dedent("""
    def helper(y, scale):
        return y * 2

    class M(nn.Module):
        def forward(self, x, scale=1.0):
            return helper(x, scale)
    """)


def _spec(**kwargs: Any) -> dict[str, Any]:
    return {
        "inputs": [{"tensor": [2, 4]}],
        "variants": [{"inputs": [{"tensor": [2, 4]}], "kwargs": kwargs}],
    }


CASES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "float_two_deep": (HANDED, _spec(scale=0.5), ("return y * scale",)),
    "flag_two_deep": (HANDED, _spec(flag=False), ("if flag:",)),
    "keyword_to_module": (HANDED, _spec(temperature=0.5), ("return x / temperature",)),
    "read_first": (READ_FIRST, _spec(scale=0.5), ("z = x + scale",)),
    "unread": (UNREAD, _spec(scale=0.5), ()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_handed_argument_is_guarded_where_the_callee_reads_it(tmp_path: Path, name: str) -> None:
    src, spec, at = CASES[name]
    assert predicted_recompile_lines(tmp_path, src, spec) == {line_of(src, a) for a in at}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_handed_argument_guards_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec, at = CASES[name]
    assert torch_recompile_lines(tmp_path, src, spec) == {line_of(src, a) for a in at}
