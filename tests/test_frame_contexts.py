"""Findings of a shared wrapper line carry the model whose calls make it recompile (their
frames), and a pair of decorated functions recompiles the wrapper only when the inner one
breaks on every call (``CalleeBreaks.surely``), not only on an optional input's path."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan

UTILS = """
import functools


def traced_kwargs(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = args[0].__class__.__name__
        return func(*args, **kwargs)

    return wrapper
"""

# the inner function breaks on every call: the wrapper is compiled for both, and recompiles
SURE = """
import torch

from utils import traced_kwargs


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()

    @traced_kwargs
    def forward(self, x, extra=None):
        return self.attn(x, extra) * 2


class Attn(torch.nn.Module):
    @traced_kwargs
    def forward(self, x, extra=None):
        print("attn")
        if extra is not None:
            x = x + extra
        return x + 1
"""

# the inner function breaks only when `extra` is given (an image path under `if pixel_values
# is not None:`): called with `x` alone, nothing breaks and the wrapper is traced through
BRANCH = SURE.replace('        print("attn")\n', "").replace(
    "            x = x + extra", '            print("extra")\n            x = x + extra'
)

# the inner function breaks under `if extra is None:`, and no call passes `extra`: the branch
# runs on every call of the model under its defaults (`Project.certain`)
DEFAULT_BRANCH = SURE.replace('        print("attn")\n', "").replace(
    "        if extra is not None:\n            x = x + extra",
    '        if extra is None:\n            print("no extra")\n        else:\n            x = x + extra',
)

# the same, with a test the conditions on parameters do not describe in full (`x.dim() > 5`,
# false here): the branch's `extra is None` holds, but the branch does not run
PARTIAL = SURE.replace('        print("attn")\n', "").replace(
    "        if extra is not None:\n            x = x + extra",
    '        if extra is None and x.dim() > 5:\n            print("big")',
)


def _cl304(tmp_path: Path, files: dict[str, str]) -> list:  # type: ignore[type-arg]
    tmp_path.mkdir(exist_ok=True)
    for name, src in files.items():
        (tmp_path / name).write_text(textwrap.dedent(src))
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        names = sorted(files)
        res = scan(names, load_config(names), no_cache=True)
    finally:
        os.chdir(old)
    return [f for f in res.findings if f.rule == "CL304"]


def test_a_shared_wrapper_line_is_reported_for_the_model_whose_pair_recompiles_it(
    tmp_path: Path,
) -> None:
    got = _cl304(tmp_path, {"utils.py": UTILS, "sure.py": SURE, "branch.py": BRANCH})
    assert [(Path(f.path).name, f.line) for f in got] == [("utils.py", 8)]
    # its context: the call of the model whose decorated functions make the wrapper recompile
    assert [Path(fr.path).name for fr in got[0].frames] == ["sure.py", "utils.py"]
    assert got[0].frames[0].function == "Net.forward"


def test_two_models_with_such_a_pair_are_two_findings(tmp_path: Path) -> None:
    other = SURE.replace("Net", "Net2").replace("Attn", "Attn2")
    got = _cl304(tmp_path, {"utils.py": UTILS, "sure.py": SURE, "sure2.py": other})
    assert sorted(Path(f.frames[0].path).name for f in got) == ["sure.py", "sure2.py"]
    assert {(Path(f.path).name, f.line) for f in got} == {("utils.py", 8)}


def test_a_break_only_an_optional_input_takes_does_not_recompile_the_wrapper(
    tmp_path: Path,
) -> None:
    assert _cl304(tmp_path, {"utils.py": UTILS, "branch.py": BRANCH}) == []


def test_a_branch_every_call_takes_under_the_defaults_still_recompiles_it(
    tmp_path: Path,
) -> None:
    got = _cl304(tmp_path, {"utils.py": UTILS, "default.py": DEFAULT_BRANCH})
    assert [(Path(f.path).name, f.line) for f in got] == [("utils.py", 8)]

    assert _cl304(tmp_path / "partial", {"utils.py": UTILS, "partial.py": PARTIAL}) == []


@pytest.mark.torch
@pytest.mark.parametrize(
    ("src", "recompiles"), [(SURE, 1), (BRANCH, 0), (DEFAULT_BRANCH, 1), (PARTIAL, 0)]
)
def test_torch_agrees(tmp_path: Path, src: str, recompiles: int) -> None:
    from .torch_oracle import observe

    one_file = textwrap.dedent(UTILS) + textwrap.dedent(src).replace(
        "from utils import traced_kwargs\n", ""
    )
    got = observe(one_file, tmp_path)
    assert got is not None
    assert len(got.recompiles) == recompiles
    if recompiles:
        assert "len(args) == 2" in got.recompiles[0]
