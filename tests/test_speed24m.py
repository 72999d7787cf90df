"""Branch speed24m: following's library files begun as soon as they are known to be needed.

A module a computation finds missing (the next round loads its file) is read then when its
bytes may make it heavy, and a file that cannot be light is analysed whole in the pool while
the computation goes on; the other missing modules' files are read for resolution while this
process waits for the pool; a light file a computation demands is begun in the pool at the
demand. The round or the upgrade takes what was begun (the file unchanged), a file begun but
never needed is left. What following loads, reads light or whole, and finds is what it was
with each file read in its round (``follow.EARLY`` off), and no file is read or analysed twice.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.static import engine
from compilelint.static import follow as F
from compilelint.static import libresolve as LR
from compilelint.static.engine import ScanResult, scan
from tests.test_follow import make_env

SITE = ("lib", "python3.11", "site-packages")

# the user calls ``fakelib.api.run`` (light until the prediction names it); ``run`` calls into
# ``heavy`` (module-level ``torch.compile``: cannot be light), which a computation finds missing;
# ``heavy.kernel`` calls ``fakelib.helpers.clamp`` (light) and is wrapped by ``deco.traced``
API = """\
import torch

from .heavy import kernel


def run(x):
    y = kernel(x)
    return y + 1
"""

HEAVY = """\
import torch

from .deco import traced
from .helpers import clamp


@traced
def kernel(x):
    z = clamp(x)
    if z.sum() > 0:
        return z.item()
    return z


fast = torch.compile(kernel)
"""

DECO = """\
import functools


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        print("called")
        return out

    return wrapper
"""

HELPERS = """\
import torch


def clamp(x):
    n = int(x.max())
    return x.clamp(0, n)


def unused(x):
    return torch.compile(x)
"""

# a package of the same distribution that nothing imports: begun early in the test that
# tells following of a module it never loads
UNUSED = "import torch\n\n\ndef f(x):\n    return torch.compile(x)\n"

USER = """\
import torch
import fakelib.api


class M(torch.nn.Module):
    def forward(self, x):
        return fakelib.api.run(x)
"""

OTHER = (
    "import torch\n\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
)


def _env(tmp_path: Path) -> tuple[Path, Path]:
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    pkg = venv.joinpath(*SITE, "fakelib")
    for rel, text in {
        "api.py": API,
        "heavy.py": HEAVY,
        "deco.py": DECO,
        "helpers.py": HELPERS,
        "unused.py": UNUSED,
    }.items():
        (pkg / rel).write_text(text)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    (proj / "other.py").write_text(OTHER)  # two files: the pool starts for phase 1
    return proj, venv


def _scan(proj: Path, venv: Path, jobs: int) -> ScanResult:
    old = os.getcwd()
    os.chdir(proj)
    try:
        return scan(["."], Config(cache=False, python=str(venv), jobs=jobs), want_project=True)
    finally:
        os.chdir(old)


class _Spy:
    """What a scan read and analysed of library files, and when."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.light: Counter[str] = Counter()  # light reads per file
        self.whole: Counter[str] = Counter()  # whole analyses per library file
        self.during: list[str] = []  # files begun in the pool while a computation ran
        self.demanded: list[str] = []  # files begun at a demand
        self.computing = 0
        light = LR.light_facts
        start = engine._Scan.start_files
        analyse = engine._Scan.analyse_files
        compute = F.FollowProject.compute

        def light_facts(data: bytes, path: str, module: str, pkg: bool) -> Any:
            self.light[os.path.basename(path)] += 1
            return light(data, path, module, pkg)

        def lib(items: list[Any]) -> list[str]:
            return [os.path.basename(it[1].path) for it in items if it[3] == "all"]

        def start_files(scan: engine._Scan, items: list[Any]) -> Any:
            got = start(scan, items)
            if got is not None:
                self.whole.update(lib(items))
                if self.computing:
                    self.during += lib(items)
                if LR.Demand.active and isinstance(LR.Demand.paths, LR._Noticed):
                    self.demanded += [n for n in lib(items) if n in self._demanded_now()]
            return got

        def analyse_files(scan: engine._Scan, items: list[Any], progress: Any = None) -> Any:
            self.whole.update(lib(items))
            return analyse(scan, items, progress)

        def counted(project: F.FollowProject) -> None:
            self.computing += 1
            try:
                compute(project)
            finally:
                self.computing -= 1

        monkeypatch.setattr(LR, "light_facts", light_facts)
        monkeypatch.setattr(engine._Scan, "start_files", start_files)
        monkeypatch.setattr(engine._Scan, "analyse_files", analyse_files)
        monkeypatch.setattr(F.FollowProject, "compute", counted)

    @staticmethod
    def _demanded_now() -> set[str]:
        return {os.path.basename(p) for p in LR.Demand.paths}


