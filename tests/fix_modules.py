"""Shared helpers of the fix tests: fix a model text as ``compilelint fix --unsafe-fixes``
does (:func:`fix_text`, :func:`fix_result`, with the findings torch observed where a rewrite
is offered only for those), and load a fixed (or original) model file as a fresh module for
the tests that run torch (:func:`load_module`, :func:`load_pair`)."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes
from compilelint.fix.observed import observed_findings
from compilelint.model import Finding


def line_of(code: str, text: str) -> int:
    """The 1-based number of the first line of ``code`` holding ``text``."""
    return next(i for i, ln in enumerate(code.splitlines(), 1) if text in ln)


def fix_result(
    tmp_path: Path,
    code: str,
    select: Sequence[str],
    *,
    observed: Sequence[tuple[str, str]] = (),
    name: str | None = None,
) -> EngineResult:
    """Run the unsafe fixes of the rules in ``select`` (no cache) on ``code``, written to a
    new file in ``tmp_path`` (``name``, or a fresh ``m_<hex>.py``). ``observed``: (text of the
    line, torch's graph-break id) of breaks torch observed there, each made into the finding
    ``fix --verify`` offers (as the dynamic stage would report it); each must make one."""
    path = tmp_path / (name or f"m_{uuid.uuid4().hex[:8]}.py")
    path.write_text(code, encoding="utf-8")
    extra: list[Finding] = []
    if observed:
        extra = observed_findings(
            [{"path": path.name, "line": line_of(code, t), "gb_id": gb} for t, gb in observed],
            str(tmp_path),
            {},
            lambda real: str(path),
            set(),
            list(select),
        )
        assert extra, "the observed finding was not made"
    return run_fixes(
        [str(path)], Config(select=tuple(select), cache=False), unsafe=True, extra=extra
    )


def fixed_text(res: EngineResult, code: str) -> str:
    """The text of the first file ``res`` changed, or ``code`` where it changed none."""
    return next((c.after.decode() for c in res.changes), code)


def fix_text(
    tmp_path: Path,
    code: str,
    select: Sequence[str],
    *,
    observed: Sequence[tuple[str, str]] = (),
    name: str | None = None,
) -> tuple[str, list[str]]:
    """:func:`fix_result`'s fixed text (``code`` where nothing changed) and the reasons its
    records give (the non-empty ones)."""
    res = fix_result(tmp_path, code, select, observed=observed, name=name)
    return fixed_text(res, code), [r.reason for r in res.records if r.reason]


def load_module(path: Path, prefix: str = "fixed") -> ModuleType:
    """Import ``path`` under a unique module name (the original and fixed copies coexist)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_pair(
    tmp_path: Path, original: str, fixed: str, prefix: str = "fixed"
) -> tuple[ModuleType, ModuleType]:
    """The original and the fixed text, written to ``a.py`` and ``b.py`` in ``tmp_path``,
    each imported as a fresh module (:func:`load_module`)."""
    (tmp_path / "a.py").write_text(original, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    return load_module(tmp_path / "a.py", prefix), load_module(tmp_path / "b.py", prefix)
