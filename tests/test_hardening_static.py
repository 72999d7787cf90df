"""The static stage never crashes, hangs or loses a file: odd inputs and generated programs.

The full run (the standard library, torch, transformers, 10,000+ generated programs) is
``benchmarks/fuzz_static.py``; this is its bounded version.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from compilelint.api import check
from compilelint.cli import main
from compilelint.config import Config
from compilelint.static import engine
from compilelint.static.engine import FileInput, analyze_source
from tests.fuzz_programs import programs, torch_programs, write_odd_files

pytestmark = pytest.mark.slow

CFG = Config(cache=False, jobs=1)
BUGS = ("internal error", "cannot analyse")


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str | None]]:
    root = tmp_path_factory.mktemp("odd")
    return root, write_odd_files(root)


def _scan(root: Path, cfg: Config = CFG):  # type: ignore[no-untyped-def]
    old = os.getcwd()
    os.chdir(root)
    try:
        return check(["."], cfg)
    finally:
        os.chdir(old)


def test_odd_files_each_one_clear_cl000_and_the_scan_goes_on(odd) -> None:  # type: ignore[no-untyped-def]
    root, expect = odd
    rep = _scan(root)
    cl000: dict[str, list[str]] = {}
    for f in rep.findings:
        if f.rule == "CL000":
            cl000.setdefault(f.path, []).append(f.message)
            assert f.line >= 1 and f.col >= 1, f
            assert "\n" not in f.message and len(f.message) < 300, f.message
            assert not any(b in f.message for b in BUGS), f.message
    for path, want in expect.items():
        if want is None:
            assert path not in cl000, (path, cl000.get(path))
        else:
            assert len(cl000.get(path, [])) == 1, (path, cl000.get(path))
            assert want in cl000[path][0], (path, cl000[path][0])
    # Files that decode, whatever their line endings, BOM, tabs or name, are analysed.
    item = {(f.path, f.line) for f in rep.findings if f.rule == "CL103"}
    for path in expect:
        if "model" in path:
            assert (path, 6) in item, (path, sorted(item))
    assert ("big_100k_lines.py", 100_000) in item
    assert "folder.py" not in cl000  # a folder named like a module is walked, not read
    assert rep.summary.files == len(expect) + (1 if "newer_syntax.py" not in expect else 0)


def test_odd_files_cli_json_is_valid_and_exit_code_is_findings(odd) -> None:  # type: ignore[no-untyped-def]
    root, expect = odd
    old = os.getcwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, ["check", ".", "--format", "json", "--no-cache"])
    finally:
        os.chdir(old)
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["errors"] == []
    paths = {f["path"] for f in data["findings"] if f["rule"] == "CL000"}
    assert paths == {p for p, w in expect.items() if w is not None}


def test_unreadable_file_is_one_cl000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # We run as root in CI, where chmod 000 does not stop reading: simulate the refusal at the
    # one place the engine reads sources.
    (tmp_path / "secret.py").write_text("import torch\n")
    (tmp_path / "fine.py").write_text("import torch\nx = 1 +\n")
    real = engine.read_source

    def refuse(path: str) -> bytes:
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(engine, "read_source", refuse)
    rep = _scan(tmp_path)
    got = sorted((f.path, f.message) for f in rep.findings if f.rule == "CL000")
    assert got[0][0] == "fine.py" and got[0][1].startswith("cannot parse")
    assert got[1] == ("secret.py", "cannot read: Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod 000 files")
def test_chmod_000_file_is_one_cl000(tmp_path: Path) -> None:
    p = tmp_path / "secret.py"
    p.write_text("import torch\n")
    p.chmod(0)
    try:
        rep = _scan(tmp_path)
    finally:
        p.chmod(0o644)
    assert [(f.path, f.message) for f in rep.findings] == [
        ("secret.py", "cannot read: Permission denied")
    ]


def test_parallel_scan_of_odd_files_equals_serial(odd) -> None:  # type: ignore[no-untyped-def]
    root, _ = odd
    serial = _scan(root)
    parallel = _scan(root, dataclasses.replace(CFG, jobs=2))
    assert serial.findings == parallel.findings


def _analyse(src: str) -> None:
    inp = FileInput("gen.py", "gen.py", "gen", False)
    facts = analyze_source(
        src.encode("utf-8", "surrogatepass"),
        inp,
        engine._checks_for(sorted(engine.all_checks())),
        force=True,
    )
    assert facts.error is None or not facts.error.startswith(BUGS), (facts.error, src)


@settings(
    max_examples=250,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(torch_programs())
def test_generated_torch_programs_never_crash(src: str) -> None:
    _analyse(src)


@settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(programs())
def test_generated_programs_scan_end_to_end(src: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        Path(d, "gen.py").write_bytes(src.encode("utf-8", "surrogatepass"))
        Path(d, "other.py").write_text("import torch\nfrom gen import helper\n")
        rep = _scan(Path(d))
    assert not [f for f in rep.findings if f.rule == "CL000" and f.message.startswith(BUGS)]
