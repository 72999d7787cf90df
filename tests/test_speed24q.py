"""Branch speed24q: a first run's serial work, cut without changing an answer.

``Project.compute`` makes each traced function's edges and call sites once, in the first pass
of its refuted-condition loop (no site refuted yet), and the later passes skip the refuted
sites in them: what it traces, what it reaches other than by a call, the callers' index and
the refuted sites are those made again without the memo. ``libresolve.must_be_heavy``
searches only the lines that hold one of its hits' texts: the hits are those of a search of
the whole text.
"""

from __future__ import annotations

import glob
import os
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from compilelint.static import engine
from compilelint.static import libresolve as LR
from compilelint.static.analysis.project import Project

MODEL = """\
import torch


def deeper(x):
    return x.tolist()


def slow_path(x):
    return deeper(x)


def fast_path(x):
    return x * 2


def helper(x, method="fast"):
    if method == "slow":
        x = slow_path(x)
    return fast_path(x)


def relay(x, method="fast"):
    if method == "slow":
        return helper(x, method="slow")
    return helper(x)


class Net(torch.nn.Module):
    def forward(self, x):
        return relay(helper(x))
"""


def _facts(path: str, module: str, src: str) -> object:
    inp = engine.FileInput(path, path, module, False)
    checks = engine._checks_for(sorted(engine.all_checks()))
    return engine.analyze_source(src.encode(), inp, checks, force=True)


def test_compute_with_the_edge_memo_answers_as_without_it() -> None:
    project = Project([_facts("model.py", "model", MODEL)])  # type: ignore[list-item]
    project.compute()
    traced = {q for _p, q in project.traced}
    # the refuted sites took a second pass (``relay``'s call of ``helper(x, method="slow")``,
    # then ``helper``'s of ``slow_path``: the second is refuted only once the first is)
    assert project._dead_calls, "no site refuted: the later passes are not exercised"
    assert {"Net.forward", "relay", "helper", "fast_path"} <= traced
    assert not {"slow_path", "deeper"} & traced
    assert project._edge_memo is None and project._site_memo is None  # only inside compute
    got = (set(project.traced), set(project._opaque), project.callers)
    # made again outside compute (no memo): each function's edges and sites without the
    # refuted ones, as before the memo
    project._reach()
    project.link_callers()
    assert (set(project.traced), set(project._opaque), project.callers) == got
    again = Project([_facts("model.py", "model", MODEL)])  # type: ignore[list-item]
    again.compute()
    assert set(again.traced) == got[0]
    assert {c.line for c in project._dead_calls.values()} == {
        c.line for c in again._dead_calls.values()
    }


def _whole_text_hits(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in LR._CERTAIN.finditer(data)]


CASES = [
    b"import torch\nmodel = torch.compile(model)\n",
    b"torch.compile(model)",  # the first line, no newline after it
    b"x = 1\n@torch.compiler.disable\ndef f(x):\n    return x\n",
    b"x = 1\nif __name__ == '__main__':\n    main()\n",
    b'if __name__ == "__main__": main()\n    if __name__ == "__main__": pass\n',
    b"@use_experts_implementation\nclass Experts:\n    pass\n",
    b"    @deco.use_experts_implementation(x)\nclass E: ...\n",
    b"m.register_forward_hook(h); m.register_forward_pre_hook(h)\n",
    b'"""\nExample: torch.compile(model)\n"""\nx = 1\n',
    b"# torch._dynamo.disable would also do\nx = torch._dynamo.allow_in_graph(f)\n",
    b"a = torch._disable_dynamo(f); b = torch._dynamo.optimize('eager')(g)\n",
    b"my_torch.compile(x)\nnot_torch._dynamo.disable\n",
    b"x = 1\r\ny = torch.compile(m)\r\n",
    b"",
]


@pytest.mark.parametrize("data", CASES)
def test_must_be_heavy_searches_the_hits_a_whole_text_search_finds(data: bytes) -> None:
    assert [m.span() for m in LR._certain_hits(data)] == _whole_text_hits(data)


def test_must_be_heavy_hits_equal_on_installed_files() -> None:
    """Every ``.py`` file of the installed torch and of this package: the same hits (the
    texts cover every branch of ``_CERTAIN``; no hit spans lines)."""
    roots = [os.path.dirname(engine.__file__)]
    site = sysconfig.get_paths()["purelib"]
    for top in ("torch/_dynamo", "torch/nn", "transformers/utils"):
        if os.path.isdir(os.path.join(site, top)):
            roots.append(os.path.join(site, top))
    seen = 0
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
            with open(path, "rb") as fh:
                data = fh.read()
            want = _whole_text_hits(data)
            assert [m.span() for m in LR._certain_hits(data)] == want, path
            seen += 1
    assert seen > 50


@pytest.mark.parametrize("all_in", [True, False])
def test_idle_leaves_a_file_begun_on_its_text_to_its_round_when_nothing_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, all_in: bool
) -> None:
    """speed24p's package: ``heavy.py`` (refused by its text) is begun in the project phase;
    round 0 waits for ``api.py``. When that wait has nothing left to wait for (made so here),
    ``idle`` does not read ``heavy.py`` light: its round (after round 0's computation) does;
    while it waits, ``idle`` reads it (the first). The same files, facts, findings, and each
    file read light once, either way."""
    from compilelint.static import follow as F
    from tests.test_speed24m import _same, _scan
    from tests.test_speed24p import _env, _Order

    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    before = _scan(proj, venv, 2)
    real = F._all_in

    def settled(begun: Any) -> bool:
        if not all_in:
            return False
        for _items, wait in begun:
            wait._got.wait()  # the pool's result: in before the check
        return real(begun)

    monkeypatch.setattr(F, "_all_in", settled)
    spy = _Order(monkeypatch)
    compute = F.FollowProject.compute  # the spy's

    def computed(project: F.FollowProject) -> None:
        spy.events.append("compute")
        compute(project)

    monkeypatch.setattr(F.FollowProject, "compute", computed)
    now = _scan(proj, venv, 2)
    _same(before, now)
    assert now.findings
    assert max(spy.light.values()) == 1 and max(spy.whole.values()) == 1, (spy.light, spy.whole)
    ev = spy.events
    follow = ev.index("follow")
    assert ev.index("start heavy.py") < follow, ev  # begun in the project phase
    round0 = ev.index("compute", follow)
    if all_in:
        assert ev.index("light heavy.py") > round0, ev
    else:
        assert follow < ev.index("light heavy.py") < round0, ev
