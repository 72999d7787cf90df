"""Decorator wrappers are traced (issue 18): ``@deco`` on a reached function makes the closure
the decorator returns part of the compiled region, in the scanned files and in followed
libraries; findings inside a library's wrapper are anchored at the user's decorator line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_invoke import invoke

SIDE_EFFECT = (
    "import pathlib\n"
    "pathlib.Path({marker!r}).write_text('imported')\n"
    "raise SystemExit('decolib was imported')\n"
)

DECOS = """\
import logging
from functools import wraps

logger = logging.getLogger(__name__)


def log_calls(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        logger.info("calling forward")
        return func(self, *args, **kwargs)

    return wrapper


def capture(func=None, *, tie=True):
    def wrapped_fn(func):
        @wraps(func)
        def wrapper(self, *args, **kwargs):
            out = func(self, *args, **kwargs)
            logger.warning("captured")
            return out

        return wrapper

    if func is not None:
        return wrapped_fn(func)
    return wrapped_fn


def register(name):
    def deco(func):
        return func

    return deco


def unused_deco(func):
    @wraps(func)
    def wrapper(*args, **kwargs):
        logger.error("never reached")
        return func(*args, **kwargs)

    return wrapper


@log_calls
def scale(self, x):
    return x * 2
"""

USER = """\
import torch
from decolib.decos import capture, log_calls, register


class A(torch.nn.Module):
    @log_calls
    def forward(self, x):
        return x * 2


class B(torch.nn.Module):
    @capture(tie=False)
    def forward(self, x):
        return x + 1


class C(torch.nn.Module):
    @capture
    def forward(self, x):
        return x - 1


class D(torch.nn.Module):
    @register("d")
    def forward(self, x):
        return x


class E(torch.nn.Module):
    def forward(self, x):
        from decolib.decos import scale

        return scale(self, x)
"""


def make_env(root: Path, marker: Path) -> Path:
    venv = root / "env"
    site = venv / "lib" / "python3.11" / "site-packages"
    pkg = site / "decolib"
    pkg.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (pkg / "__init__.py").write_text(SIDE_EFFECT.format(marker=str(marker)))
    (pkg / "decos.py").write_text(DECOS)
    meta = site / "decolib-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: decolib\nVersion: 0.1\n\n")
    (meta / "top_level.txt").write_text("decolib\n")
    return venv


def _json(proj: Path, *args: str, cache: bool = False) -> dict:  # type: ignore[type-arg]
    flags = [] if cache else ["--no-cache"]
    code, out, err = invoke(["check", ".", "--format", "json", *flags, *args], cwd=proj)
    assert code in (0, 1), err
    return json.loads(out)  # type: ignore[no-any-return]


def test_library_decorator_wrappers_are_traced(tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    venv = make_env(tmp_path, marker)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    data = _json(proj, "--python", str(venv))
    found = {(f["rule"], f["line"], f["frames"][-1]["line"]) for f in data["findings"]}
    # @log_calls (line 6): logger.info in its wrapper (decos.py:10)
    assert ("CL202", 6, 10) in found
    # @capture(tie=False) (line 12) and bare @capture (line 18) both reach the wrapper of the
    # factory's inner decorator (decos.py:21); a library line is reported once, at the first
    # user site that reaches it
    assert ("CL202", 12, 21) in found
    for f in data["findings"]:
        assert f["path"] == "model.py"
        assert f["package"] == "decolib==0.1"
        assert f["frames"][-1]["function"].endswith(".<locals>.wrapper")
    # a registering decorator returns the function itself; unused decorators are not judged
    assert not any(f["line"] == 24 for f in data["findings"])
    assert not any(f["frames"][-1]["line"] == 56 for f in data["findings"])
    assert not marker.exists(), "a followed package was imported"
    # the same from the caches (scanned files and library facts), twice
    cold = _json(proj, "--python", str(venv), cache=True)
    (proj / "model.py").write_text(USER + "\n")  # a changed model file: library facts cached
    warm = _json(proj, "--python", str(venv), cache=True)
    for got in (cold, warm):
        assert [(f["rule"], f["line"]) for f in got["findings"]] == [
            (f["rule"], f["line"]) for f in data["findings"]
        ]


def test_decorator_in_the_scanned_files(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(
        "import functools\n"
        "import torch\n"
        "\n"
        "\n"
        "def timed(func):\n"
        "    @functools.wraps(func)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        print('timing')\n"
        "        return func(*args, **kwargs)\n"
        "\n"
        "    return wrapper\n"
        "\n"
        "\n"
        "def untouched(func):\n"
        "    def wrapper(*args, **kwargs):\n"
        "        print('never traced')\n"
        "        return func(*args, **kwargs)\n"
        "\n"
        "    return wrapper\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    @timed\n"
        "    def forward(self, x):\n"
        "        return x * 2\n"
    )
    data = _json(tmp_path, "--no-follow")
    lines = {(f["rule"], f["line"]) for f in data["findings"]}
    assert any(line == 8 for _, line in lines), lines
    assert not any(line == 16 for _, line in lines), lines


def test_torchscript_markers_do_not_stop_tracing(tmp_path: Path) -> None:
    # torch 2.13 traces into @torch.jit.ignore / @torch.jit.unused methods (a branch on a
    # buffer there breaks the graph), unlike @torch.compiler.disable
    (tmp_path / "model.py").write_text(
        "import torch\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.register_buffer('initted', torch.tensor(False))\n"
        "\n"
        "    @torch.jit.ignore\n"
        "    def init_(self, x):\n"
        "        if self.initted:\n"
        "            return\n"
        "        self.initted.data.copy_(torch.tensor(True))\n"
        "\n"
        "    @torch.compiler.disable\n"
        "    def off(self, x):\n"
        "        if x.sum() > 0:\n"
        "            return x\n"
        "        return x\n"
        "\n"
        "    def forward(self, x):\n"
        "        self.init_(x)\n"
        "        return x + 1\n"
    )
    data = _json(tmp_path, "--no-follow")
    lines = {(f["rule"], f["line"]) for f in data["findings"]}
    assert ("CL101", 11) in lines, lines
    assert not any(line == 17 for _, line in lines), lines


def test_a_decorator_handing_over_to_another_of_its_module(tmp_path: Path) -> None:
    # gpytorch's and linear_operator's ``@cached(name=...)``: ``cached`` returns
    # ``_cached(method=method, name=name)``, whose wrapper ``g`` is what torch.compile traces
    (tmp_path / "memo.py").write_text(
        "import functools\n"
        "import pickle\n"
        "\n"
        "\n"
        "def cached(method=None, name=None):\n"
        "    return _cached(method=method, name=name)\n"
        "\n"
        "\n"
        "def _cached(method=None, name=None):\n"
        "    if method is None:\n"
        "        return functools.partial(_cached, name=name)\n"
        "\n"
        "    @functools.wraps(method)\n"
        "    def g(self, *args, **kwargs):\n"
        "        key = pickle.dumps(kwargs)\n"
        "        return method(self, *args, **kwargs), key\n"
        "\n"
        "    return g\n"
        "\n"
        "\n"
        "def unused(method):\n"
        "    return _other(method)\n"
        "\n"
        "\n"
        "def _other(method):\n"
        "    def g(*args):\n"
        "        print('never traced')\n"
        "        return method(*args)\n"
        "\n"
        "    return g\n"
    )
    (tmp_path / "model.py").write_text(
        "import torch\n"
        "from memo import cached\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    @cached(name='root')\n"
        "    def root(self, x):\n"
        "        return x * 2\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.root(x)\n"
    )
    data = _json(tmp_path, "--no-follow")
    lines = {(f["rule"], f["path"], f["line"]) for f in data["findings"]}
    assert ("CL205", "memo.py", 15) in lines, lines
    assert not any(f["line"] == 27 for f in data["findings"]), lines
