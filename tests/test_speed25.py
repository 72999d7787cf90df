"""speed25: library mode's module constants read through the scan's source.

``Project.module_constant`` (library mode, :mod:`analysis.constants`) reads a module's text for
its constants and every file's text for the stores through a module. It read them from disk, so
in the editor server an unsaved buffer of a library's file was not seen: the scan's findings
then answered the file as saved, not as edited. Here the buffers are given as the server gives
them (``engine.scan``'s ``sources``) and the findings are a scan's of the same text on disk.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static.engine import scan
from tests.pred_helpers import EVERY_ITERATION
from tests.test_lib24 import CONFIG, SRC, _line


def _package(tmp_path: Path, entry: str) -> Path:
    pkg = tmp_path / "mylib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"from ._ops import {entry}\n")
    (pkg / "_ops.py").write_text(SRC)
    (pkg / "_config.py").write_text(CONFIG)
    (tmp_path / "pyproject.toml").write_text(f'[tool.compilelint]\nentries = ["mylib.{entry}.*"]\n')
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


# ---------------------------------------------------------------- one CPython parse per text
# EVERY_ITERATION (pred_helpers): a loop whose first break every iteration reaches, the later
# breaks of the frame `behind` it


def _scan_counting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes) -> tuple:  # type: ignore[type-arg]
    import ast

    (tmp_path / "pooler.py").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    parses: list[object] = []
    real = ast.parse

    def counting(source: str | bytes, *a: Any, **k: Any) -> ast.Module:
        f = sys._getframe(1)
        while f is not None and f.f_code.co_name != "_python_error":
            f = f.f_back  # type: ignore[assignment]
        if f is None:  # (phase 1's syntax check, in a worker when a pool runs, aside)
            parses.append(source)
        return real(source, *a, **k)

    monkeypatch.setattr(ast, "parse", counting)
    got = scan(["pooler.py"], load_config(["pooler.py"]), no_cache=True, sources=None)
    found = sorted((f.line, f.rule, f.behind) for f in got.findings)
    return found, parses


def test_loop_shadowed_tree_is_the_predictions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The findings' loop-shadow check parses the text through ``state.cached_tree``: the
    predictions that read the same text (``predict._parsed``) take that tree, not a parse of
    their own."""
    from compilelint.static.analysis.state import cached_tree

    data = (EVERY_ITERATION + f"# {tmp_path.name}\n").encode()  # a text no other test parsed
    found, parses = _scan_counting(tmp_path, monkeypatch, data)
    assert any(b is not None for _, _, b in found)  # the check ran: later breaks are behind
    mine = [p for p in parses if p in (data, data.decode())]
    assert len(mine) == 1
    before = len(parses)
    assert cached_tree(data) is not None
    assert len(parses) == before  # kept for the predictions


@pytest.mark.parametrize(
    "prefix",
    [
        b"\xef\xbb\xbf",  # a byte-order mark: CPython parses the bytes, not the decoded text
        b"# -*- coding: latin-1 -*-\n",  # a declared coding other than UTF-8
    ],
)
def test_loop_shadowed_texts_parsed_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: bytes
) -> None:
    """Where CPython's parse of the bytes may differ from its parse of the decoded text, the
    check parses the decoded text as before (``engine._plain_utf8``): the same findings as
    the check gave before the tree was shared (computed here with the shared tree refused)."""
    from compilelint.static import engine

    data = prefix + EVERY_ITERATION.encode() + f"# {tmp_path.name}\n".encode()
    assert not engine._plain_utf8(data)
    assert engine._plain_utf8(EVERY_ITERATION.encode())
    assert not engine._plain_utf8(b"x = '\xff'\n")
    found, _ = _scan_counting(tmp_path, monkeypatch, data)
    monkeypatch.setattr(engine, "_plain_utf8", lambda d: False)
    again, _ = _scan_counting(tmp_path, monkeypatch, data)
    assert found == again
