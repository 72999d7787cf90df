"""Load a fixed (or original) model file as a fresh module, for the fix tests that run torch."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from pathlib import Path
from types import ModuleType


def load_module(path: Path, prefix: str = "fixed") -> ModuleType:
    """Import ``path`` under a unique module name (the original and fixed copies coexist)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
