"""Branch speed24o: following begins a library file's whole analysis on its bytes alone.

``libresolve.must_be_heavy`` says, from the text, that ``light_facts`` will refuse a file (a
sensitive call by its full name, a forward hook, a module-level ``__main__`` block, a
forward-replacing class decorator, in code rather than in a docstring or comment). A module a
computation finds missing whose file it says yes to is begun in the pool at once, before its
light read (``transformers/modeling_utils.py``, the first run's longest task); the light read
still decides, while this process waits for the pool or in the file's round: a file found light
after all is read light, and an upgrade of it takes the analysis begun. What following loads,
reads light or whole, and finds is what it was without the early starts (``follow.EARLY``
off), and no file is read light or analysed whole twice.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import pytest

from compilelint.static import engine
from compilelint.static import follow as F
from compilelint.static import libresolve as LR
from tests.test_follow import make_env
from tests.test_speed24m import _packages, _same, _scan, _Spy

SITE = ("lib", "python3.11", "site-packages")

# the crafted files' verdicts: (text, must_be_heavy says yes)
YES = {
    "call": "import torch\n\n\ndef f(m):\n    return torch.compile(m)\n",
    "module_call": "import torch\n\nfast = torch.compile(abs)\n",
    "decorator": "import torch\n\n\n@torch.compiler.disable\ndef f(x):\n    return x\n",
    "decorator_call": "import torch\n\n\n@torch._dynamo.disable(recursive=False)\ndef f(x):\n"
    "    return x\n",
    "hook": "def f(m, h):\n    return m.register_forward_hook(h)\n",
    "pre_hook": "def f(m, h):\n    m.layer.register_forward_pre_hook(h)\n",
    "main": "def f():\n    return 1\n\n\nif __name__ == '__main__':\n    f()\n",
    "class_decorator": "from x import use_experts_implementation\n\n\n"
    "@use_experts_implementation\nclass E:\n    pass\n",
    "after_a_docstring": 'import torch\n\n\ndef f(m):\n    """Compile `m`."""\n'
    "    return torch.compile(m)\n",
}
NO = {
    "docstring": 'def f(m):\n    """Use it as:\n\n        model = torch.compile(m)\n    """\n'
    "    return m\n",
    "single_quoted_docstring": "def f(m):\n    '''torch.compile(m) then'''\n    return m\n",
    "doctest": "def f(m):\n    '''\n    >>> torch.compile(m)\n    '''\n    return m\n",
    "comment": "def f(m):\n    # m = torch.compile(m)\n    return m\n",
    "back_quoted": "X = 1  # see `torch.compile(m)`\n",
    "string": "MSG = 'call torch.compile(m) first'\n",
    "named_not_called": "import torch\n\noriginal = torch.compile\n",
    "assigned": "import torch\n\n\ndef patch(fn):\n    torch.compile = fn\n",
    "other_compile": "import re\n\nPAT = re.compile('a')\n",
    "attribute_of_another": "def f(x, m):\n    return x.torch.compile(m)\n",
    "prefixed_name": "def f(my_torch, m):\n    return my_torch.compile(m)\n",
    "compiler_query": "import torch\n\n\ndef f():\n    return torch.compiler.is_compiling()\n",
    "hook_named": "def f(m):\n    return hasattr(m, 'register_forward_hook')\n",
    "nested_main": "def f():\n    if __name__ == '__main__':\n        pass\n",
}


@pytest.mark.parametrize("name", sorted(YES))
def test_must_be_heavy_says_yes_only_where_light_facts_refuses(name: str) -> None:
    data = YES[name].encode()
    ast.parse(data)
    assert LR.must_be_heavy(data), name
    assert LR.may_be_heavy(data), name
    assert LR.light_facts(data, "/x/m.py", "m", False) is None, name


@pytest.mark.parametrize("name", sorted(NO))
def test_must_be_heavy_says_no_to_mentions(name: str) -> None:
    data = NO[name].encode()
    ast.parse(data)
    assert not LR.must_be_heavy(data), name


def test_must_be_heavy_says_yes_to_no_light_installed_file() -> None:
    """Over installed files (click, rich; einops, transformers' ``utils`` and
    ``modeling_utils.py`` where installed), every file ``must_be_heavy`` says yes to is refused
    by ``light_facts``; where transformers is installed, ``modeling_utils.py`` is said yes to."""
    yes = 0
    paths: list[Path] = []
    for root in _packages():
        paths += sorted(root.rglob("*.py"))
        if root.name == "utils" and root.parent.name == "transformers":
            paths.append(root.parent / "modeling_utils.py")
    for path in paths:
        data = path.read_bytes()
        try:
            ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        if LR.must_be_heavy(data):
            yes += 1
            pkg = path.name == "__init__.py"
            assert LR.light_facts(data, str(path), "m", pkg) is None, path
        if path.name == "modeling_utils.py" and path.parent.name == "transformers":
            assert LR.must_be_heavy(data)
    assert yes


# ``api.run`` calls ``heavy.kernel`` (refused by its text: a module-level ``torch.compile``),
# which calls ``helpers.clamp``; ``helpers.py``'s text fools ``must_be_heavy`` (a ``"""``
# inside a quoted string puts the docstring's example out of step) but it is light: begun on a
# guess, read light, and its upgrade (``clamp`` is traced) takes the analysis begun
API = """\
import torch

from .heavy import kernel


def run(x):
    y = kernel(x)
    return y + 1
"""

