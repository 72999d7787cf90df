"""Branch speed24i: following's serial work on a first run.

A round's light files are entered once (the resolutions that read them hold when the round's
heavy files' facts come), a project answers ``_target``, the names a function passes on and its
decorators' wrappers once per (file, ref), and the ``allow_in_graph`` search of a package runs in
a pool worker while the round that found it loads. Each project view following ends with must
answer as a project computed from nothing over the same facts, and the findings and library
facts are those of a run in one process."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.static import engine
from compilelint.static import follow as F
from compilelint.static.engine import ScanResult, scan
from tests.test_follow import CORE, GRAPH_OP, SOLVERS, USER, make_env

SITE = ("lib", "python3.11", "site-packages")

# a package __init__ (read for resolution only) re-exporting from a module that cannot be
# (it compiles a function): both load in one round, and what the __init__ resolves to comes
# only with the heavy module's facts
HEAVY_CORE = CORE + "\n\ndef compiled(f):\n    return torch.compile(f)\n"

REEXPORT = "from .core import step, Quantizer\nfrom .solvers import solve\n"

DECORATED = """\
import functools

import torch


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if out.sum() > 0:
            return out
        return -out

    return wrapper


@traced
def scale(x, k=2):
    print("scaling")
    return x * k
"""

SCENARIOS = {
    # a light __init__ and heavy core in one round; registry dispatch and an override
    "reexport": (
        {"__init__.py": REEXPORT, "core.py": HEAVY_CORE, "solvers.py": SOLVERS},
        "import torch\nimport fakelib\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return fakelib.step(x) + fakelib.solve(x, x, method='euler')\n",
    ),
    # the test module's own user file (a held library module, a helper in util.py)
    "held": ({"__init__.py": REEXPORT, "core.py": CORE, "solvers.py": SOLVERS}, USER),
    # a decorator's wrapper in the library, a graph op registered by a module nothing imports
    "wrapped": (
        {
            "__init__.py": "from .deco import scale\n",
            "deco.py": DECORATED,
            "ops.py": GRAPH_OP,
            "_reg.py": "from torch._dynamo import allow_in_graph\nfrom .ops import shuffle\n\n"
            "allow_in_graph(shuffle)\n",
        },
        "import torch\nfrom fakelib import scale\nfrom fakelib.ops import shuffle\n\n\n"
        "@torch.compile\ndef f(t):\n    y = shuffle(t)\n    if y.sum() > 0:\n"
        "        return scale(y)\n    return -y\n",
    ),
}


OTHER = (
    "import torch\n\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
)


def _env(tmp_path: Path, name: str) -> tuple[Path, Path]:
    files, user = SCENARIOS[name]
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    pkg = venv.joinpath(*SITE, "fakelib")
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(user)
    return proj, venv


def _scan(proj: Path, venv: Path, jobs: int, cache_dir: Path | None = None) -> ScanResult:
    old = os.getcwd()
    os.chdir(proj)
    try:
        cfg = Config(
            cache=cache_dir is not None,
            cache_dir=str(cache_dir) if cache_dir else None,
            python=str(venv),
            jobs=jobs,
        )
        return scan(["."], cfg, want_project=True)
    finally:
        os.chdir(old)


def _as_fresh(p: F.FollowProject) -> None:
    """``p`` (following's last view, its resolutions shared with the views before it, its
    answers kept per project) answers as a project computed from nothing over its facts."""
    fresh = F.FollowProject(p.files.values(), dict(p.library), p.installed, p.entries)
    fresh.compute()
    assert p.traced == fresh.traced
    assert p.roots == fresh.roots
    assert p.graph_ops == fresh.graph_ops
    assert set(p._dead_calls) == set(fresh._dead_calls)

    def callers(q: F.FollowProject) -> dict[object, list[tuple[str, int, int]]]:
        return {k: [(a, id(c), i) for a, c, i in v] for k, v in q.callers.items()}

    assert callers(p) == callers(fresh)
    for key in sorted(p.traced):
        fn = p.fn(key)
        for ref in [c.ref for c in fn.calls] + list(fn.refs):
            assert p.resolve(key[0], ref) == fresh.resolve(key[0], ref), (key, ref)
            assert p._target(key[0], ref) == fresh._target_uncached(key[0], ref), (key, ref)
        assert p.decorator_wrappers(key) == fresh._decorator_wrappers(key, fn)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_following_ends_with_the_project_a_whole_compute_gives(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj, venv = _env(tmp_path, name)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)  # the pool runs for two small files
    (proj / "other.py").write_text(OTHER)
    one = _scan(proj, venv, jobs=1)
    two = _scan(proj, venv, jobs=2)
    assert one.findings and two.findings == one.findings
    for run in (one, two):
        assert isinstance(run.project, F.FollowProject) and run.project.library
        _as_fresh(run.project)
    assert isinstance(one.project, F.FollowProject) and isinstance(two.project, F.FollowProject)
    lib = sorted(one.project.library)
    assert lib == sorted(two.project.library)
    assert [one.project.files[p] for p in lib] == [two.project.files[p] for p in lib]


def test_the_round_that_brings_a_heavy_module_drops_what_missed_it(tmp_path: Path) -> None:
    """The re-exporting ``__init__`` is read for resolution before the heavy ``core.py`` is
    analysed: its names resolve into core once core's facts come (the library functions
    reached through the re-export are traced, with their findings)."""
    proj, venv = _env(tmp_path, "reexport")
    got = _scan(proj, venv, jobs=1)
    p = got.project
    assert isinstance(p, F.FollowProject)
    core = next(k for k in p.library if k.endswith(os.sep + "core.py"))
    init = next(k for k in p.library if k.endswith("__init__.py"))
    from compilelint.static import libresolve as LR

    assert LR.is_light(p.files[init]) and not LR.is_light(p.files[core])
    assert p.resolve(init, "Q|step") == (core, "step", "function")
    assert (core, "step") in p.traced
    assert any(f.frames and f.frames[-1].path == core for f in got.findings)


def test_a_projects_answers_are_kept_for_its_life(tmp_path: Path) -> None:
    """``_target``, ``_ref_target`` and ``decorator_wrappers`` are computed once per project:
    asked again, the same answers without resolving anything."""
    proj, venv = _env(tmp_path, "wrapped")
    p = _scan(proj, venv, jobs=1).project
    assert isinstance(p, F.FollowProject)
    keys = sorted(p.traced)
    first = [
        ([p._target(k[0], c.ref) for c in p.fn(k).calls], p.decorator_wrappers(k)) for k in keys
    ]
    assert any(w for _t, w in first), "no decorator wrapper in the scenario"
    asked: list[str] = []
    orig = p.resolve

    def spy(path: str, ref: str, depth: int = 0) -> tuple[str, str, str] | None:
        asked.append(ref)
        return orig(path, ref, depth)

    p.resolve = spy  # type: ignore[method-assign]
    again = [
        ([p._target(k[0], c.ref) for c in p.fn(k).calls], p.decorator_wrappers(k)) for k in keys
    ]
    assert again == first and asked == []


def test_the_graph_op_search_runs_in_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``allow_in_graph`` search of a package new to a round is begun in the pool (when
    it runs) before the round loads and waited for after: the same modules loaded, the same
    findings, the same cache entry as the search in this process; a cached entry is not
    searched again."""
    proj, venv = _env(tmp_path, "wrapped")
    calls: list[tuple[str, bool]] = []
    orig = engine._Scan.start_call

    def spy(self: engine._Scan, fn: object, args: tuple[object, ...]) -> object:
        got = orig(self, fn, args)  # type: ignore[arg-type]
        calls.append((getattr(fn, "__name__", ""), got is not None))
        return got

    monkeypatch.setattr(engine._Scan, "start_call", spy)
    _scan(proj, venv, jobs=1, cache_dir=tmp_path / "c1")
    assert calls == [("search_registering_modules", False)]  # no pool: searched here
    calls.clear()
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    (proj / "other.py").write_text(OTHER)  # two files: the pool starts for phase 1
    one = _scan(proj, venv, jobs=1)
    calls.clear()
    two = _scan(proj, venv, jobs=2, cache_dir=tmp_path / "c2")
    assert calls == [("search_registering_modules", True)]
    assert one.findings and two.findings == one.findings
    assert isinstance(one.project, F.FollowProject) and isinstance(two.project, F.FollowProject)
    reg = [p for p in two.project.library if p.endswith("_reg.py")]
    assert reg and sorted(one.project.library) == sorted(two.project.library)
    # the graph op is known: no finding inside ``shuffle`` (its print)
    assert not any(f.frames and f.frames[-1].path.endswith("ops.py") for f in two.findings)
    caches = []
    for d in ("c1", "c2"):
        (libs,) = (tmp_path / d / "libs").glob("fakelib-1.2.3-*.marshal")
        table = marshal.loads(libs.read_bytes())
        caches.append({k: v for k, v in table.items() if k.startswith("<graph-ops>")})
    assert caches[0] == caches[1] and caches[0]
    # only the library facts cached (not the files' facts nor the results): not searched again
    for f in (tmp_path / "c2").iterdir():
        if f.is_file():
            f.unlink()
    calls.clear()
    three = _scan(proj, venv, jobs=2, cache_dir=tmp_path / "c2")
    assert calls == [] and three.findings == one.findings


