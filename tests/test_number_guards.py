"""Where torch guards a number a break hands to the resume function, when another break comes
before the number's first use (``predict.number_guard_lines``), checked against torch 2.13.

A number a break produces (``n = x.sum().item()``, ``s = time.time()``) arrives in the
resume function on the stack and is stored in a name. When the resume function breaks again
before it reads the name, it hands the number on to the next resume function at that break,
and torch guards it there (``___stack0 == 4`` at the second break's line); the next resume
function guards the name where it reads it (``n == 4``). Both recompile once when the number
changes. A break in a loop after the number makes torch skip the resume function: no guard.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.pred_helpers import line_of, predicted_recompile_lines, torch_recompile_lines

HEAD = "import time\n\nimport torch\nfrom torch import nn\n"


def _model(body: str) -> str:
    return (
        HEAD
        + textwrap.dedent("""
        class M(nn.Module):
            def __init__(self, flag=True):
                super().__init__()
                self.flag = flag

            def forward(self, x):
        """)
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


# VALID: a number read out, a `print` before its use: guarded at the print, then at the use
ONE_BETWEEN = _model("""
    n = x.sum().item()
    y = x + 1
    print("between")
    z = y * 2
    return z + n
""")
# VALID: two breaks between: the first hands it on (`___stack0`), the last resume function
# reads the name (`n`); the second break, where `n` is a plain input, guards nothing
TWO_BETWEEN = _model("""
    n = x.sum().item()
    y = x + 1
    print("a")
    y = y + 1
    print("b")
    return y + n
""")
# VALID: the break between is in a branch the call takes
BRANCH_BETWEEN = _model("""
    n = x.sum().item()
    y = x + 1
    if self.flag:
        print("between")
    return y * 2 + n
""")
# INVALID for the break line: the number is used before the later break (guarded at the use)
USED_BEFORE = _model("""
    n = x.sum().item()
    y = x + n
    print("between")
    return y * 2
""")
# INVALID: a break in a loop after the number: torch skips the resume function, no guard
LOOP_AFTER = _model("""
    n = x.sum().item()
    y = x + 1
    for i in range(2):
        print("between", i)
    return y * 2 + n
""")
# INVALID: a call in a loop whose callee breaks, after the number: the same skip
HELPER = textwrap.dedent("""

    def noisy(t):
        print("step")
        return t + 1
""")
LOOP_CALL_AFTER = (
    _model("""
    n = x.sum().item()
    y = x + 1
    for i in range(2):
        y = noisy(y)
    return y * 2 + n
""")
    + HELPER
)
# VALID: the loop's break runs only in training mode (the spec's calls are in eval mode): the
# resume function is not skipped, the number is guarded where it is used
LOOP_TRAINING_ONLY = _model("""
    n = x.sum().item()
    y = x + 1
    for i in range(2):
        if self.training and time.time() > 0:
            y = y + 1
    return y * 2 + n
""")
# VALID for the first break only: the second resume function, which reads the name, is skipped
# at its loop; the first one hands the number on at its break and is compiled with the guard
SECOND_SKIPPED = (
    _model("""
    n = x.sum().item()
    y = x + 1
    print("between")
    for i in range(2):
        y = noisy(y)
    return y * 2 + n
""")
    + HELPER
)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "loop_call_after": (LOOP_CALL_AFTER, ()),
    "loop_training_only": (LOOP_TRAINING_ONLY, ("return y * 2 + n",)),
    "second_skipped": (SECOND_SKIPPED, ('print("between")',)),
    "one_between": (ONE_BETWEEN, ('print("between")', "return z + n")),
    "two_between": (TWO_BETWEEN, ('print("a")', "return y + n")),
    "branch_between": (BRANCH_BETWEEN, ('print("between")', "return y * 2 + n")),
    "used_before": (USED_BEFORE, ("y = x + n",)),
    "loop_after": (LOOP_AFTER, ()),
}
# three calls with new random data (the variants' tensors are drawn anew): each number differs
# between the resume function's runs
SPEC: dict[str, Any] = {
    "mode": "eval",
    "inputs": [{"tensor": [3, 3]}],
    "variants": [{"inputs": [{"tensor": [3, 3]}]}, {"inputs": [{"tensor": [3, 3]}]}],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_number_handed_on_at_a_later_break_is_guarded_there(tmp_path: Path, name: str) -> None:
    src, at = CASES[name]
    assert predicted_recompile_lines(tmp_path, src, SPEC) == {line_of(src, a) for a in at}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_later_break_guards_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, at = CASES[name]
    assert torch_recompile_lines(tmp_path, src, SPEC) == {line_of(src, a) for a in at}
