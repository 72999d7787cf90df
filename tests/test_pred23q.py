"""A graph break inside a ``with`` block (issue 23, pred23q).

torch 2.13 cannot enter some context managers again in a resume function: a break inside their
``with`` body makes dynamo skip the rest of the frame (it runs eagerly; later breaks of that
frame are not reported), as a break in a loop does. ``contextlib.suppress``,
``warnings.catch_warnings``, a user ``@contextmanager`` function and a user class with
``__enter__``/``__exit__`` report the inner break's line; ``torch.random.fork_rng`` and
``torch.backends.cuda.sdp_kernel`` report the ``with`` line itself (GB0142). torch's
``no_grad``, ``enable_grad``, ``inference_mode``, ``autocast``, ``profiler.record_function`` and
``contextlib.nullcontext`` resume inside the block: each break is reported. Each case is
predicted and run through torch (``run_dynamic``, ``-m torch``); the table is in docs/corpus.md
(pred23q).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.pred_helpers import (
    case_tests,
    line_of,
    marked_lines,
    predicted_break_lines,
    torch_break_lines,
)

HEAD = """import contextlib
import warnings

import torch
from torch import nn


@contextlib.contextmanager
def section(name):
    yield name


class Region:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

"""
BODY = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        with {cm}:
            s = h.sum().item()  # BRK1
            h = h * s
            t = h.mean().item()  # BRK2
            h = h + t
        u = h.max().item()  # BRK3
        return h * u
"""
ALL = ("BRK1", "BRK2", "BRK3")
# manager -> the markers of the lines torch 2.13 reports ("with " is the with line)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    # VALID: the rest of the frame runs eagerly after the inner break
    "suppress": ("contextlib.suppress(ValueError)", ("BRK1",)),
    "catch_warnings": ("warnings.catch_warnings()", ("BRK1",)),
    "user_contextmanager": ('section("blk")', ("BRK1",)),
    "user_class": ("Region()", ("BRK1",)),
    # VALID: reported at the with line
    "fork_rng": ("torch.random.fork_rng(devices=[])", ("with ",)),
    "sdp_kernel": ("torch.backends.cuda.sdp_kernel(enable_flash=False)", ("with ",)),
    # INVALID: torch resumes inside the block, every break is reported
    "no_grad": ("torch.no_grad()", ALL),
    "enable_grad": ("torch.enable_grad()", ALL),
    "inference_mode": ("torch.inference_mode()", ALL),
    "autocast": ("torch.autocast('cpu', dtype=torch.bfloat16)", ALL),
    "record_function": ("torch.profiler.record_function('blk')", ALL),
    "nullcontext": ("contextlib.nullcontext()", ALL),
}
SPEC = {"inputs": [{"tensor": [2, 4]}]}


def _source(name: str) -> str:
    cm, _ = CASES[name]
    return HEAD + BODY.format(cm=cm)


test_the_predicted_break_lines, test_the_predicted_break_lines_match_torch = case_tests(
    {name: (_source(name), SPEC, markers) for name, (_, markers) in CASES.items()},
    predicted_break_lines,
    torch_break_lines,
    observed_spec={"calls": 1},
)


def test_without_a_spec_as_with_one(tmp_path: Path) -> None:
    for name in ("user_contextmanager", "fork_rng", "no_grad"):
        src = _source(name)
        assert predicted_break_lines(tmp_path, src, None) == marked_lines(src, CASES[name][1])


def _before() -> str:
    return HEAD + BODY.format(cm='section("blk")').replace(
        "h = self.fc(x)\n",
        "h = self.fc(x)\n        k = h.min().item()  # BRK0\n        h = h + k\n",
    )


def test_a_break_before_the_with_is_kept(tmp_path: Path) -> None:
    """A break before an unresumable ``with`` is reported as well: the frame resumes after it
    and is skipped only inside the block."""
    src = _before()
    assert predicted_break_lines(tmp_path, src, SPEC) == {
        line_of(src, "BRK0"),
        line_of(src, "BRK1"),
    }


@pytest.mark.torch
def test_a_break_before_the_with_matches_torch(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    src = _before()
    want = {line_of(src, "BRK0"), line_of(src, "BRK1")}
    assert torch_break_lines(tmp_path, src, {**SPEC, "calls": 1}) == want


def test_the_finding_at_the_with_line_names_the_inner_break(tmp_path: Path) -> None:
    from compilelint.api import check
    from compilelint.config import load_config

    src = _source("fork_rng")
    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = check(["m.py"], load_config(["m.py"]), no_cache=True)
    finally:
        os.chdir(old)
    at = [f for f in report.findings if f.line == line_of(src, "with ")]
    assert at and f"the break itself is at line {line_of(src, 'BRK1')}" in at[0].message
