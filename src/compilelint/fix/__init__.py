"""Autofixes: one libcst codemod per fixable rule, applied at the static stage's findings,
optionally verified by re-running torch (see :mod:`compilelint.fix.api`)."""

from __future__ import annotations

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