HEAVY = """\
import torch

from .helpers import clamp


def kernel(x):
    z = clamp(x)
    if z.sum() > 0:
        return z.item()
    return z


fast = torch.compile(kernel)
"""

HELPERS = '''\
import torch

QUOTE = '"""'


def clamp(x):
    """Use as:
    y = torch.compile(clamp)(x)
    """
    n = int(x.max())
    return x.clamp(0, n)
'''

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
    for rel, text in {"api.py": API, "heavy.py": HEAVY, "helpers.py": HELPERS}.items():
        (pkg / rel).write_text(text)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    (proj / "other.py").write_text(OTHER)  # two files: the pool starts for phase 1
    return proj, venv


def test_the_crafted_package_is_what_the_test_needs() -> None:
    assert (
        LR.must_be_heavy(HEAVY.encode()) and LR.light_facts(HEAVY.encode(), "h", "h", False) is None
    )
    assert LR.must_be_heavy(HELPERS.encode())  # the guess
    assert LR.light_facts(HELPERS.encode(), "h", "h", False) is not None  # wrong: light


class _Order(_Spy):
    """The spy, with the order of light reads and pool starts of library files."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(monkeypatch)
        self.events: list[str] = []
        light, start = LR.light_facts, engine._Scan.start_files

        def light_facts(data: bytes, path: str, module: str, pkg: bool) -> Any:
            self.events.append("light " + os.path.basename(path))
            return light(data, path, module, pkg)

        def start_files(scan: engine._Scan, items: list[Any]) -> Any:
            self.events += [
                "start " + os.path.basename(it[1].path) for it in items if it[3] == "all"
            ]
            return start(scan, items)

        monkeypatch.setattr(LR, "light_facts", light_facts)
        monkeypatch.setattr(engine._Scan, "start_files", start_files)


@pytest.mark.parametrize("jobs", [1, 2])
def test_begun_on_its_bytes_the_same_as_read_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """With and without the early starts, in one process and with the pool: the same library
    files, light or whole, the same whole facts, traced functions and findings; no file read
    light or analysed whole twice, ``helpers.py`` (a wrong guess) read light then upgraded."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    before = _scan(proj, venv, jobs)
    monkeypatch.setattr(F, "EARLY", True)
    spy = _Order(monkeypatch)
    now = _scan(proj, venv, jobs)
    _same(before, now)
    assert now.findings
    assert max(spy.light.values()) == 1, spy.light
    assert max(spy.whole.values()) == 1, spy.whole
    assert spy.light["helpers.py"] == 1 and spy.whole["helpers.py"] == 1
    assert now.follow is not None and int(str(now.follow["upgraded"])) >= 1
    if jobs == 2:
        ev = spy.events
        # refused by its text: begun before its light read; the wrong guess likewise, and
        # not begun again for its upgrade
        assert ev.index("start heavy.py") < ev.index("light heavy.py"), ev
        assert ev.index("start helpers.py") < ev.index("light helpers.py"), ev
        assert ev.count("start helpers.py") == 1, ev


def test_early_starts_off_read_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the early starts, each file is read light first (the test above can fail)."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    spy = _Order(monkeypatch)
    _scan(proj, venv, 2)
    ev = spy.events
    assert ev.index("light heavy.py") < ev.index("start heavy.py"), ev