def test_a_submodule_not_loaded_yet_names_nothing_in_the_package_above(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``D|pkg.sub.name`` where ``pkg.sub`` is an installed module not loaded yet: the name is
    ``sub``'s, so the answer waits for ``sub`` (named for the next round), instead of looking
    ``sub.name`` up in ``pkg``'s ``__init__`` and through each of its star imports with ever
    longer names (``sub.sub.name``, ...) to the depth bound, as transformers'
    ``models/auto/__init__.py`` (eight star imports) made 11,700 resolutions of a prediction.
    Once ``sub`` joins, the name resolves into it."""
    from tests.test_follow import _facts

    stars = "".join(f"from .m{i} import *\n" for i in range(8))
    init = _facts("pkg/__init__.py", "pkg", stars)
    app = _facts(
        "app.py",
        "app",
        "import torch\nfrom pkg.m3 import helper\n\n\n@torch.compile\ndef f(x):\n"
        "    return helper(x)\n",
    )
    m3 = _facts("pkg/m3.py", "pkg.m3", "def helper(x):\n    return x.sum()\n")
    installed = {"pkg", *(f"pkg.m{i}" for i in range(8))}.__contains__
    made = [0]
    orig = F.FollowProject._resolve

    def counted(self: F.FollowProject, path: str, ref: str, depth: int) -> object:
        made[0] += 1
        return orig(self, path, ref, depth)

    monkeypatch.setattr(F.FollowProject, "_resolve", counted)
    shared = F.SharedResolutions()
    library = {"pkg/__init__.py": ("pkg", "1")}
    view = F.FollowProject([app, init], library, installed, shared=shared)  # type: ignore[list-item]
    assert view.resolve("app.py", "D|pkg.m3.helper") is None
    assert "pkg.m3" in view.unresolved_modules
    assert view.resolve("pkg/__init__.py", "Q|helper") is None  # in a star module not loaded
    assert made[0] < 20, made[0]
    fresh = F.FollowProject([app, init], library, installed)  # type: ignore[list-item]
    assert fresh.resolve("app.py", "D|pkg.m3.helper") is None
    shared.changed({"pkg/m3.py"}, {"pkg.m3"})
    library["pkg/m3.py"] = ("pkg", "1")
    for p in (
        F.FollowProject([app, init, m3], library, installed, shared=shared),  # type: ignore[list-item]
        F.FollowProject([app, init, m3], library, installed),  # type: ignore[list-item]
    ):
        assert p.resolve("app.py", "D|pkg.m3.helper") == ("pkg/m3.py", "helper", "function")
        assert p.resolve("pkg/__init__.py", "Q|helper") == ("pkg/m3.py", "helper", "function")
