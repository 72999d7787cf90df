"""Branch speed24p: following's first round begun while the project phase waits for the pool.

The project phase of a scan that follows analyses the torch-free helpers traced code reaches
in the pool and waits. Meanwhile ``follow.prefetch`` reads for resolution the files following's
first round would load for the project view computed so far, predicts as that round would
over a view of them (with a resolution table layered on the scan's shared one), and begins in
the pool the files the prediction names, those that cannot be light, and the files of the
modules the traced calls find missing that their text says cannot be light
(``transformers/modeling_utils.py``). ``follow`` takes an entry only when its own round reads
or upgrades that file under the same stamp: what following loads, reads light or whole, and
finds is what it was without the prefetch, and no file is read light or analysed whole twice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from compilelint.static import engine
from compilelint.static import follow as F
from compilelint.static import libresolve as LR
from tests.test_follow import make_env
from tests.test_speed24m import _facts, _same, _scan, _Spy

SITE = ("lib", "python3.11", "site-packages")

# ``api.py`` is light and re-exports ``heavy.kernel`` (refused by its text: a module-level
# ``torch.compile``); the user's forward calls ``fakelib.api.kernel`` and ``fakelib.api.run``
# (traced: ``api.py`` is upgraded) and a torch-free helper of the project (``util.scale``,
# analysed in the project phase: the pool wait that the prefetch fills)
API = """\
import torch

from .heavy import kernel


def run(x):
    return x + 1
"""

HEAVY = """\
import torch


def kernel(x):
    if x.sum() > 0:
        return x.item()
    return x


fast = torch.compile(kernel)
"""

UTIL = """\
def scale(x):
    return x * 2
"""

USER = """\
import torch
import fakelib.api
from util import scale


class M(torch.nn.Module):
    def forward(self, x):
        y = fakelib.api.kernel(scale(x))
        return fakelib.api.run(y)
"""

OTHER = (
    "import torch\n\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
)


def _env(tmp_path: Path) -> tuple[Path, Path]:
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    pkg = venv.joinpath(*SITE, "fakelib")
    for rel, text in {"api.py": API, "heavy.py": HEAVY}.items():
        (pkg / rel).write_text(text)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    (proj / "other.py").write_text(OTHER)  # two files: the pool starts for phase 1
    (proj / "util.py").write_text(UTIL)
    return proj, venv


def test_the_crafted_package_is_what_the_test_needs() -> None:
    assert LR.must_be_heavy(HEAVY.encode())
    assert LR.light_facts(HEAVY.encode(), "h", "h", False) is None
    assert not LR.must_be_heavy(API.encode())
    assert LR.light_facts(API.encode(), "a", "a", False) is not None
    assert b"torch" not in UTIL.encode() and b"forward" not in UTIL.encode()


class _Order(_Spy):
    """The spy, with the order of light reads, pool starts of library files and the phases."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(monkeypatch)
        self.events: list[str] = []
        self.prefetched: list[F._Early | None] = []
        light, start = LR.light_facts, engine._Scan.start_files
        follow, prefetch = engine._Scan.follow_libraries, engine.prefetch

        def light_facts(data: bytes, path: str, module: str, pkg: bool) -> Any:
            self.events.append("light " + os.path.basename(path))
            return light(data, path, module, pkg)

        def start_files(scan: engine._Scan, items: list[Any]) -> Any:
            self.events += [
                "start " + os.path.basename(it[1].path) for it in items if it[3] == "all"
            ]
            return start(scan, items)

        def follow_libraries(scan: engine._Scan) -> None:
            self.events.append("follow")
            follow(scan)

        def prefetched(*a: Any) -> F._Early | None:
            self.events.append("prefetch")
            got = prefetch(*a)
            self.prefetched.append(got)
            return got

        monkeypatch.setattr(LR, "light_facts", light_facts)
        monkeypatch.setattr(engine._Scan, "start_files", start_files)
        monkeypatch.setattr(engine._Scan, "follow_libraries", follow_libraries)
        monkeypatch.setattr(engine, "prefetch", prefetched)


def _without_prefetch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine._Scan, "_prefetch", lambda self, project: None)


