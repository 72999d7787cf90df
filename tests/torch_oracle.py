"""What torch itself reports for a snippet: graph breaks (deduplicated by type, file, line) and
recompiles, from the structured trace and the graph_break counters. Test-only helper."""

from __future__ import annotations

import importlib.util
import logging
import re
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INPUTS = re.compile(r"^#\s*inputs:\s*(.+)$", re.M)
VARIANTS = re.compile(r"^#\s*variants:\s*(.+)$", re.M)
CONTEXT = re.compile(r"^#\s*context:\s*(.+)$", re.M)
_LOC = re.compile(r"Graph break in user code at (.+?):(\d+)")
_GB = re.compile(r"gb(\d{4})\.html")


@dataclass
class Observed:
    breaks: set[tuple[str, str, int]] = field(default_factory=set)  # (gb, file, line)
    recompiles: list[str] = field(default_factory=list)
    counter_breaks: int = 0


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.breaks: list[str] = []
        self.recompiles: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "metadata", None) or {}
        art = meta.get("artifact") or {}
        name = art.get("name")
        payload = getattr(record, "payload", None)
        if name == "dynamo_graph_break_reason" and payload:
            self.breaks.append(str(payload))
        elif name == "recompile_reasons" and payload is not None:
            self.recompiles.append(str(payload))


def context_of(source: str) -> dict[str, str]:
    """The compile context an example is for (``# context: mode=eval dtype=float32``): the
    static stage is told it (``Config.mode``/``Config.dtype``), ``observe`` runs in it."""
    m = CONTEXT.search(source)
    return dict(kv.split("=", 1) for kv in m.group(1).split()) if m else {}


def observe(source: str, tmp: Path) -> Observed | None:
    """None when the snippet defines nothing to compile (a module or ``fn``)."""
    import torch
    import torch._dynamo

    mod_name = f"cl_example_{uuid.uuid4().hex[:8]}"
    path = tmp / f"{mod_name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(mod_name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    spec.loader.exec_module(mod)
    env = {"torch": torch}
    m = INPUTS.search(source)
    inputs: tuple[Any, ...] = eval(m.group(1), env) if m else (torch.randn(4, 8),)
    v = VARIANTS.search(source)
    variants: list[tuple[Any, ...]] = eval(v.group(1), env) if v else []
    target: Any = None
    for obj in vars(mod).values():
        if (
            isinstance(obj, type)
            and issubclass(obj, torch.nn.Module)
            and obj.__module__ == mod_name
        ):
            target = obj()
            break
    if target is None:
        target = getattr(mod, "fn", None)
    if target is None:
        sys.modules.pop(mod_name, None)
        return None
    ctx = context_of(source)
    if isinstance(target, torch.nn.Module) and "mode" in ctx:
        target.train(ctx["mode"] == "train")
    if "dtype" in ctx:
        dt = getattr(torch, ctx["dtype"])
        if isinstance(target, torch.nn.Module):
            target = target.to(dt)
        inputs = tuple(
            a.to(dt) if torch.is_tensor(a) and a.is_floating_point() else a for a in inputs
        )
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    col = _Collector()
    log = logging.getLogger("torch.__trace")
    old_level = log.level
    log.addHandler(col)
    log.setLevel(logging.DEBUG)
    try:
        compiled = torch.compile(target, backend="eager")
        for args in [inputs, *variants]:
            compiled(*args)
    finally:
        log.removeHandler(col)
        log.setLevel(old_level)
        sys.modules.pop(mod_name, None)
    out = Observed()
    for msg in col.breaks:
        loc = _LOC.search(msg)
        gb = _GB.search(msg)
        if loc:
            out.breaks.add((gb.group(1) if gb else "?", loc.group(1), int(loc.group(2))))
        else:
            out.breaks.add((gb.group(1) if gb else "?", "?", 0))
    out.recompiles = col.recompiles
    out.counter_breaks = sum(torch._dynamo.utils.counters["graph_break"].values())
    torch._dynamo.reset()
    return out
