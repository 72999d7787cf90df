"""Run a config remedy's example under ``torch.compile`` with torch settings patched in: the
graph breaks and graphs torch counts, and whether the outputs equal eager's. Shared by the
torch-checked tests (``tests/test_remedies_torch.py``) and ``benchmarks/config_remedies.py``
(the same examples on a GPU and torch 2.11). Imports torch: only the dynamic package does."""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

VARIANTS = re.compile(r"^#\s*variants:\s*(.+)$", re.M)


def run_example(
    source: str,
    settings: Mapping[str, Any],
    compile_kw: Mapping[str, Any],
    *,
    backend: str = "eager",
    device: str = "cpu",
    rtol: float = 1e-5,
    atol: float = 1e-8,
) -> tuple[int, int, bool]:
    """``(graph breaks, unique graphs, outputs equal eager's)`` of ``fn`` in ``source``, called
    with a seeded ``(4, 8)`` input and then each call of its ``# variants:`` line."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    name = f"cl_remedy_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
            m = VARIANTS.search(source)
            gen = torch.Generator().manual_seed(0)
            calls: list[tuple[Any, ...]] = [(torch.randn(4, 8, generator=gen),)]
            if m:
                calls += eval(m.group(1), {"torch": torch})
            calls = [tuple(a.to(device) for a in c) for c in calls]
            torch._dynamo.reset()
            counters.clear()
            with torch._dynamo.config.patch(**settings):
                f = torch.compile(mod.fn, backend=backend, **compile_kw)
                outs = [f(*a) for a in calls]
            eager = [mod.fn(*a) for a in calls]
            breaks = sum(counters["graph_break"].values())
            graphs = counters["stats"]["unique_graphs"]
        finally:
            sys.modules.pop(name, None)
            torch._dynamo.reset()
    same = all(
        torch.allclose(torch.as_tensor(a), torch.as_tensor(b), rtol=rtol, atol=atol)
        for a, b in zip(outs, eager, strict=True)
    )
    return breaks, graphs, same
