"""speed25: library mode's module constants read through the scan's source.

``Project.module_constant`` (library mode, :mod:`analysis.constants`) reads a module's text for
its constants and every file's text for the stores through a module. It read them from disk, so
in the editor server an unsaved buffer of a library's file was not seen: the scan's findings
then answered the file as saved, not as edited. Here the buffers are given as the server gives
them (``engine.scan``'s ``sources``) and the findings are a scan's of the same text on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan
from tests.test_lib24 import CONFIG, SRC, _line


def _package(tmp_path: Path, entry: str) -> Path:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {entry}\n")
    (pkg / "_ops.py").write_text(SRC)
    (pkg / "_config.py").write_text(CONFIG)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.compilelint]\nentries = ["mylib.{entry}.*"]\n'
    )
    return pkg


def _lines(paths: list[str], sources: dict[str, bytes] | None) -> set[int]:
    got = scan(paths, load_config(paths), no_cache=True, sources=sources)
    return {f.line for f in got.findings if f.path.endswith("_ops.py")}


@pytest.mark.parametrize(
    ("name", "edit"),
    [
        # the constant turned on in the unsaved buffer of the module that binds it
        ("_config.py", lambda t: t.replace("COLLECT_STATS = False", "COLLECT_STATS = True")),
        # a store through the module added in the unsaved buffer of another file
        ("_ops.py", lambda t: t.replace("LOCAL_STATS = False\n", "cfg.COLLECT_STATS = True\n")),
    ],
)
def test_module_constants_read_the_unsaved_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, edit: object
) -> None:
    monkeypatch.chdir(tmp_path)
    pkg = _package(tmp_path, "TripletMiner")
    miner = _line("MINER")
    saved = _lines(["mylib"], None)
    assert miner not in saved  # COLLECT_STATS = False as shipped: the branch never runs
    target = pkg / name
    edited = edit(target.read_text())  # type: ignore[operator]
    assert edited != target.read_text()
    unsaved = _lines(["mylib"], {str(target.resolve()): edited.encode()})
    target.write_text(edited)
    on_disk = _lines(["mylib"], None)
    # the edit does not move the marked line (`_ops.py`'s edit replaces one line by one)
    assert miner in on_disk
    assert unsaved == on_disk
