"""Safe writes of fixed files: atomic replace, mode and bytes kept, no half-written file when
the process is killed mid-write, and no overwrite of a file that changed since it was read."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from compilelint.config import Config
from compilelint.fix import fix_paths
from compilelint.fix.engine import run_fixes
from compilelint.fix.writer import PAUSE_ENV, TMP_SUFFIX, safe_write

OLD = b"import torch\r\n\r\nx = 1\r\n" * 200
NEW = b"import torch\r\n\r\nx = 2\r\n" * 200


def test_replaces_and_keeps_mode(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_bytes(OLD)
    os.chmod(p, 0o751)
    res = safe_write(str(p), OLD, NEW)
    assert res.ok, res.reason
    assert p.read_bytes() == NEW
    assert os.stat(p).st_mode & 0o777 == 0o751
    assert sorted(x.name for x in tmp_path.iterdir()) == ["m.py"]


def test_refuses_a_file_changed_on_disk(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_bytes(OLD + b"# edited meanwhile\n")
    res = safe_write(str(p), OLD, NEW)
    assert not res.ok and "changed on disk" in res.reason
    assert p.read_bytes() == OLD + b"# edited meanwhile\n"


def test_fix_run_reports_a_file_changed_after_reading(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        print(x)\n        return x\n",
        encoding="utf-8",
    )
    engine = run_fixes([str(p)], Config(cache=False))
    p.write_text(p.read_text(encoding="utf-8") + "# a user edit\n", encoding="utf-8")
    change = engine.changes[0]
    res = safe_write(change.real, change.before, change.after)
    assert not res.ok
    assert p.read_text(encoding="utf-8").endswith("# a user edit\n")
    assert "is_compiling" not in p.read_text(encoding="utf-8")


def test_writes_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_bytes(OLD)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    assert safe_write(str(link), OLD, NEW).ok
    assert link.is_symlink() and target.read_bytes() == NEW


_CHILD = """
import sys
from compilelint.fix.writer import safe_write
res = safe_write(sys.argv[1], open(sys.argv[1], "rb").read(), sys.argv[2].encode() * 5000)
print(res)
"""


def test_sigkill_mid_write_leaves_the_old_file(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_bytes(OLD)
    marker = tmp_path / "paused"
    env = dict(os.environ, **{PAUSE_ENV: str(marker)})
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent.parent / "src"), *sys.path])
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(p), "y = 3\n"], env=env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert proc.poll() is None, "the writer exited before the pause"
            assert time.monotonic() < deadline, "the writer never paused"
            time.sleep(0.05)
        tmp = Path(marker.read_text(encoding="utf-8"))
        assert tmp.exists() and tmp.name.endswith(TMP_SUFFIX)
        assert 0 < tmp.stat().st_size < len(b"y = 3\n" * 5000)  # half written
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert p.read_bytes() == OLD  # never the half-written contents
    # a later run writes normally and clears the stale temporary file once it is old
    old = time.time() - 3600
    os.utime(tmp, (old, old))
    assert safe_write(str(p), OLD, NEW).ok
    assert p.read_bytes() == NEW
    assert not tmp.exists()


def test_sigkill_after_the_rename_leaves_the_new_file(tmp_path: Path) -> None:
    """A whole fix run in a child, killed at once after it wrote: the file is complete."""
    p = tmp_path / "m.py"
    p.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        print(x)\n        return x\n",
        encoding="utf-8",
    )
    code = (
        "import os, signal, sys\n"
        "from compilelint.config import Config\n"
        "from compilelint.fix import fix_paths\n"
        "run = fix_paths([sys.argv[1]], Config(cache=False))\n"
        "assert run.written\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent.parent / "src"), *sys.path])
    proc = subprocess.run([sys.executable, "-c", code, str(p)], env=env, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    text = p.read_text(encoding="utf-8")
    assert "if not torch.compiler.is_compiling():\n            print(x)\n        return x\n" in text
    compile(text, str(p), "exec")


def test_fix_paths_without_write_changes_nothing(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        print(x)\n        return x\n",
        encoding="utf-8",
    )
    before = p.read_bytes()
    run = fix_paths([str(p)], Config(cache=False), write=False)
    assert run.changes and not run.written
    assert p.read_bytes() == before
