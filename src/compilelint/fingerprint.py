"""Stable identities for findings that survive edits elsewhere in a file.

Used by SARIF ``partialFingerprints`` and by baselines: rule + normalized line content +
enclosing function, never the line number, so inserting lines above a finding keeps its identity.
"""

from __future__ import annotations

import hashlib
import re

from compilelint.model import Finding

_WS = re.compile(r"\s+")


def normalize_line(text: str) -> str:
    """The line's code with whitespace collapsed and a trailing comment dropped."""
    code = text.split("  #", 1)[0] if "  #" in text else text
    return _WS.sub(" ", code).strip()


def content_hash(finding: Finding) -> str:
    """16 hex digits over rule, normalized line and enclosing function (not path, not line)."""
    key = "\0".join((finding.rule, normalize_line(finding.line_text), finding.function))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