def test_a_guess_read_light_by_its_round(tmp_path: Path) -> None:
    """``_read_all``: a file begun on its bytes and not read light yet is read light by its
    round; found light, its light facts are taken and the analysis begun is kept for an
    upgrade; found refused, the analysis begun is taken."""
    cache = F.LibraryCache(None, "k")
    stats = F.FollowStats()
    for text, refused in ((HELPERS, False), (HEAVY, True)):
        f = tmp_path / ("a.py" if refused else "b.py")
        f.write_text(text)
        mf = F.ModuleFile(path=str(f), module="m", is_package=False, site=str(tmp_path), top="m")
        stamp = F._stamp(str(f))
        assert stamp is not None
        early = F._Early()
        src = (text.encode(), str(f), "m", False)

        def wait() -> list[Any]:
            raise AssertionError("not waited for here")

        early.whole[str(f)] = (stamp, src, wait)
        begun: F._Begun = []
        out, todo = F._read_all(
            [(mf, ("d", "1"))], cache, lambda d: d, stats, light=True, early=early, begun=begun
        )
        assert todo == []
        if refused:
            assert out[0] is None and begun == [([(0, stamp, src)], wait)]
            assert not early.whole
        else:
            assert out[0] is not None and LR.is_light(out[0]) and begun == []
            assert str(f) in early.whole  # for an upgrade
            up: F._Begun = []
            out, todo = F._read_all(
                [(mf, ("d", "1"))], cache, lambda d: d, stats, light=False, early=early, begun=up
            )
            assert todo == [] and up == [([(0, stamp, src)], wait)] and not early.whole


def test_a_refused_file_read_while_waiting_is_begun_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing module's file that ``must_be_heavy`` says no to but ``light_facts`` refuses
    (``disable`` imported from ``torch._dynamo``) is read while this process waits, and begun
    in the pool then; the round takes it (analysed once), with the results of a run without
    the early starts."""
    proj, venv = _env(tmp_path)
    text = (
        "from torch._dynamo import disable\n\n\n@disable\ndef clamp(x):\n"
        "    n = int(x.max())\n    return x.clamp(0, n)\n"
    )
    assert not LR.must_be_heavy(text.encode())
    assert LR.light_facts(text.encode(), "h", "h", False) is None
    venv.joinpath(*SITE, "fakelib", "helpers.py").write_text(text)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    before = _scan(proj, venv, 2)
    monkeypatch.setattr(F, "EARLY", True)
    spy = _Order(monkeypatch)
    now = _scan(proj, venv, 2)
    _same(before, now)
    ev = spy.events
    assert spy.light["helpers.py"] == 1 and spy.whole["helpers.py"] == 1, " ; ".join(ev)
    assert ev.index("light helpers.py") < ev.index("start helpers.py"), ev


def _predictions(monkeypatch: pytest.MonkeyPatch, events: list[str]) -> None:
    predict = F.predict_upgrades

    def logged(before: F.FollowProject, pre: F.FollowProject) -> set[str]:
        out = predict(before, pre)
        events.extend("predict " + os.path.basename(p) for p in sorted(out))
        return out

    monkeypatch.setattr(F, "predict_upgrades", logged)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_foreseen_prediction_the_same_as_the_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """Every round foreseen (``FORESEE_BYTES`` 0): round 0's prediction over the files read so
    far misses ``fakelib.api``, which is read first, and the prediction again names it: its
    whole analysis is begun before the round's own prediction, which takes it. The same
    library files, facts and findings as without the early starts, nothing read light or
    analysed whole twice; without the foresight, ``api.py`` is begun after the round's
    prediction."""
    proj, venv = _env(tmp_path)
    monkeypatch.setattr(engine, "POOL_BYTES", 0)
    monkeypatch.setattr(F, "EARLY", False)
    before = _scan(proj, venv, jobs)
    monkeypatch.setattr(F, "EARLY", True)
    monkeypatch.setattr(F, "FORESEE_BYTES", 0)
    spy = _Order(monkeypatch)
    _predictions(monkeypatch, spy.events)
    now = _scan(proj, venv, jobs)
    _same(before, now)
    assert max(spy.light.values()) == 1, spy.light
    assert max(spy.whole.values()) == 1, spy.whole
    ev = spy.events
    if jobs == 2:
        assert ev.count("start api.py") == 1, ev
        last = len(ev) - 1 - ev[::-1].index("predict api.py")
        assert ev.index("light api.py") < ev.index("start api.py") < last, ev
        monkeypatch.setattr(F, "FORESEE_BYTES", 10**12)
        spy = _Order(monkeypatch)
        _predictions(monkeypatch, spy.events)
        _same(before, _scan(proj, venv, jobs))
        ev = spy.events
        assert ev.index("predict api.py") < ev.index("start api.py"), ev
        assert ev.count("predict api.py") == 1, ev
