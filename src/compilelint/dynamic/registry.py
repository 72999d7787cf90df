"""torch's graph-break registry (``torch/_dynamo/graph_break_registry.json``), read without torch.

The file ships in the torch wheel from the 2.8 cycle on. It maps ``GBnnnn`` ids to a list of
entries, newest first; every historical ``Gb_type`` keeps its id. We locate the file through
``importlib.util.find_spec("torch")`` so importing torch (seconds) is never needed here.
Older torch has no registry: a small text fallback maps legacy reason strings to types.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

REGISTRY_RELPATH = os.path.join("_dynamo", "graph_break_registry.json")

# Legacy one-line reasons (pre-registry torch, or explain()'s short reasons) -> gb_type.
LEGACY_REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"generic_jump\b.*TensorVariable", re.I), "Data-dependent branching"),
    (re.compile(r"data[- ]dependent (jump|branch)", re.I), "Data-dependent branching"),
    (
        re.compile(r"(call_method\s+\S*TensorVariable\(\)\s+item|Tensor\.item\(\))", re.I),
        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    ),
    (
        re.compile(r"(builtin:?\s*print|builtin operator `?print)", re.I),
        "Failed to trace builtin operator",
    ),
    (re.compile(r"generator", re.I), "Attempt to trace generator"),
    (
        re.compile(r"(cache|recompile)[_ ](size[_ ])?limit", re.I),
        "Dynamo recompile limit exceeded",
    ),
    (
        re.compile(r"dynamic shape operator|nonzero", re.I),
        "Dynamic shape operator",
    ),
)


@dataclass(frozen=True)
class GbEntry:
    gb_id: str
    gb_type: str
    explanation: str = ""
    hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class Registry:
    """``by_type`` maps every historical gb_type (lower-cased) to its id."""

    entries: dict[str, GbEntry] = field(default_factory=dict)
    by_type: dict[str, str] = field(default_factory=dict)
    type_names: tuple[str, ...] = ()  # every historical gb_type, longest first
    path: str | None = None

    def id_for(self, gb_type: str | None) -> str | None:
        if not gb_type:
            return None
        return self.by_type.get(gb_type.strip().lower())

    def get(self, gb_id: str | None) -> GbEntry | None:
        return self.entries.get(gb_id.upper()) if gb_id else None


def parse_registry(data: dict[str, object], path: str | None = None) -> Registry:
    """Build a :class:`Registry` from the decoded JSON document."""
    entries: dict[str, GbEntry] = {}
    by_type: dict[str, str] = {}
    names: set[str] = set()
    for gb_id, versions in data.items():
        if not isinstance(versions, list) or not versions:
            continue
        head = versions[0] if isinstance(versions[0], dict) else {}
        hints = head.get("Hints") or []
        entries[gb_id] = GbEntry(
            gb_id=gb_id,
            gb_type=str(head.get("Gb_type", "")),
            explanation=str(head.get("Explanation", "")),
            hints=tuple(str(h) for h in hints) if isinstance(hints, list) else (),
        )
        for v in versions:
            if isinstance(v, dict) and v.get("Gb_type"):
                t = str(v["Gb_type"]).strip()
                by_type.setdefault(t.lower(), gb_id)
                names.add(t)
    ordered = tuple(sorted(names, key=lambda n: (-len(n), n)))
    return Registry(entries=entries, by_type=by_type, type_names=ordered, path=path)


def find_registry_file() -> str | None:
    """Path of the registry in the installed torch, found without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        cand = os.path.join(loc, REGISTRY_RELPATH)
        if os.path.isfile(cand):
            return cand
    return None


@lru_cache(maxsize=4)
def load_registry(path: str | None = None) -> Registry:
    """The installed torch's registry; an empty registry where there is none."""
    path = path or find_registry_file()
    if not path:
        return Registry()
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return Registry()
    if not isinstance(data, dict):
        return Registry()
    return parse_registry(data, path)


def legacy_gb_type(text: str) -> str | None:
    """The gb_type a legacy reason string stands for, or None."""
    for pattern, gb_type in LEGACY_REASONS:
        if pattern.search(text):
            return gb_type
    return None