@pytest.mark.parametrize("jobs", [1, 2])
def test_prefetched_the_same_as_read_in_the_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """With and without the prefetch, in one process and with the pool: the same library
    files, light or whole, the same whole facts, traced functions, roots, statistics and
    findings; no file read light or analysed whole twice. With the pool, round 0's files are
    read and ``api.py`` (predicted) and ``heavy.py`` (missing, refused by its text) begun
    before following starts; in one process nothing is prefetched."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    with monkeypatch.context() as m:
        _without_prefetch(m)
        before = _scan(proj, venv, jobs)
    spy = _Order(monkeypatch)
    now = _scan(proj, venv, jobs)
    _same(before, now)
    assert now.findings
    assert max(spy.light.values()) == 1, spy.light
    assert max(spy.whole.values()) == 1, spy.whole
    lib = _facts(now)
    assert lib["heavy.py"][0] is False and lib["api.py"][0] is False  # whole
    ev = spy.events
    if jobs == 1:
        assert "prefetch" not in ev  # no pool: nothing to wait for
        return
    assert ev.count("prefetch") == 1, ev
    follow = ev.index("follow")
    assert ev.index("prefetch") < ev.index("light api.py") < follow, ev
    assert ev.index("start api.py") < follow, ev
    assert ev.index("start heavy.py") < follow, ev
    # heavy.py was begun on its text: its round still reads it light (and refuses it)
    assert ev.index("start heavy.py") < ev.index("light heavy.py"), ev
    early = spy.prefetched[0]
    assert early is not None
    # every entry was taken by its round or its upgrade
    assert not early.light and not early.whole, (early.light, early.whole)


def test_prefetch_off_reads_in_the_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the prefetch, round 0's files are read and begun after following starts (the
    test above can fail)."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    spy = _Order(monkeypatch)
    _without_prefetch(monkeypatch)
    _scan(proj, venv, 2)
    ev = spy.events
    follow = ev.index("follow")
    assert follow < ev.index("light api.py") and follow < ev.index("start heavy.py"), ev


def test_prefetch_is_off_with_early_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``follow.EARLY`` off: nothing prefetched, the results the same."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    before = _scan(proj, venv, 2)
    monkeypatch.setattr(F, "EARLY", False)
    spy = _Order(monkeypatch)
    _same(before, _scan(proj, venv, 2))
    assert spy.prefetched == [None]


def test_a_prefetched_entry_under_another_stamp_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed between the prefetch and its round (its stamp differs) is read again
    in its round, the results those of a run that never prefetched it."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    api = venv.joinpath(*SITE, "fakelib", "api.py")
    prefetch = engine.prefetch

    def then_touched(*a: Any) -> F._Early | None:
        got = prefetch(*a)
        st = api.stat()
        os.utime(api, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        return got

    with monkeypatch.context() as m:
        _without_prefetch(m)
        before = _scan(proj, venv, 2)
    spy = _Order(monkeypatch)
    monkeypatch.setattr(engine, "prefetch", then_touched)
    _same(before, _scan(proj, venv, 2))
    assert spy.light["api.py"] == 2  # the prefetch's read and the round's
    assert spy.whole["api.py"] == 2  # begun at the prefetch, analysed again for its upgrade


def test_the_overlay_answers_the_base_but_what_missed_the_modules() -> None:
    """``_Overlay``: the base table's resolutions are answered, but those that missed one of
    the modules (and those they are parts of); what is put is kept in the overlay only."""
    base = F.SharedResolutions()

    def made(path: str, missing: list[str], parts: list[F._Resolution]) -> F._Resolution:
        fr = F._Frame(path, 0)
        fr.missing = missing
        fr.parts = parts
        return F._Resolution(None, 0, fr)

    miss = made("a.py", ["pkg.mod"], [])
    user = made("b.py", [], [miss])
    other = made("c.py", ["pkg.other"], [])
    for key, r in (("a.py", miss), ("b.py", user), ("c.py", other)):
        base.put((key, "D|x"), r)
    over = F._Overlay(base, {"pkg.mod"})
    assert over.get("a.py", "D|x", 0) == (None, False)
    assert over.get("b.py", "D|x", 0) == (None, False)  # a part missed it
    assert over.get("c.py", "D|x", 0) == (other, False)
    mine = made("a.py", [], [])
    over.put(("a.py", "D|x"), mine)
    assert over.get("a.py", "D|x", 0) == (mine, False)
    assert base.get("a.py", "D|x", 0) == (miss, False)  # the base is not told
