"""Branch speed24h: what a cold scan does besides analysing files in its workers.

The pool's worker handler no longer wakes on every result; the ``compilelint`` command ends its
process without the interpreter's teardown after a static check (flushed first)."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from compilelint import cli
from compilelint.static import engine as E

BREAKS = """\
import torch


class M(torch.nn.Module):
    def forward(self, x):
        print(x)
        return x.item()
"""


def _bigger(n: int) -> bytes:  # a result the size of a file's facts
    return bytes(n % 251) * 20_000


def _fork() -> Any:
    if not sys.platform.startswith("linux"):
        pytest.skip("the scan forks its workers on Linux only")
    return mp.get_context("fork")


def test_quiet_pool_waits_on_no_results_pipe() -> None:
    ctx = _fork()
    pool = E._quiet_pool()(2, context=ctx)
    try:
        sentinels = pool._get_sentinels()
        assert sentinels == [pool._change_notifier._reader]
        assert pool._outqueue._reader not in sentinels
    finally:
        pool.terminate()
        pool.join()


def test_quiet_pool_handler_does_not_spin_on_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """multiprocessing's own pool wakes its worker handler at least once per result (it waits
    on the results pipe too); the scan's pool wakes it a few times in all."""
    ctx = _fork()
    cls = E._quiet_pool()
    wakes = [0]
    orig = cls._wait_for_updates

    def counting(sentinels: Any, notifier: Any, timeout: float | None = None) -> Any:
        wakes[0] += 1
        return orig(sentinels, notifier, timeout)

    monkeypatch.setattr(cls, "_wait_for_updates", staticmethod(counting))
    pool = cls(2, context=ctx)
    try:
        got = list(pool.imap(_bigger, range(200), chunksize=1))
    finally:
        pool.terminate()
        pool.join()
    assert [len(g) for g in got] == [(n % 251) * 20_000 for n in range(200)]
    assert wakes[0] <= 10


def _die(_: object) -> None:  # in a worker: it ends without a result
    os._exit(0)


def test_quiet_pool_replaces_a_dead_worker() -> None:
    """The handler still wakes when a worker dies (its process sentinel) and starts another.
    (The worker dies running a task: killed while it waits for one, it could hold the task
    queue's lock, which no pool survives.)"""
    ctx = _fork()
    pool = E._quiet_pool()(2, context=ctx)
    try:
        assert pool.map(abs, [-1, -2]) == [1, 2]
        before = {p.pid for p in pool._pool}
        pool.apply_async(_die, (None,))
        deadline = time.monotonic() + 20
        while {p.pid for p in pool._pool} >= before and time.monotonic() < deadline:
            time.sleep(0.05)
        while len(pool._pool) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        now = {p.pid for p in pool._pool}
        assert len(now) == 2 and now != before
        assert pool.map(abs, range(-10, 0)) == list(range(10, 0, -1))
    finally:
        pool.terminate()
        pool.join()


def _run_cli(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[str, object]:
    """``cli.run`` in this process with ``os._exit`` caught: ("os._exit" | "sys.exit", code)."""

    class HardExit(BaseException):
        pass

    def fake_exit(code: int) -> None:
        raise HardExit(code)

    monkeypatch.setattr(cli, "_FAST_EXIT", False)
    monkeypatch.setattr(os, "_exit", fake_exit)
    monkeypatch.delitem(sys.modules, "coverage", raising=False)
    monkeypatch.delenv("COMPILELINT_CLEAN_EXIT", raising=False)
    monkeypatch.setattr(sys, "argv", ["compilelint", *argv])
    try:
        cli.run()
    except HardExit as exc:
        return "os._exit", exc.args[0]
    except SystemExit as exc:
        return "sys.exit", exc.code
    return "returned", None


def test_check_ends_its_process_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.py").write_text(BREAKS)
    out = tmp_path / "out.json"
    monkeypatch.chdir(tmp_path)
    how, code = _run_cli(
        monkeypatch, ["check", "m.py", "--no-cache", "--format", "json", "-o", str(out)]
    )
    assert (how, code) == ("os._exit", 1)
    assert json.loads(out.read_text())["findings"]  # written and closed before the exit
    # a clean tree: status 0, still at once
    (tmp_path / "ok.py").write_text("import torch\n\n\ndef f(x):\n    return x + 1\n")
    how, code = _run_cli(monkeypatch, ["check", "ok.py", "--no-cache", "--format", "json"])
    assert (how, code) == ("os._exit", 0)


def test_other_commands_and_coverage_exit_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run_cli(monkeypatch, ["rules", "--format", "json"]) == ("sys.exit", 0)
    (tmp_path / "m.py").write_text(BREAKS)
    monkeypatch.chdir(tmp_path)
    argv = ["check", "m.py", "--no-cache", "--format", "json"]
    monkeypatch.setitem(sys.modules, "coverage", sys)  # anything loaded under that name
    monkeypatch.setattr(cli, "_FAST_EXIT", True)
    assert not cli.fast_exit_allowed(1)
    monkeypatch.delitem(sys.modules, "coverage")
    assert cli.fast_exit_allowed(1) and cli.fast_exit_allowed(None)
    assert not cli.fast_exit_allowed("a message")
    monkeypatch.setenv("COMPILELINT_CLEAN_EXIT", "1")
    assert not cli.fast_exit_allowed(1)
    monkeypatch.delenv("COMPILELINT_CLEAN_EXIT")
    # a usage error exits before the check finishes: no hard exit
    assert _run_cli(monkeypatch, [*argv, "--select", "NOPE999"])[0] == "sys.exit"


def test_python_m_compilelint_flushes_its_output(tmp_path: Path) -> None:
    """The real process: stdout through a pipe is complete, the status is the check's."""
    (tmp_path / "m.py").write_text(
        BREAKS * 1
        + "".join(
            f"\n\nclass M{i}(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n"
            f"        return x.item()\n"
            for i in range(200)
        )
    )
    env = dict(os.environ, PYTHONPATH=str(Path(cli.__file__).resolve().parents[1]))
    env.pop("COMPILELINT_CLEAN_EXIT", None)
    got = subprocess.run(
        [sys.executable, "-m", "compilelint", "check", "m.py", "--no-cache", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert got.returncode == 1, got.stderr
    assert len(json.loads(got.stdout)["findings"]) >= 400
