"""Following calls into installed packages (issue 18): a fake environment with a library in
its site-packages, called from a user model file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.static.analysis.resolve import ResolveError, Resolver, search_path
from compilelint.static.engine import scan
from tests.cli_invoke import invoke

SIDE_EFFECT = (
    "import pathlib\n"
    "pathlib.Path({marker!r}).write_text('imported')\n"
    "raise SystemExit('fakelib was imported')\n"
)

CORE = """\
import torch
from .util import norm_of


def step(x, causal: bool = False, scale=1.0):
    if causal:
        x = x * 2
    err = norm_of(x)
    if err < 1:
        x = x + 1
    n = int(x.sum())
    return x * scale + n


class Quantizer(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        codes = x.argmax(-1).tolist()
        return x, codes


def unused(x):
    return x.item()
"""

UTIL = """\
import torch


def norm_of(t):
    return t.norm() / t.numel()
"""

USER = """\
import torch
import fakelib
from fakelib import Quantizer


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = Quantizer(4)

    def forward(self, x):
        y = fakelib.step(x, causal=True)
        out, codes = self.q(y)
        return out
"""


SOLVERS = """\
import torch


class Base:
    def __init__(self, y0):
        self.y0 = y0

    def integrate(self, t):
        return self._step(t)

    def _step(self, t):
        return t


class Euler(Base):
    def _step(self, t):
        if t.max() > 1:
            return t
        return t * 2


SOLVERS = {"euler": Euler}


def solve(y0, t, method="euler"):
    solver = SOLVERS[method](y0=y0)
    return solver.integrate(t)
"""


def make_env(root: Path, marker: Path) -> Path:
    """A virtual environment folder holding ``fakelib`` 1.2.3; importing fakelib leaves
    ``marker`` behind."""
    venv = root / "env"
    site = venv / "lib" / "python3.11" / "site-packages"
    pkg = site / "fakelib"
    pkg.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (pkg / "__init__.py").write_text(
        SIDE_EFFECT.format(marker=str(marker)) + "from .core import step, Quantizer\n"
    )
    (pkg / "core.py").write_text(CORE)
    (pkg / "util.py").write_text(UTIL)
    (pkg / "solvers.py").write_text(SOLVERS)
    meta = site / "fakelib-1.2.3.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: fakelib\nVersion: 1.2.3\n\n")
    (meta / "top_level.txt").write_text("fakelib\n")
    return venv


@pytest.fixture()
def project(tmp_path: Path) -> tuple[Path, Path, Path]:
    marker = tmp_path / "imported.txt"
    venv = make_env(tmp_path, marker)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    return proj, venv, marker


def _json(proj: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, err = invoke(["check", ".", "--format", "json", "--no-cache", *args], cwd=proj)
    assert code in (0, 1), err
    return code, json.loads(out)


def test_findings_in_a_library_are_anchored_at_the_users_call(
    project: tuple[Path, Path, Path],
) -> None:
    proj, venv, marker = project
    _, data = _json(proj, "--python", str(venv))
    found = {(f["rule"], f["line"]) for f in data["findings"]}
    # line 12: fakelib.step(x, causal=True): err < 1 on a helper's tensor return (CL101),
    # int(x.sum()) (CL102); line 13: self.q(y) -> Quantizer.forward: .tolist() (CL105)
    assert ("CL101", 12) in found
    assert ("CL102", 12) in found
    assert ("CL105", 13) in found
    for f in data["findings"]:
        assert f["path"] == "model.py"
        assert f["package"] == "fakelib==1.2.3"
        assert f["frames"][0]["path"] == "model.py"
        assert f["frames"][-1]["path"].endswith(os.path.join("fakelib", "core.py"))
        assert "torch.compiler.disable" in f["fix"]
    cl101 = next(f for f in data["findings"] if f["rule"] == "CL101")
    assert cl101["frames"][0]["line"] == 12
    assert cl101["frames"][-1]["line"] == 9  # `if err < 1:` in core.py
    # `if causal:` is a bool flag, and `unused` is never reached
    assert not any(f["frames"][-1]["line"] in (6, 26) for f in data["findings"])
    assert not marker.exists(), "a followed package was imported"


def test_no_follow_and_noqa_at_the_call(project: tuple[Path, Path, Path]) -> None:
    proj, venv, marker = project
    _, data = _json(proj, "--python", str(venv), "--no-follow")
    assert data["findings"] == []
    text = USER.replace("causal=True)", "causal=True)  # noqa: CL101, CL102")
    (proj / "model.py").write_text(text)
    _, data = _json(proj, "--python", str(venv))
    assert {f["rule"] for f in data["findings"]} == {"CL105"}
    assert not marker.exists()


def test_library_facts_are_cached_per_distribution(project: tuple[Path, Path, Path]) -> None:
    proj, venv, _ = project
    cfg = Config(root=str(proj), cache_dir=str(proj / ".cache"), python=str(venv))
    old = os.getcwd()
    os.chdir(proj)
    try:
        first = scan(["model.py"], cfg, want_project=True)
        second = scan(["model.py"], cfg, want_project=True)
    finally:
        os.chdir(old)
    assert first.follow is not None and second.follow is not None
    assert first.follow["cached"] == 0 and first.follow["files"] == 3
    assert second.follow["cached"] == 3
    assert first.follow["packages"] == {"fakelib": "1.2.3"}
    assert [f.line for f in first.findings] == [f.line for f in second.findings]
    assert list((proj / ".cache" / "libs").glob("fakelib-1.2.3-*.marshal"))


def test_cached_results_keep_library_frames(project: tuple[Path, Path, Path]) -> None:
    """A second identical run answers from the results cache: its library findings' frames
    are Frame objects again, so every reporter (JSON here) still renders them."""
    proj, venv, _ = project
    runs = []
    for _ in range(2):
        code, out, err = invoke(["check", ".", "--format", "json", "--python", str(venv)], cwd=proj)
        assert code in (0, 1), err
        runs.append(json.loads(out))
    first, second = (sorted(str(f["frames"]) for f in r["findings"]) for r in runs)
    assert first and first == second
    assert runs[1]["findings"][0]["frames"][-1]["path"].endswith(os.path.join("fakelib", "core.py"))


def test_search_path_and_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv = make_env(tmp_path, tmp_path / "m")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    site, source = search_path(str(venv), tmp_path)
    assert site == [str(venv / "lib" / "python3.11" / "site-packages")]
    r = Resolver(site)
    mf = r.find("fakelib.core")
    assert mf is not None and not mf.is_package and mf.top == "fakelib"
    assert r.find("fakelib.nothing") is None and r.find("torch") is None
    assert r.distribution(mf) == ("fakelib", "1.2.3")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    assert search_path(None, tmp_path)[0] == site
    monkeypatch.delenv("VIRTUAL_ENV")
    (tmp_path / ".venv").symlink_to(venv)
    assert search_path(None, tmp_path)[1].endswith(".venv")
    with pytest.raises(ResolveError):
        search_path(str(tmp_path / "no-such-python"), tmp_path)


def test_distribution_tables_are_kept_until_the_environment_changes(tmp_path: Path) -> None:
    venv = make_env(tmp_path, tmp_path / "m")
    site, _ = search_path(str(venv), tmp_path)
    keep = tmp_path / "cache" / "libs"
    mf = Resolver(site, cache_dir=keep).find("fakelib.core")
    assert mf is not None
    assert Resolver(site, cache_dir=keep).distribution(mf) == ("fakelib", "1.2.3")
    assert len(list(keep.glob("dists-*.marshal"))) == 1
    # a distribution installed over it (another version): the site folder changes, so the
    # table is read again, not taken from the cache
    sp = Path(site[0])
    (sp / "fakelib-1.2.3.dist-info").rename(sp / "fakelib-2.0.dist-info")
    meta = sp / "fakelib-2.0.dist-info" / "METADATA"
    meta.write_text(meta.read_text().replace("1.2.3", "2.0"))
    assert Resolver(site, cache_dir=keep).distribution(mf) == ("fakelib", "2.0")
    assert Resolver(site).distribution(mf) == ("fakelib", "2.0")


def test_bad_python_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import torch\n")
    code, _, err = invoke(["check", "m.py", "--python", str(tmp_path / "nope")], cwd=tmp_path)
    assert code == 2
    assert "--python" in err and "Traceback" not in err


LIBRARY = {
    "__init__.py": "from .ops import attend, helper\n",
    "ops.py": """\
from typing import Optional

import torch
from jaxtyping import Float
from torch import Tensor

from ._util import pick


def attend(q: Tensor, mask: Optional[Tensor] = None, causal: bool = False, heads: int = 8):
    if causal:
        q = q.tril()
    if heads > 1:
        q = q * heads
    if mask is not None and mask.any():
        q = q.masked_fill(mask, 0.0)
    return pick(q)


def helper(x: Float[Tensor, "b n"], k=3):
    return x.topk(k).indices.tolist()


def _private(x: Tensor):
    return x.item()
""",
    "_util.py": """\
import torch


def pick(t):
    n = int(t.argmax())
    return t[:n]
""",
}


def test_library_mode_judges_public_functions(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    for name, text in LIBRARY.items():
        (pkg / name).write_text(text)
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code == 1, err
    found = {(Path(f["path"]).name, f["line"], f["rule"]) for f in json.loads(out)["findings"]}
    # .tolist(), int() of a tensor through a relative import; `mask is not None and
    # mask.any()` with `mask` at its default None never evaluates the tensor part (latent)
    assert ("ops.py", 15, "CL101") not in found
    assert ("ops.py", 21, "CL105") in found
    assert ("_util.py", 5, "CL102") in found
    lines = {(n, ln) for n, ln, _ in found}
    # `if causal:` (bool), `if heads > 1:` (int) are Python scalars; _private is not an entry
    assert ("ops.py", 11) not in lines and ("ops.py", 13) not in lines
    assert ("ops.py", 25) not in lines
    code, out, err = invoke(
        ["check", "mylib", "--format", "json", "--no-cache", "--report-untraced"], cwd=tmp_path
    )
    latent = {(Path(f["path"]).name, f["line"], f["rule"]) for f in json.loads(out)["findings"]}
    assert ("ops.py", 15, "CL101") in latent
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["mylib.ops.helper"]\n')
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    entry = {(Path(f["path"]).name, f["line"]) for f in json.loads(out)["findings"]}
    assert entry == {("ops.py", 21)}


KEYED = """\
import torch


class Euler:
    def __init__(self, t):
        if t.max() > 1:  # CL101 only when Euler is picked
            self.t = t

    def integrate(self, t):
        return t


class RK4:
    def __init__(self, t):
        self.t = t

    def integrate(self, t):
        return int(t.sum())  # CL102 only when RK4 is picked


SOLVERS = {"euler": Euler, "rk4": RK4}


def _check(t, method):
    if method not in SOLVERS:
        raise ValueError(method)
    return t, method


def solve(t, method="euler"):
    t, method = _check(t, method)
    solver = SOLVERS[method](t)
    return solver.integrate(t)


def solve_any(t, name):
    name = name.lower()
    solver = SOLVERS[name](t)
    return solver.integrate(t)


def _check_none(t, method):
    if method is None:
        method = "rk4"
    return t, method


def solve_none(t, method=None):
    t, method = _check_none(t, method)
    solver = SOLVERS[method](t)
    return solver.integrate(t)


def solve_own(t, method=None):
    if method is None:
        method = "rk4"
    solver = SOLVERS[method](t)
    return solver.integrate(t)
"""


def test_registry_dispatch_follows_only_the_keys_callers_pass(
    project: tuple[Path, Path, Path],
) -> None:
    proj, venv, _ = project
    (venv / "lib" / "python3.11" / "site-packages" / "fakelib" / "keyed.py").write_text(KEYED)

    def rules(body: str) -> set[tuple[int, str]]:
        (proj / "model.py").write_text(
            "import torch\nfrom fakelib.keyed import solve, solve_any\n\n\n"
            "@torch.compile\ndef f(t):\n" + body
        )
        _, data = _json(proj, "--python", str(venv))
        # (CL116, the `solver.integrate(t)` call of a solver built there, comes with a break)
        return {(f["line"], f["rule"]) for f in data["findings"] if f["rule"] != "CL116"}

    # a literal key: only that entry (the key is re-bound only by a checking call it goes to)
    assert rules('    return solve(t, method="rk4")\n') == {(7, "CL102")}
    assert rules('    return solve(t, "rk4")\n') == {(7, "CL102")}
    # left out: the literal default
    assert rules("    return solve(t)\n") == {(7, "CL101")}
    # every traced caller counts: the union of their keys (findings anchor at the first call)
    both = rules('    solve(t, method="rk4")\n    return solve(t)\n')
    assert {r for _, r in both} == {"CL101", "CL102"}
    # a key that is not a literal, or one computed in the library: every entry
    assert rules("    return solve(t, method=t.name)\n") == {(7, "CL101"), (7, "CL102")}
    assert rules('    return solve_any(t, "rk4")\n') == {(7, "CL101"), (7, "CL102")}

    # a None key that a checking helper re-binds (`if method is None: method = "rk4"`, then
    # returned and unpacked), or the function itself: that literal
    for name in ("solve_none", "solve_own"):
        src = (
            "import torch\nfrom fakelib.keyed import solve_none, solve_own\n\n\n"
            "@torch.compile\ndef f(t):\n"
        )
        for call, want in ((f"{name}(t)", {(7, "CL102")}), (f"{name}(t, None)", {(7, "CL102")})):
            (proj / "model.py").write_text(src + f"    return {call}\n")
            _, data = _json(proj, "--python", str(venv))
            got = {(f["line"], f["rule"]) for f in data["findings"] if f["rule"] != "CL116"}
            assert got == want, call
        (proj / "model.py").write_text(src + f'    return {name}(t, "euler")\n')
        _, data = _json(proj, "--python", str(venv))
        got = {(f["line"], f["rule"]) for f in data["findings"] if f["rule"] != "CL116"}
        assert got == {(7, "CL101")}


def test_registry_dispatch_and_overrides_are_followed(project: tuple[Path, Path, Path]) -> None:
    proj, venv, marker = project
    (proj / "model.py").write_text(
        "import torch\nfrom fakelib.solvers import solve\n\n\n"
        "class Model(torch.nn.Module):\n    def forward(self, x, t):\n        return solve(x, t)\n"
    )
    _, data = _json(proj, "--python", str(venv))
    got = [(f["line"], f["rule"], f["frames"][-1]["line"]) for f in data["findings"]]
    # solve -> SOLVERS[method](...).integrate(t) -> Base.integrate -> self._step: Euler._step;
    # the solver is built in traced code, so its breaking `integrate` breaks the call too (CL116)
    assert got == [(7, "CL101", 17), (7, "CL116", 27)]
    names = [fr["function"] for fr in data["findings"][0]["frames"]]
    assert names == ["Model.forward", "solve", "Base.integrate", "Euler._step"]
    assert not marker.exists()


def test_library_files_in_the_pool_find_the_same(
    project: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A following round's library files are analysed together, in the scan's pool of
    workers when it pays: the same findings and library facts as one process."""
    from compilelint.static import engine

    proj, venv, _ = project
    (proj / "other.py").write_text(  # reaches two library modules in the first round
        "import torch\nimport fakelib.util\nimport fakelib.solvers\n\n\n"
        "class Other(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return fakelib.util.norm_of(x) + fakelib.solvers.solve(x, x)\n"
    )
    old = os.getcwd()
    os.chdir(proj)
    try:
        one = scan(["."], Config(cache=False, python=str(venv), jobs=1), want_project=True)
        used: list[bool] = []
        orig = engine._Scan._pool_for

        def spy(self: engine._Scan, items: list) -> object:  # type: ignore[type-arg]
            got = orig(self, items)
            used.append(got is not None)
            return got

        monkeypatch.setattr(engine, "POOL_BYTES", 0)
        monkeypatch.setattr(engine._Scan, "_pool_for", spy)
        two = scan(["."], Config(cache=False, python=str(venv), jobs=2), want_project=True)
    finally:
        os.chdir(old)
    assert any(used), "the pool was not used"
    assert two.findings == one.findings and one.findings
    assert one.follow is not None and two.follow is not None
    assert two.follow["files"] == one.follow["files"] == 4
    assert one.project is not None and two.project is not None
    lib = sorted(p for p in one.project.files if "fakelib" in p)
    assert [one.project.files[p] for p in lib] == [two.project.files[p] for p in lib]


def test_library_files_not_light_start_in_the_pool_at_once(
    project: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library file that cannot be read for resolution only (it compiles a function: a
    module-level fact) starts in the pool as soon as it is read, while the round's other files
    are read and the prediction runs: the same findings and library facts as one process."""
    from compilelint.static import engine
    from compilelint.static import libresolve as LR

    proj, venv, _ = project
    util = next(venv.rglob("fakelib/util.py"))
    util.write_text(UTIL + "\n\ndef compiled(f):\n    return torch.compile(f)\n")
    assert LR.light_facts(util.read_bytes(), str(util), "fakelib.util", False) is None
    (proj / "other.py").write_text(
        "import torch\nimport fakelib.util\n\n\n"
        "class Other(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return fakelib.util.norm_of(x)\n"
    )
    old = os.getcwd()
    os.chdir(proj)
    try:
        one = scan(["."], Config(cache=False, python=str(venv), jobs=1), want_project=True)
        started: list[tuple[list[str], bool]] = []
        orig = engine._Scan.start_files

        def spy(self: engine._Scan, items: list) -> object:  # type: ignore[type-arg]
            got = orig(self, items)
            started.append(([os.path.realpath(i[1].path) for i in items], got is not None))
            return got

        monkeypatch.setattr(engine._Scan, "start_files", spy)
        # two small files: no pool runs, the round's files are analysed together at its end
        idle = scan(["."], Config(cache=False, python=str(venv), jobs=2), want_project=True)
        assert ([str(util.resolve())], False) in started
        started.clear()
        monkeypatch.setattr(engine, "POOL_BYTES", 0)
        two = scan(["."], Config(cache=False, python=str(venv), jobs=2), want_project=True)
    finally:
        os.chdir(old)
    assert ([str(util.resolve())], True) in started
    assert two.findings == idle.findings == one.findings and one.findings
    assert one.project is not None and two.project is not None and idle.project is not None
    lib = sorted(p for p in one.project.files if "fakelib" in p)
    assert lib
    for run in (two, idle):
        assert run.project is not None
        assert [one.project.files[p] for p in lib] == [run.project.files[p] for p in lib]


def test_usable_cpus_are_those_this_process_may_run_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from compilelint.static import engine

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert engine.usable_cpus() == 2
    monkeypatch.delattr(os, "sched_getaffinity")
    assert engine.usable_cpus() == 16


ALIASED = """\
from typing import Optional, Union

import numpy as np
import torch
from torch import Tensor

from .types import Scalar


class Interval:
    def __init__(self, t0: Optional[Scalar] = 0.0, t1: Optional[Scalar] = 1.0, entropy=None):
        if t0 > t1:  # CL101: the caller passes tensors, the default is only a default
            raise ValueError("bad")
        self._last = self
        if entropy is None:
            entropy = 3
        self.seed = entropy

    def __call__(self, ta):
        return self._last._query(ta)

    def _query(self, ta):
        ss = np.random.SeedSequence(entropy=self.seed)  # CL107
        (a,) = ss.generate_state(1)  # CL107: a method of numpy's generator object
        return torch.randn(3, generator=torch.Generator().manual_seed(int(a)))  # CL506


def increasing(ts):
    return all(x < y for x, y in zip(ts[:-1], ts[1:]))  # CL101 at the call
"""


def test_aliased_annotations_self_cursor_and_rng_objects(
    project: tuple[Path, Path, Path],
) -> None:
    """`t0: Optional[Scalar]` (an alias from another module) holds what callers pass; an
    object kept as `self._last = self` dispatches to its own class; numpy/torch generator
    objects break where torch 2.13 breaks."""
    proj, venv, _ = project
    site = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (site / "types.py").write_text(
        "from typing import Union\n\nfrom torch import Tensor\n\nScalar = Union[float, Tensor]\n"
    )
    (site / "interval.py").write_text(ALIASED)
    (proj / "model.py").write_text(
        "import torch\nfrom fakelib.interval import Interval, increasing\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        ts = torch.linspace(0.0, 1.0, 3)\n"
        "        if not increasing(ts):\n"
        "            raise ValueError\n"
        "        bm = Interval(t0=ts[0], t1=ts[-1])\n"
        "        return x + bm(ts[1])\n"
    )
    _, data = _json(proj, "--python", str(venv))
    got = {(f["rule"], f["frames"][-1]["line"]) for f in data["findings"]}
    assert got == {
        ("CL101", 12),
        ("CL107", 23),
        ("CL107", 24),
        ("CL506", 25),
        ("CL101", 29),
    }, got


DEFAULTS = {
    "__init__.py": "from .ops import run\n",
    "ops.py": """\
import torch


def _default(*args):
    for a in args:
        if a is not None:
            return a
    return None


def run(x, cache=None, flag=None):
    m = _default(x, None)
    f = _default(flag, True)
    if f:  # a Python bool: this call's arguments, not every caller's
        x = x * 2
    if cache:  # None under the entry's defaults
        x = x + 1
    if m.any():  # CL101
        x = x - 1
    return x
""",
}


def test_library_mode_entries_run_under_none_defaults(tmp_path: Path) -> None:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    for name, text in DEFAULTS.items():
        (pkg / name).write_text(text)
    code, out, err = invoke(["check", "mylib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code == 1, err
    found = {(Path(f["path"]).name, f["line"], f["rule"]) for f in json.loads(out)["findings"]}
    assert found == {("ops.py", 18, "CL101")}


KERNELS = """\
import torch


class Base(torch.nn.Module):
    def __call__(self, x):
        if torch.equal(x, x.flip(0)):  # CL101: the class's own __call__ runs first
            x = x + 1
        return super().__call__(x)

    def forward(self, x):
        return self.transform(x)

    def transform(self, x):
        return x


class Rbf(Base):
    def transform(self, x):
        same = x.allclose(x * 2)  # CL101: reached through Scale's held kernel
        return x.exp()


class Scale(Base):
    def __init__(self, base_kernel: Base):
        super().__init__()
        self.base_kernel = base_kernel

    def transform(self, x):
        return self.base_kernel.transform(x) * 2
"""


def test_module_call_override_inherited_forward_and_held_objects(
    project: tuple[Path, Path, Path],
) -> None:
    """`self.k(x)` on a library module runs the `__call__` its MRO defines, `forward` inherited
    from a base class resolves, and an object built as the constructor's argument
    (`Scale(Rbf())`) is what the held attribute runs."""
    proj, venv, _ = project
    (venv / "lib" / "python3.11" / "site-packages" / "fakelib" / "kernels.py").write_text(KERNELS)
    (proj / "model.py").write_text(
        "import torch\nfrom fakelib import kernels as K\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.k = K.Scale(K.Rbf())\n\n"
        "    def forward(self, x):\n"
        "        return self.k(x)\n"
    )
    _, data = _json(proj, "--python", str(venv))
    got = {(f["rule"], f["frames"][-1]["line"]) for f in data["findings"]}
    assert got == {("CL101", 6), ("CL101", 19)}, got


GRAPH_OP = """\
import torch


def shuffle(x):
    print("shuffling")
    return x.flip(0)
"""


def test_allow_in_graph_functions_are_graph_ops(project: tuple[Path, Path, Path]) -> None:
    """A function a followed package registers with ``allow_in_graph`` is one op in the graph:
    not followed, no finding inside it, and what it returns is a tensor. The registering module
    need not be reached by the call graph (einops imports its ``_torch_specific`` lazily)."""
    proj, venv, _ = project
    pkg = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (pkg / "ops.py").write_text(GRAPH_OP)
    (proj / "model.py").write_text(
        "import torch\nfrom fakelib.ops import shuffle\n\n\n"
        "@torch.compile\ndef f(t):\n    y = shuffle(t)\n    if y.sum() > 0:\n        return y\n"
        "    return -y\n"
    )

    def rules() -> set[tuple[int, str]]:
        _, data = _json(proj, "--python", str(venv))
        return {(f["line"], f["rule"]) for f in data["findings"]}

    assert (7, "CL201") in rules()  # print in the followed function
    # registered in a function the (never imported by the call graph) module calls on import
    reg = pkg / "_torch_reg.py"
    reg.write_text(
        "def register():\n    from torch._dynamo import allow_in_graph\n"
        "    from .ops import shuffle\n\n    allow_in_graph(shuffle)\n\n\nregister()\n"
    )
    got = rules()
    assert (7, "CL201") not in got
    assert (8, "CL101") in got  # the op's result is a tensor: branching on it breaks
    # a registering function the module never calls registers nothing
    reg.write_text(reg.read_text().replace("\nregister()\n", "\n"))
    assert (7, "CL201") in rules()
    reg.unlink()
    # the decorator form, in the function's own module
    (pkg / "ops.py").write_text(
        GRAPH_OP.replace("def shuffle", "@torch.compiler.allow_in_graph\ndef shuffle")
    )
    got = rules()
    assert (7, "CL201") not in got and (8, "CL101") in got


def test_only_call_form_registrations_load_a_module() -> None:
    """A module that only decorates its own functions with ``allow_in_graph`` is not loaded
    by the registration search (whoever calls those functions loads it): transformers'
    modeling_utils decorates one and is 5,000 lines. A call that registers a function defined
    elsewhere (einops' ``allow_in_graph(rearrange)`` inside a function) does load it."""
    from compilelint.static.follow import _REGISTER_CALL

    assert _REGISTER_CALL.search(b"def f():\n    allow_in_graph(rearrange)\n")
    assert _REGISTER_CALL.search(b"fn = torch._dynamo.allow_in_graph(op)\n")
    assert not _REGISTER_CALL.search(b"@torch.compiler.allow_in_graph\ndef f(x):\n    return x\n")
    assert not _REGISTER_CALL.search(b"    @torch._dynamo.allow_in_graph\n    def g(x): ...\n")
    assert not _REGISTER_CALL.search(b"# allow_in_graph(f) would also work\n")
    assert not _REGISTER_CALL.search(b'"""`@allow_in_graph` makes the call opaque"""\n')


def _facts(path: str, module: str, src: str) -> object:
    from compilelint.static import engine

    inp = engine.FileInput(path, path, module, path.endswith("__init__.py"))
    checks = engine._checks_for(sorted(engine.all_checks()))
    return engine.analyze_source(src.encode(), inp, checks, force=True, object_calls=True)


def test_shared_resolutions_answer_as_a_fresh_project_as_files_join() -> None:
    """Following's project views share their resolutions: each answers every ref of the files,
    and adds the same unresolved modules, as a project of its own; a module that joins drops
    what missed it."""
    from compilelint.static.follow import FollowProject, SharedResolutions

    app = _facts(
        "app.py",
        "app",
        "import torch\nfrom lib.helpers import helper, Base\nfrom lib import *\n"
        "class M(Base):\n    def forward(self, x):\n        y = helper(x)\n"
        "        return self.norm(y) + other(x)\n",
    )
    init = _facts("lib/__init__.py", "lib", "from .helpers import *\nfrom .extra import *\n")
    helpers = _facts(
        "lib/helpers.py",
        "lib.helpers",
        "import torch\nclass Base(torch.nn.Module):\n    def norm(self, x):\n        return x\n"
        "def helper(x):\n    return x.sum()\n",
    )
    installed = {"lib", "lib.helpers", "lib.extra"}.__contains__
    shared = SharedResolutions()
    files: list = [app]  # type: ignore[type-arg]
    library: dict[str, tuple[str, str]] = {}
    asked = 0
    for joining in (None, init, helpers):
        if joining is not None:
            shared.changed({joining.path}, {joining.module})  # type: ignore[attr-defined]
            files.append(joining)
            library[joining.path] = ("lib", "1")  # type: ignore[attr-defined]
        for _ in range(2):  # the second view answers from the shared table
            fresh = FollowProject(files, dict(library), installed)
            view = FollowProject(files, dict(library), installed, shared=shared)
            for f in files:
                for q, fn in f.functions.items():  # type: ignore[attr-defined]
                    for ref in [c.ref for c in fn.calls] + list(fn.refs) + [f"Q|{q}"]:
                        asked += 1
                        assert view.resolve(f.path, ref) == fresh.resolve(f.path, ref), ref  # type: ignore[attr-defined]
                for cls in f.classes:  # type: ignore[attr-defined]
                    assert view.mro(f.path, cls) == fresh.mro(f.path, cls)  # type: ignore[attr-defined]
            assert view.unresolved_modules == fresh.unresolved_modules
    assert asked > 20
    assert shared.hits > 0
    got = FollowProject(files, library, installed, shared=shared).resolve("app.py", "Q|helper")
    assert got == ("lib/helpers.py", "helper", "function")


SPLINES = """\
import torch


def bounded(x):
    if torch.min(x) < 0:  # CL101: called through `fn`, bound in one branch
        raise ValueError("outside")
    return x


def unbounded(x, tails="linear"):
    inside = x.abs() < 1
    return x[inside]  # CL111: called through `fn`, bound in the other branch
"""

SPLINE_FLOW = """\
import torch
from fakelib import splines


class Flow(torch.nn.Module):
    def forward(self, x, tails=None):
        if tails is None:
            fn = splines.bounded
            kw = {}
        else:
            fn = splines.unbounded
            kw = {"tails": tails}
        return fn(x, **kw)
"""


def test_a_function_bound_to_a_local_name_is_called_through_it(
    project: tuple[Path, Path, Path],
) -> None:
    """`fn = splines.bounded` in one branch and `fn = splines.unbounded` in the other, then
    `fn(x, **kw)` (nflows' coupling transforms pick their spline so): the call reaches the
    function the name holds under the caller's values, as dynamo inlines it; each binding
    keeps the conditions it was made under. Before, a call through a local name followed
    nothing."""
    proj, venv, _ = project
    pkg = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (pkg / "splines.py").write_text(SPLINES)
    (pkg / "flows.py").write_text(SPLINE_FLOW)
    user = (
        "import torch\nfrom fakelib.flows import Flow\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.flow = Flow()\n\n"
        "    def forward(self, x):\n"
        "        return self.flow(x{})\n"
    )
    for arg, want in (
        ("", ("CL101", "splines.py", 5)),
        (", 'linear'", ("CL111", "splines.py", 12)),
    ):
        (proj / "model.py").write_text(user.format(arg))
        _, data = _json(proj, "--python", str(venv))
        frames = [f["frames"][-1] for f in data["findings"]]
        got = {
            (f["rule"], Path(fr["path"]).name, fr["line"])
            for f, fr in zip(data["findings"], frames)
        }
        assert got == {want}, (arg, got)


PADDING = """\
import torch


class Encoder(torch.nn.Module):
    def forward(self, h, padding_len):
        flag = h.sum().item()
        if padding_len > 0:
            h = h[:, : h.shape[1] - padding_len]
        return h * flag


class Padded(torch.nn.Module):
    def __init__(self, window=8):
        super().__init__()
        self.window = window
        self.encoder = Encoder()

    def forward(self, x):
        seq_len = x.shape[1]
        padding_len = (self.window - seq_len % self.window) % self.window
        return self.encoder(x, padding_len)
"""


def test_library_mode_size_arithmetic_with_an_attribute_of_literal_defaults(tmp_path: Path) -> None:
    """Library mode with every public name an entry: an attribute set from `__init__`'s literal
    default has known Python values, and a per-call size computed with it (`seq_len %
    self.window`) is judged with them as literals (the analysis crashed on them: 'int' object
    is not subscriptable, on diffusers' models)."""
    pkg = tmp_path / "padlib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .pad import Padded\n")
    (pkg / "pad.py").write_text(PADDING)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nentries = ["*"]\n')
    code, out, err = invoke(["check", "padlib", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1) and not err, err
    assert json.loads(out)["summary"] is not None
