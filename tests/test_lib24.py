"""lib24: a package's configuration constants and ``**kwargs`` chains of ``__init__``.

pytorch-metric-learning's losses and miners store ``self.collect_stats = c_f.COLLECT_STATS if
collect_stats is None else collect_stats`` in a base ``__init__`` reached from the user's class
through ``super().__init__(**kwargs)`` over mixins and bases in between, with ``COLLECT_STATS =
False`` in another module; ``if self.collect_stats:`` guards ``.item()`` calls. A user's first
call of an entry runs under the package's configuration as shipped (as under the entry's
defaults): a module-level name bound once to a literal, which no file of the package stores
through the module, holds that literal (library mode only: a training script may set it), and
a keyword no ``__init__`` on the way names holds the base's default. Each verdict beside
torch's ``graph_breaks`` log (:func:`tests.torch_checks.logged_break_lines`): VALID, library
mode is silent and torch logs no break; INVALID, library mode reports and torch breaks there.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

CONFIG = """\
COLLECT_STATS = False
TRACE_STATS = True
STORED_STATS = False
"""

SRC = """\
import torch
from torch import nn

from . import _config as cfg

LOCAL_STATS = False

cfg.STORED_STATS = True  # the package turns it on when imported


class ModuleWithRecords(nn.Module):
    def __init__(self, collect_stats=None):
        super().__init__()
        self.collect_stats = cfg.COLLECT_STATS if collect_stats is None else collect_stats


class LoggingMixin:
    def __init__(self, log_every=10, **kwargs):
        super().__init__(**kwargs)
        self.log_every = log_every


class BaseReducer(ModuleWithRecords):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def forward(self, x):
        if self.collect_stats:
            self.last = x.mean().item()  # REDUCER
        return x.mean()


class MeanReducer(BaseReducer):
    pass


class BaseMiner(LoggingMixin, ModuleWithRecords):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.reducer = MeanReducer()

    def forward(self, x):
        if self.collect_stats:
            self.avg = x.mean().item()  # MINER
        return self.reducer(x * 2)


class TripletMiner(BaseMiner):
    def __init__(self, margin=0.2, **kwargs):
        super().__init__(**kwargs)
        self.margin = margin


class AskedMiner(TripletMiner):
    def __init__(self, **kwargs):
        super().__init__(collect_stats=True, **kwargs)


class LocalMiner(nn.Module):
    def __init__(self, local_stats=None):
        super().__init__()
        self.local_stats = LOCAL_STATS if local_stats is None else local_stats

    def forward(self, x):
        if self.local_stats:
            self.avg = x.mean().item()  # LOCAL
        return x * 2


class TracingMiner(nn.Module):
    def __init__(self, trace_stats=None):
        super().__init__()
        self.trace_stats = cfg.TRACE_STATS if trace_stats is None else trace_stats

    def forward(self, x):
        if self.trace_stats:
            self.avg = x.mean().item()  # TRACING
        return x * 2


class StoredMiner(nn.Module):
    def __init__(self, stored_stats=None):
        super().__init__()
        self.stored_stats = cfg.STORED_STATS if stored_stats is None else stored_stats

    def forward(self, x):
        if self.stored_stats:
            self.avg = x.mean().item()  # STORED
        return x * 2
