"""Caches store facts and findings as plain data: every field comes back as it was."""

from __future__ import annotations

import marshal
from dataclasses import asdict
from pathlib import Path

import libcst as cst

from compilelint.model import Edit, Finding, Frame
from compilelint.serialize import from_data, to_data
from compilelint.static.analysis.facts import CallSite, FileFacts
from compilelint.static.analysis.walker import analyze_module
from compilelint.static.checks.base import all_checks, build_hooks

SRC = """
import functools
import torch
from torch import nn


def trace_me(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        return func(self, *args, **kwargs)

    return wrapper


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    @trace_me
    def forward(self, x):
        if x.sum() > 0:
            x = self.lin(x)
        return x, x.shape[0]
"""


def test_file_facts_survive_the_cache_round_trip(tmp_path: Path) -> None:
    checks = list(all_checks().values())
    facts = analyze_module(
        cst.parse_module(SRC),
        path="m.py",
        module_name="m",
        is_package=False,
        lines=SRC.count("\n"),
        make_checks=lambda w: build_hooks(w, checks),
    )
    back = from_data(FileFacts, marshal.loads(marshal.dumps(asdict(facts))))
    assert back == facts
    assert to_data(facts) == asdict(facts)
    assert from_data(FileFacts, marshal.loads(marshal.dumps(to_data(facts)))) == facts
    fwd = back.functions["Net.forward"]
    assert fwd.decorators and all(isinstance(s, CallSite) for s in fwd.decorators)
    assert all(isinstance(s, CallSite) for f in back.functions.values() for s in f.calls)


def test_findings_survive_the_results_cache_round_trip() -> None:
    f = Finding(
        rule="CL101",
        name="tensor-dependent-branch",
        path="m.py",
        line=3,
        col=5,
        end_line=3,
        end_col=9,
        severity="error",
        message="m",
        fix="f",
        hints=("a", "b"),
        frames=(Frame("m.py", 3, "forward"), Frame("/site/lib.py", 9, "step")),
        edits=(Edit("m.py", 3, 5, 3, 9, "x"),),
        package="lib==1.0",
    )
    assert from_data(Finding, marshal.loads(marshal.dumps(asdict(f)))) == f
    assert to_data(f) == asdict(f)
