"""speed27: work of the later phases done while the project phase waits for its pool.

The project phase analyses the torch-free helpers that traced code calls in the scan's pool and
waits for them (a first run over transformers waits for ``auto/modeling_auto.py``, 121 KB, while
this process and the other worker idle). Meanwhile this process now parses the CPython trees
that the findings phase's loop-shadow check will read (``_Scan._spare``), and reads the
distribution tables following will read (``Resolver.read_distributions``), a step at a time
until the helpers' facts are in. Nothing it does changes a finding.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest

from compilelint.config import load_config
from compilelint.static import engine
from compilelint.static.analysis.resolve import Resolver, _dist_table
from tests.pred_helpers import EVERY_ITERATION

# a torch-free helper (no ``torch``, no ``forward`` in it: phase 1 only syntax-checks it) that
# the traced forward calls: the project phase analyses it in the pool and waits
HELPER = "def scale(x, k=2):\n    return x * k\n"
POOLER = EVERY_ITERATION.replace("n = x.sum().item()", "n = helpers.scale(x).sum().item()").replace(
    "from torch import nn\n", "from torch import nn\n\nimport helpers\n"
)
OTHER = "import torch\nfrom torch import nn\n\n\nclass Head(nn.Module):\n    def forward(self, x):\n        return x.relu()\n"


def _scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, ready: bool | None, spare: bool = True
) -> tuple[list[tuple[int, str, int | None]], list[object], engine._Scan]:
    """A first run with a pool of two workers over the three files; ``ready``: what the wait
    says when asked whether the helpers' facts are in (None: the pool's own answer). The CPython
    parses this process makes outside phase 1's syntax check and ``_spare_tree``, and the
    scan."""
    (tmp_path / "pooler.py").write_text(POOLER + f"# {tmp_path.name}\n")  # a text of its own
    (tmp_path / "head.py").write_text(OTHER)
    (tmp_path / "helpers.py").write_text(HELPER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)  # a pool for these few files
    if ready is not None:
        monkeypatch.setattr(engine._Started, "ready", lambda self: ready)
    if not spare:
        monkeypatch.setattr(engine._Scan, "_spare", lambda self, project: None)
    scans: list[engine._Scan] = []
    real_phases = engine._run_phases

    def phases(run: engine._Scan, *a: object) -> engine.ScanResult:
        scans.append(run)
        return real_phases(run, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_run_phases", phases)
    parses: list[object] = []
    real = ast.parse

    def counting(source: object, *a: object, **k: object) -> ast.Module:
        f = sys._getframe(1)
        while f is not None and f.f_code.co_name not in ("_python_error", "_spare_tree"):
            f = f.f_back  # type: ignore[assignment]
        if f is None:
            parses.append(source)
        return real(source, *a, **k)  # type: ignore[arg-type, call-overload]

    monkeypatch.setattr(ast, "parse", counting)
    paths = ["."]
    cfg = dataclasses.replace(load_config(paths), jobs=2)
    got = engine.scan(paths, cfg, no_cache=True, sources=None)
    found = sorted((f.line, f.rule, f.behind) for f in got.findings)
    return found, parses, scans[0]


def test_the_tree_is_parsed_while_the_project_phase_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the helper's facts not in yet, this process parses ``pooler.py``'s tree (two loop
    breaks in traced code) and not ``head.py``'s (none); the loop-shadow check and the
    predictions take it: the findings phase parses the text no more."""
    found, parses, run = _scan(tmp_path, monkeypatch, ready=False)
    assert any(b is not None for _, _, b in found)  # the loop-shadow check ran
    assert "helpers.py" in run.facts and not run.facts["helpers.py"].torch_free  # waited for
    assert set(run._spare_trees) == {"pooler.py"}
    data = run.datas["pooler.py"]
    assert not [p for p in parses if p in (data, data.decode())]  # fails without the change


def test_the_spare_work_stops_once_the_helpers_are_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Facts in before a step: none is done, and the findings phase parses the text itself;
    the findings are those of a scan with no spare work, and of one that did it all."""
    found, parses, run = _scan(tmp_path, monkeypatch, ready=True)
    assert run._spare_trees == {} and run._spare_seen == set()
    data = run.datas["pooler.py"]
    assert len([p for p in parses if p in (data, data.decode())]) == 1
    none, _, _ = _scan(tmp_path, monkeypatch, ready=None, spare=False)
    every, _, _ = _scan(tmp_path, monkeypatch, ready=False)
    assert found == none == every


def test_read_distributions_reads_the_table_distribution_reads(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "mypkg-1.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 1.2\n\n")
    (info / "top_level.txt").write_text("mypkg\n")
    (site / "mypkg").mkdir()
    (site / "mypkg" / "__init__.py").write_text("")
    r = Resolver([str(site)])
    r.read_distributions(str(site))
    assert r._dists[str(site)] == _dist_table(str(site)) == {"mypkg": ("mypkg", "1.2")}
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 9.9\n\n")
    r.read_distributions(str(site))  # read once, as ``distribution`` reads it once
    mf = r.find("mypkg")
    assert mf is not None and r.distribution(mf) == ("mypkg", "1.2")