"""

# entry -> the marked lines it reaches
VALID = {"TripletMiner": ("MINER", "REDUCER"), "LocalMiner": ("LOCAL",)}
INVALID = {"AskedMiner": ("MINER",), "TracingMiner": ("TRACING",), "StoredMiner": ("STORED",)}
ALL_MARKERS = ("MINER", "REDUCER", "LOCAL", "TRACING", "STORED")


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(SRC.splitlines(), 1) if t.endswith(f"# {marker}"))


def _library(tmp_path: Path, entries: list[str], *extra: str) -> list[dict[str, Any]]:
    """Library mode on package ``mylib`` (``SRC`` in ``mylib/_ops.py``, ``CONFIG`` in
    ``mylib/_config.py``): its findings in ``_ops.py``."""
    from tests.cli_invoke import invoke

    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {', '.join(entries)}\n")
    (pkg / "_ops.py").write_text(SRC)
    (pkg / "_config.py").write_text(CONFIG)
    globs = [f"mylib.{e}.*" for e in entries]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nentries = " + json.dumps(globs) + "\n"
    )
    code, out, err = invoke(
        ["check", "mylib", "--format", "json", "--no-cache", *extra], cwd=tmp_path
    )
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["path"].endswith("_ops.py")]


@pytest.mark.parametrize("entry", sorted(VALID))
def test_shipped_configuration_code_is_latent(tmp_path: Path, entry: str) -> None:
    # VALID: the constant is False as shipped and no `__init__` on the way passes the keyword
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert not {_line(m) for m in VALID[entry]} & lines


@pytest.mark.parametrize("entry", sorted(VALID))
def test_shipped_configuration_code_is_shown_with_report_untraced(
    tmp_path: Path, entry: str
) -> None:
    got = [
        f
        for f in _library(tmp_path, [entry], "--report-untraced")
        if f["line"] == _line(VALID[entry][0])
    ]
    assert got and all("latent" in f["message"] for f in got)


@pytest.mark.parametrize("entry", sorted(INVALID))
def test_configuration_that_runs_the_branch_stays_reported(tmp_path: Path, entry: str) -> None:
    # INVALID: a subclass passes `collect_stats=True` up the chain; the constant is True; the
    # package stores the constant when imported (`cfg.STORED_STATS = True`)
    lines = {f["line"] for f in _library(tmp_path, [entry])}
    assert {_line(m) for m in INVALID[entry]} <= lines


def test_model_files_keep_configuration_branches(tmp_path: Path) -> None:
    # a training script may set the module's configuration before it compiles the model
    from tests.cli_invoke import invoke

    src = (
        SRC.replace("from . import _config as cfg\n", "")
        .replace("cfg.STORED_STATS = True", "STORED_STATS = True")
        .replace("cfg.", "")
    )
    src = CONFIG + src + "\n\nclass Model(nn.Module):\n    def __init__(self):\n"
    src += "        super().__init__()\n        self.miner = LocalMiner()\n\n"
    src += "    def forward(self, x):\n        return self.miner(x)\n"
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(["check", "model.py", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {f["line"] for f in json.loads(out)["findings"]}
    assert _line("LOCAL") + len(CONFIG.splitlines()) - 1 in lines


def test_module_constants_forms() -> None:
    import ast

    from compilelint.static.analysis.constants import module_constants as _module_constants

    src = """\
import os
from . import _config as cfg

SHIPPED = False
NAME = "pml"
NOTHING = None
TWICE = 1
TWICE = 2
if os.environ.get("X"):
    BRANCHED = True
for LOOPED in range(2):
    pass
GLOBAL = False
AUG = 1
AUG += 1
TUPLE = (1, 2)
COMPUTED = os.sep


def turn_on():
    global GLOBAL
    GLOBAL = True


cfg.COLLECT_STATS = True
"""
    tree = ast.parse(src)
    got = _module_constants(tree, {"os": "os", "cfg": "pkg._config"}, src.encode())
    assert got["module_consts"] == {"SHIPPED": False, "NAME": "pml", "NOTHING": None}
    assert got["module_stores"] == ["pkg._config.COLLECT_STATS"]
    # a file only syntax-checked (its imports not read): the attribute's name alone
    assert _module_constants(tree, None, src.encode())["module_stores"] == ["*.COLLECT_STATS"]
    # no source text (a caller that does not pass it): nothing known
    assert _module_constants(tree, {}, None) == {}


def _load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``mylib`` built in memory, each module compiled under a ``<lib24_...>`` file name."""
    from tests.torch_checks import in_memory_package

    pkg = in_memory_package(monkeypatch, "lib24pkg", {"_config": CONFIG, "_ops": SRC})
    return pkg._ops  # type: ignore[attr-defined, no-any-return]


@pytest.mark.torch
@pytest.mark.parametrize("entry", sorted([*VALID, *INVALID]))
def test_torch_agrees(monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    # torch logs the `.item()` break exactly on the INVALID entries' lines
    torch = pytest.importorskip("torch")
    from tests.torch_checks import logged_break_lines

    ops = _load(monkeypatch)
    model = getattr(ops, entry)()
    got = logged_break_lines(model, torch.randn(4, 3), "lib24_ops")
    want = {_line(m) for m in INVALID[entry]} if entry in INVALID else set()
    assert got & {_line(m) for m in ALL_MARKERS} == want
