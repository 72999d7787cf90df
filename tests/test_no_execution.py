"""The static stage never runs the code it scans.

Every file below would, if imported or executed, write a marker file and connect to a socket
this test listens on: module-level code, package ``__init__.py``, ``conftest.py``, ``setup.py``,
``__main__.py``, ``sitecustomize.py``, a ``.pth`` file, a helper that traced code calls (so the
engine analyses it on demand), and enough torch files to take the parallel path.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.cli import main

ROOT = Path(__file__).resolve().parent.parent


def evil(marker: Path, port: int, name: str) -> str:
    return (
        "import socket\n"
        f"open({str(marker / name)!r}, 'w').write('ran')\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b{name!r})\n"
    )


@pytest.fixture
def listener():  # type: ignore[no-untyped-def]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.setblocking(False)
    yield srv
    srv.close()


def connections(srv: socket.socket) -> list[bytes]:
    got: list[bytes] = []
    while True:
        try:
            conn, _ = srv.accept()
        except BlockingIOError:
            return got
        conn.settimeout(1)
        try:
            got.append(conn.recv(100))
        except OSError:
            got.append(b"?")
        conn.close()


def make_tree(root: Path, marker: Path, port: int) -> None:
    pkg = root / "proj" / "models"
    pkg.mkdir(parents=True)
    (root / "proj" / "__init__.py").write_text(evil(marker, port, "proj_init"))
    (pkg / "__init__.py").write_text(evil(marker, port, "pkg_init"))
    # Torch-free helper that traced code calls: analysed on demand, never imported.
    (pkg / "helpers.py").write_text(
        evil(marker, port, "helpers") + "\ndef scale(t):\n    return t.item()\n"
    )
    (pkg / "net.py").write_text(
        evil(marker, port, "net") + "import torch\nfrom proj.models.helpers import scale\n\n\n"
        "class Net(torch.nn.Module):\n    def forward(self, x):\n        return scale(x)\n"
    )
    for name in ("conftest", "setup", "__main__", "sitecustomize", "usercustomize", "noxfile"):
        (root / "proj" / f"{name}.py").write_text(evil(marker, port, name) + "import torch\n")
    (root / "proj" / "evil.pth").write_text(
        "import os; " + evil(marker, port, "pth").replace("\n", "; ")
    )
    many = root / "proj" / "many"
    many.mkdir()
    for i in range(30):  # at least 24 torch files: the engine forks its worker pool
        (many / f"m{i}.py").write_text(
            evil(marker, port, f"many{i}")
            + "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
            "        return x.item()\n"
        )


def test_scanning_never_imports_or_executes(
    tmp_path: Path, listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "markers"
    marker.mkdir()
    port = listener.getsockname()[1]
    make_tree(tmp_path, marker, port)
    monkeypatch.chdir(tmp_path)
    modules_before = set(sys.modules)
    # In-process, serial and parallel, and as the pre-commit hook runs it (a separate process).
    for jobs in ("1", "2"):
        res = CliRunner().invoke(
            main, ["check", "proj", "--format", "json", "--no-cache", "-j", jobs]
        )
        assert res.exit_code == 1, res.output
        assert '"CL103"' in res.stdout
        assert '"path": "proj/models/helpers.py"' in res.stdout  # the helper was analysed
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "compilelint.cli", "check", "proj", "--format", "json", "-j", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert list(marker.iterdir()) == []
    assert connections(listener) == []
    assert not {
        m
        for m in set(sys.modules) - modules_before
        if m.startswith(("proj", "conftest", "setup", "sitecustomize"))
    }
    # `spec init` reads the model's source, never imports it.
    res = CliRunner().invoke(main, ["spec", "init", "proj/models/net.py:Net"])
    assert res.exit_code == 0, res.output
    assert list(marker.iterdir()) == [] and connections(listener) == []


def test_the_test_would_notice_execution(tmp_path: Path, listener: socket.socket) -> None:
    """The marker and the socket do fire when such a file really runs."""
    marker = tmp_path / "markers"
    marker.mkdir()
    port = listener.getsockname()[1]
    (tmp_path / "run_me.py").write_text(evil(marker, port, "run_me"))
    subprocess.run([sys.executable, str(tmp_path / "run_me.py")], check=True, timeout=60)
    assert [p.name for p in marker.iterdir()] == ["run_me"]
    assert connections(listener) == [b"run_me"]
