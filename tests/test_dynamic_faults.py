"""Fault injection in the dynamic stage: models that raise, hang, eat memory, crash the
interpreter, exit, shout, change global state or start threads (``fixtures/dynamic/faults/``).

Each run goes through ``compilelint check FILE --input-spec SPEC --format json`` and must give one
clear line in the report, keep the static findings, exit with 2, leave the user's files as they
were and leave no process behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.cli import main

pytestmark = pytest.mark.torch
ROOT = Path(__file__).resolve().parent.parent
FAULTS = ROOT / "fixtures" / "dynamic" / "faults"


@pytest.fixture(autouse=True)
def _need_torch() -> None:
    pytest.importorskip("torch")


def tree_hash(folder: Path) -> str:
    """Names, modes and contents of every file under ``folder`` (new files change it too)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(folder)):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath, name)
            st = p.lstat()
            h.update(f"{p.relative_to(folder)}\0{st.st_mode}\0".encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def processes_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker``, from /proc (no psutil)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != b"Z":
            found.append(int(entry))
    return found


def run_fault(
    monkeypatch: pytest.MonkeyPatch, spec: str, *extra: str, model: str | None = None
) -> tuple[int, dict, float, str]:
    marker = f"compilelint-fault-{uuid.uuid4().hex}"
    monkeypatch.setenv("COMPILELINT_FAULT_MARKER", marker)
    monkeypatch.chdir(ROOT)
    env_before, cwd_before = dict(os.environ), os.getcwd()
    before = tree_hash(FAULTS)
    py = FAULTS / f"{model or spec}.py"
    args = ["check", str(py.relative_to(ROOT)), "--input-spec", str(FAULTS / f"{spec}.json")]
    t = time.perf_counter()
    res = CliRunner().invoke(main, [*args, "--format", "json", "--no-cache", *extra])
    seconds = time.perf_counter() - t
    assert tree_hash(FAULTS) == before, "the user's files changed"
    assert dict(os.environ) == env_before and os.getcwd() == cwd_before
    assert processes_with(marker) == [], "a process was left behind"
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    data = json.loads(res.stdout)
    # The static findings survive, in the same report.
    item = [f for f in data["findings"] if f["rule"] == "CL103"]
    assert [f["path"] for f in item] == [str(py.relative_to(ROOT))], data["findings"]
    return res.exit_code, data, seconds, marker


def assert_clear_error(code: int, data: dict, step: str, kind: str, text: str) -> dict:
    assert code == 2
    err = data["dynamic"]["error"]
    assert err is not None
    assert (err["step"], err["type"]) == (step, kind), err
    assert text in err["message"], err["message"]
    assert "\n" not in err["message"] and len(err["message"]) < 600, err["message"]
    assert "Traceback" not in err["message"]
    [fe] = [e for e in data["errors"] if e["kind"] == "dynamic"]
    assert "\n" not in fe["message"] and text in fe["message"]
    return err


@pytest.mark.parametrize(
    ("spec", "step", "kind", "text", "line"),
    [
        ("raise_on_import", "import model", "ImportError", "flash_attn_99", 6),
        ("raise_in_init", "init", "ValueError", "hidden size must be even", 10),
        ("raise_in_forward", "forward", "TorchRuntimeError", "same reduction dim", 9),
        ("sys_exit", "forward", "SystemExit", "sys.exit(3)", 12),
        ("crash_abort", "run", "Crash", "SIGABRT", 12),
        ("crash_segfault", "run", "Crash", "SIGSEGV", 11),
        ("os_exit", "run", "Exit", "os._exit()", None),
    ],
)
def test_fault_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, spec: str, step: str, kind: str, text: str, line: int | None
) -> None:
    code, data, _, _ = run_fault(monkeypatch, spec)
    err = assert_clear_error(code, data, step, kind, text)
    if line is not None:  # the user's line, also for a crash (from faulthandler's stack)
        assert err["frame"]["path"] == f"fixtures/dynamic/faults/{spec}.py"
        assert err["frame"]["line"] == line
    if kind == "Crash":
        assert err["signal"] == text


def test_hang_is_killed_with_everything_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    code, data, seconds, _ = run_fault(monkeypatch, "hang", "--timeout", "30")
    err = assert_clear_error(code, data, "run", "Timeout", "did not finish within 30 s")
    assert "started helper" in err["output"]  # the helper process existed, and is gone now
    assert seconds < 60


def test_memory_hog_stops_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    code, data, _, _ = run_fault(monkeypatch, "memory_hog")
    err = assert_clear_error(code, data, "forward", "RuntimeError", "memory limit 1024 MiB")
    assert "can't allocate memory" in err["message"]
    assert data["dynamic"]["memory_mb"] == 1024
    # --memory-limit overrides the spec
    code, data, _, _ = run_fault(monkeypatch, "memory_hog", "--memory-limit", "900")
    assert_clear_error(code, data, "forward", "RuntimeError", "memory limit 900 MiB")


def test_megabytes_of_output_do_not_deadlock_and_are_truncated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, data, _, _ = run_fault(monkeypatch, "noisy")
    err = assert_clear_error(code, data, "forward", "RuntimeError", "gave up after the noise")
    assert err["output_bytes"] > 20_000_000  # what the model wrote to stderr (and print())
    assert len(err["output"]) <= 4000
    assert len(json.dumps(data)) < 100_000


def test_changed_cwd_env_and_dynamo_config_stay_in_the_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, data, _, _ = run_fault(monkeypatch, "changes_state")
    assert_clear_error(code, data, "forward", "RuntimeError", "state changed (cwd is now /)")
    assert "COMPILELINT_FAULT_ENV" not in os.environ
    # A later run sees torch's defaults again: .item() breaks the graph (it would not with the
    # child's capture_scalar_outputs=True).
    from compilelint.dynamic.api import run_dynamic

    res = run_dynamic(str(ROOT / "fixtures" / "dynamic" / "item_call.json"), cwd=str(ROOT))
    assert res.ok and [b.gb_id for b in res.breaks] == ["GB0124"]


def test_threads_do_not_hang_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    code, data, seconds, _ = run_fault(monkeypatch, "threads_raise", model="threads")
    assert_clear_error(code, data, "forward", "RuntimeError", "failed while threads run")
    # The same threads with a forward that works: the run ends, with its findings.
    code, data, seconds, _ = run_fault(monkeypatch, "threads", "--timeout", "120")
    assert data["dynamic"]["error"] is None and code == 1
    assert seconds < 120
