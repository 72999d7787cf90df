"""The dynamic stage in-process, on a live model: what ``compilelint.assert_compiles`` runs.

The same collectors and call loop as the child process (:mod:`compilelint.dynamic.runner`),
applied to a module or function the caller already built, with inputs the caller already made.
torch is imported when :func:`observe_live` is called, never at import time. Dynamo's caches and
counters are reset before and after, so the caller's later ``torch.compile`` calls start clean.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from compilelint.dynamic.runner import (
    Call,
    Collectors,
    StepError,
    call_phases,
    new_result,
    step,
)


def normalize_variants(variants: Iterable[Any]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Each variant as ``(args, kwargs)``: an ``(args_tuple, kwargs_dict)`` pair, a tuple or
    list of positional arguments, or a single positional argument."""
    out: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for v in variants:
        if (
            isinstance(v, tuple)
            and len(v) == 2
            and isinstance(v[0], (tuple, list))
            and isinstance(v[1], dict)
        ):
            out.append((tuple(v[0]), dict(v[1])))
        elif isinstance(v, (tuple, list)):
            out.append((tuple(v), {}))
        else:
            out.append(((v,), {}))
    return out


def _device_of(torch: Any, values: Sequence[Any]) -> str | None:
    for v in values:
        if isinstance(v, torch.Tensor):
            return str(v.device)
    return None


def _save_counters() -> dict[str, dict[str, int]] | None:
    """A copy of ``torch._dynamo.utils.counters`` (the collectors clear them)."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return None
    return {k: dict(v) for k, v in counters.items()}


def _restore_counters(saved: dict[str, dict[str, int]] | None) -> None:
    if saved is None:
        return
    from torch._dynamo.utils import counters

    counters.clear()
    for k, v in saved.items():
        counters[k].update(v)


def observe_live(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    variants: Iterable[Any] = (),
    *,
    root: str | None = None,
) -> dict[str, Any]:
    """Compile ``fn`` with the collecting backend, call it with ``args``/``kwargs`` and then
    each variant, and return the raw result (read by
    :func:`compilelint.dynamic.api.build_result`). Dynamo's caches are reset and its counters
    restored afterwards; an exception raised by ``fn`` propagates unchanged."""
    import torch
    import torch._dynamo

    root = os.path.realpath(root or os.getcwd())
    t0 = time.perf_counter()
    result = new_result(root, config={}, mode="as called")
    result["torch"] = torch.__version__
    result["device"] = _device_of(torch, [*args, *kwargs.values()])
    result["compile"] = {
        "backend": "compilelint collecting eager backend",
        "mode": None,
        "dynamic": None,
        "fullgraph": False,
        "traced_with": "compilelint collecting eager backend (in-process)",
    }
    calls: list[Call] = [("inputs", list(args), dict(kwargs), 1)]
    for i, (vargs, vkw) in enumerate(normalize_variants(variants), 1):
        calls.append((f"variant {i}", list(vargs), vkw, 1))
    torch._dynamo.reset()
    saved = _save_counters()
    try:
        with Collectors(torch, root) as col:
            try:
                with step("compile"):
                    compiled = torch.compile(fn, backend=col.backend)
                call_phases(torch, compiled, calls, col, result)
            finally:
                col.fill(result)
    except StepError as se:
        raise se.exc from None
    finally:
        torch._dynamo.reset()
        _restore_counters(saved)
        result["seconds"] = round(time.perf_counter() - t0, 4)
    return result
