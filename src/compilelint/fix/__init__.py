"""Autofixes: one libcst codemod per fixable rule, applied at the static stage's findings,
optionally verified by re-running torch (see :mod:`compilelint.fix.api`).

The names below are imported on first use, so that mounting the ``fix`` command costs the
CLI nothing at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compilelint.fix.api import attach_edits, fix_copy, fix_paths
    from compilelint.fix.records import FixCheck, FixRecord, FixRun, Verification

__all__ = [
    "FixCheck",
    "FixRecord",
    "FixRun",
    "Verification",
    "attach_edits",
    "fix_copy",
    "fix_paths",
]


def __getattr__(name: str) -> Any:
    if name in ("attach_edits", "fix_copy", "fix_paths"):
        from compilelint.fix import api

        return getattr(api, name)
    if name in ("FixCheck", "FixRecord", "FixRun", "Verification"):
        from compilelint.fix import records

        return getattr(records, name)
    raise AttributeError(f"module 'compilelint.fix' has no attribute {name!r}")