def _facts(run: ScanResult) -> dict[str, tuple[bool, object]]:
    p = run.project
    assert isinstance(p, F.FollowProject)
    return {os.path.basename(k): (LR.is_light(p.files[k]), p.files[k]) for k in p.library}


def _same(a: ScanResult, b: ScanResult) -> None:
    assert a.findings == b.findings
    # files, light, upgraded, functions, packages, bounds
    assert a.follow is not None and b.follow is not None
    assert {k: v for k, v in a.follow.items() if k != "seconds"} == {
        k: v for k, v in b.follow.items() if k != "seconds"
    }
    fa, fb = _facts(a), _facts(b)
    assert sorted(fa) == sorted(fb)
    for name in fa:
        assert fa[name][0] == fb[name][0], name
        if not fa[name][0]:  # whole facts: equal field by field
            assert fa[name][1] == fb[name][1], name
    pa, pb = a.project, b.project
    assert isinstance(pa, F.FollowProject) and isinstance(pb, F.FollowProject)
    assert pa.traced == pb.traced and pa.roots == pb.roots


@pytest.mark.parametrize("jobs", [1, 2])
def test_begun_early_the_same_as_in_their_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """With and without the early starts, in one process and with the pool: the same library
    files, light or whole, the same facts, traced functions and findings; each file read
    light at most once and analysed whole at most once."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    before = _scan(proj, venv, jobs)
    monkeypatch.setattr(F, "EARLY", True)
    spy = _Spy(monkeypatch)
    now = _scan(proj, venv, jobs)
    _same(before, now)
    assert now.findings
    assert max(spy.light.values()) == 1, spy.light
    if jobs == 2:
        assert max(spy.whole.values()) == 1, spy.whole
    lib = _facts(now)
    assert lib["heavy.py"][0] is False and lib["api.py"][0] is False  # whole
    assert "unused.py" not in lib


def test_a_heavy_module_begins_while_the_computation_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``heavy.py`` (a module-level ``torch.compile``) is found missing by a computation: its
    whole analysis is begun in the pool then, not after the computation, and its round takes
    it (no second analysis); a light file a computation demands is begun at the demand."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    spy = _Spy(monkeypatch)
    _scan(proj, venv, 2)
    assert spy.during == [] and spy.demanded == []  # each begun after its computation
    monkeypatch.setattr(F, "EARLY", True)
    spy = _Spy(monkeypatch)
    got = _scan(proj, venv, 2)
    assert "heavy.py" in spy.during, (spy.during, spy.whole)
    assert spy.whole["heavy.py"] == 1 and spy.light["heavy.py"] == 1
    # ``deco.py`` is read light, then the computation that traces ``wrapper`` demands it
    assert spy.demanded == ["deco.py"] and spy.whole["deco.py"] == 1
    assert got.follow is not None and got.follow["upgraded"] == 2  # api.py, deco.py
    assert got.findings and any(
        f.frames and f.frames[-1].path.endswith("heavy.py") for f in got.findings
    )


def test_a_module_begun_but_never_loaded_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A computation tells following of a module no round loads (``fakelib.unused``, which
    cannot be light): it is begun in the pool and left; the findings and library facts are
    those of a run that never heard of it."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    plain = _scan(proj, venv, 2)
    orig = F.FollowProject._module_file

    def also(self: F.FollowProject, dotted: str) -> str | None:
        if self.on_missing is not None:
            self.on_missing("fakelib.unused")  # as if a resolution had missed it
        return orig(self, dotted)

    monkeypatch.setattr(F.FollowProject, "_module_file", also)
    spy = _Spy(monkeypatch)
    told = _scan(proj, venv, 2)
    assert spy.whole["unused.py"] == 1  # begun (it cannot be light), never taken
    _same(plain, told)
    assert "unused.py" not in _facts(told)


def test_a_file_changed_since_it_was_read_ahead_is_read_again(tmp_path: Path) -> None:
    """``_read_all`` takes an early entry only under the file's current stamp."""
    f = tmp_path / "m.py"
    f.write_text("def g(x):\n    return x\n")
    mf = F.ModuleFile(path=str(f), module="m", is_package=False, site=str(tmp_path), top="m")
    stamp = F._stamp(str(f))
    assert stamp is not None
    early = F._Early()
    stale = LR.light_facts(b"def other(x):\n    return x\n", str(f), "m", False)
    early.light[str(f)] = ("0:0", (b"", str(f), "m", False), stale)
    cache = F.LibraryCache(None, "k")
    stats = F.FollowStats()
    out, todo = F._read_all(
        [(mf, ("d", "1"))], cache, lambda d: d, stats, light=True, early=early, begun=[]
    )
    assert todo == [] and out[0] is not None and set(out[0].functions) == {"g"}
    early.light[str(f)] = (stamp, (b"", str(f), "m", False), stale)
    out, _todo = F._read_all(
        [(mf, ("d", "1"))], cache, lambda d: d, stats, light=True, early=early, begun=[]
    )
    assert out[0] is stale and not early.light  # taken


