"""Factory dispatch into installed packages (issue 18): ``cls = select(method)`` returning one
of several classes by name, then ``cls(...).integrate(t)``, reaches the methods of those
classes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_invoke import invoke

METHODS = """\
from .euler import Euler
from .heun import Heun


def select(method):
    if method == "euler":
        return Euler
    elif method == "heun":
        return Heun
    raise ValueError(method)
"""

BASE = """\
class Solver:
    def __init__(self, f):
        self.f = f

    def integrate(self, y, ts):
        for t in ts:
            y = self.step(t, y)
        return y
"""

EULER = """\
from .base import Solver


class Euler(Solver):
    def step(self, t, y):
        return y + self.f(t, y)

    def integrate(self, y, ts):
        if ts.max() > 1:
            ts = ts / ts.max()
        return super().integrate(y, ts)
"""

HEUN = """\
from .base import Solver


class Heun(Solver):
    def integrate(self, y, ts):
        n = int(ts.sum())
        return super().integrate(y, ts[:n])
"""

API = """\
from . import methods


def solve(f, y, ts, method="euler"):
    solver_fn = methods.select(method)
    solver = solver_fn(f)
    return solver.integrate(y, ts)
"""

USER = """\
import torch
import factolib.api


class Model(torch.nn.Module):
    def forward(self, y, ts):
        return factolib.api.solve(lambda t, y: -y, y, ts)
"""


def test_classes_returned_by_a_factory_are_followed(tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    venv = tmp_path / "env"
    site = venv / "lib" / "python3.11" / "site-packages"
    pkg = site / "factolib"
    (pkg / "methods").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (pkg / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n"
    )
    (pkg / "api.py").write_text(API)
    (pkg / "methods" / "__init__.py").write_text(METHODS)
    (pkg / "methods" / "base.py").write_text(BASE)
    (pkg / "methods" / "euler.py").write_text(EULER)
    (pkg / "methods" / "heun.py").write_text(HEUN)
    meta = site / "factolib-0.3.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: factolib\nVersion: 0.3\n\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(USER)
    code, out, err = invoke(
        ["check", ".", "--format", "json", "--no-cache", "--python", str(venv)], cwd=proj
    )
    assert code in (0, 1), err
    data = json.loads(out)
    inner = {
        (Path(f["frames"][-1]["path"]).name, f["frames"][-1]["line"]) for f in data["findings"]
    }
    assert ("euler.py", 9) in inner  # `if ts.max() > 1:` in Euler.integrate
    assert ("heun.py", 6) in inner  # `int(ts.sum())` in Heun.integrate
    assert all(f["line"] == 7 and f["path"] == "model.py" for f in data["findings"])
    assert not marker.exists(), "a followed package was imported"


def test_a_callable_parameter_maps_tensors_to_tensors(tmp_path: Path) -> None:
    # torchdiffeq's `norm(error / tol).abs()` with `norm` passed in: a tensor, so the branch
    # on it breaks; a flag computed by a callable from non-tensors stays a Python value
    (tmp_path / "model.py").write_text(
        "import torch\n"
        "\n"
        "\n"
        "def ratio(err, tol, norm):\n"
        "    return norm(err / tol).abs()\n"
        "\n"
        "\n"
        "def pick(make_flag, name):\n"
        "    if make_flag(name):\n"
        "        return 1\n"
        "    return 2\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        r = ratio(x, x.abs() + 1, torch.linalg.norm)\n"
        "        if r < 1:\n"
        "            x = x * 2\n"
        "        return x * pick(str.isupper, 'a')\n"
    )
    code, out, err = invoke(["check", ".", "--format", "json", "--no-cache"], cwd=tmp_path)
    assert code in (0, 1), err
    lines = {(f["rule"], f["line"]) for f in json.loads(out)["findings"]}
    assert ("CL101", 17) in lines, lines
    assert not any(line == 9 for _, line in lines), lines


@pytest.mark.parametrize("reexport", ["from .jitter import Jitter\n", "from .jitter import *\n"])
def test_a_module_built_through_an_aliased_subpackage_is_followed(
    tmp_path: Path, reexport: str
) -> None:
    # `import augl.aug as K; self.jitter = K.Jitter(...)`: the alias names the subpackage, whose
    # __init__ re-exports the class by name or with a star import
    venv = tmp_path / "env"
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "augl" / "aug").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (site / "augl" / "__init__.py").write_text("")
    (site / "augl" / "aug" / "__init__.py").write_text(reexport)
    (site / "augl" / "aug" / "jitter.py").write_text(
        "import torch\n"
        "\n"
        "\n"
        "class Jitter(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if (x > 0).any():\n"
        "            x = x * 2\n"
        "        return x\n"
    )
    meta = site / "augl-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: augl\nVersion: 1.0\n\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(
        "import augl.aug as K\n"
        "import torch\n"
        "\n"
        "\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.jitter = K.Jitter()\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.jitter(x)\n"
    )
    code, out, err = invoke(
        ["check", ".", "--format", "json", "--no-cache", "--python", str(venv)], cwd=proj
    )
    assert code in (0, 1), err
    found = {(f["line"], f["frames"][-1]["line"]) for f in json.loads(out)["findings"]}
    assert (11, 6) in found, found