def test_demand_tells_each_path_once_and_pauses() -> None:
    told: list[str] = []
    with LR.Demand.recording(on_new=told.append) as demand:
        LR.Demand.paths.add("a")
        LR.Demand.paths.add("a")
        LR.Demand.paths.add("b")
        with LR.Demand.paused():
            assert not LR.Demand.active
        assert LR.Demand.active
    assert told == ["a", "b"] and demand == {"a", "b"}
    assert not LR.Demand.active


def _packages() -> list[Path]:
    """Installed packages to search: the hard dependencies (always there), and einops and
    transformers' ``utils`` where installed (the development environment)."""
    import importlib.util

    import click
    import rich

    out = [Path(click.__file__).parent, Path(rich.__file__).parent]
    for name in ("einops", "transformers"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            root = Path(spec.origin).parent
            out.append(root / "utils" if name == "transformers" else root)
    return out


def test_may_be_heavy_misses_no_refused_file() -> None:
    """Every installed file that ``light_facts`` refuses and that parses has one of the words
    ``may_be_heavy`` searches for (click, rich; einops, transformers' ``utils``)."""
    refused = said = 0
    for root in _packages():
        for path in sorted(root.rglob("*.py")):
            data = path.read_bytes()
            try:
                ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            heavy = LR.light_facts(data, str(path), "m", path.name == "__init__.py") is None
            refused += heavy
            said += LR.may_be_heavy(data)
            if heavy:
                assert LR.may_be_heavy(data), path
    assert refused and said >= refused


def test_the_graph_op_search_begins_after_the_rounds_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round waits for its own files (``api.py``, predicted): they go to the pool before the
    package's ``allow_in_graph`` search, which is begun once and waited for after the round."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    events: list[str] = []
    start, call = engine._Scan.start_files, engine._Scan.start_call

    def start_files(scan: engine._Scan, items: list[Any]) -> Any:
        events.extend(os.path.basename(it[1].path) for it in items if it[3] == "all")
        return start(scan, items)

    def start_call(scan: engine._Scan, fn: Any, args: tuple[Any, ...]) -> Any:
        events.append(getattr(fn, "__name__", ""))
        return call(scan, fn, args)

    monkeypatch.setattr(engine._Scan, "start_files", start_files)
    monkeypatch.setattr(engine._Scan, "start_call", start_call)
    got = _scan(proj, venv, 2)
    assert events.count("search_registering_modules") == 1, events
    assert events.index("api.py") < events.index("search_registering_modules"), events
    assert got.findings
