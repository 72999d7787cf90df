"""Shared checks for the torch-marked VALID tests of the fix codemods.

``torch.compile(..., fullgraph=True)`` alone does not prove a fixed model has no graph
break on torch 2.13: there a ``.item()`` read feeding tensor arithmetic compiles under
``fullgraph=True`` (``torch.compile(lambda x: x * x.sum().item(), fullgraph=True)`` runs),
while ``torch._dynamo.explain`` and the dynamic stage, which compile as users do, count a
break at that line. :func:`compile_without_break` therefore asks ``explain`` first, on a
copy of the model with the random state put back, and only then compiles the model itself.
"""

from __future__ import annotations

import copy
import random
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


def assert_no_graph_break(model: Any, inputs: tuple[Any, ...], *, keep_grad: bool = False) -> None:
    """``explain`` of a copy of ``model`` on ``inputs`` counts one graph and no break; the
    model, the inputs and the random generators are left as they were. ``explain`` gets
    detached copies of the tensor inputs; ``keep_grad``: the copies of inputs that require
    grad are leaves that require grad too (a model that takes the gradient with respect to
    its input, as a PINN does, traces otherwise)."""
    import torch

    twin = copy.deepcopy(model)
    args = tuple(
        a.detach().clone().requires_grad_(keep_grad and a.requires_grad)
        if isinstance(a, torch.Tensor)
        else a
        for a in inputs
    )
    cpu_state, py_state = torch.get_rng_state(), random.getstate()
    torch._dynamo.reset()
    try:
        result = torch._dynamo.explain(twin)(*args)
    finally:
        torch.set_rng_state(cpu_state)
        random.setstate(py_state)
        torch._dynamo.reset()
    reasons = [str(getattr(b, "reason", b))[:300] for b in result.break_reasons]
    # torch 2.13's explain can list a break reason with a count of 0 and one graph (a
    # `nonzero` of an intermediate tensor: "Dynamic shape operator"), so the reasons are
    # checked as well as the count
    assert result.graph_break_count == 0 and not reasons, reasons
    assert result.graph_count == 1, f"{result.graph_count} graphs"


def compile_without_break(model: Any, inputs: tuple[Any, ...], *, keep_grad: bool = False) -> Any:
    """``torch.compile(model, backend="eager", fullgraph=True)`` after
    :func:`assert_no_graph_break` on the same inputs (``keep_grad``: as there)."""
    import torch

    assert_no_graph_break(model, inputs, keep_grad=keep_grad)
    return torch.compile(model, backend="eager", fullgraph=True)


def outputs_and_grads(
    mod: Any,
    inputs: tuple[Any, ...],
    compiled: bool,
    *,
    model_kw: dict[str, Any] | None = None,
    loss: Callable[[Any], Any] = lambda o: o.float().sum(),
    whole: bool = True,
) -> tuple[list[Any], list[Any]]:
    """A fresh ``mod.Model(**model_kw)`` (made with seed 0) called on ``inputs``, as it is or
    through :func:`compile_without_break` (``whole=False``: ``torch.compile`` with the eager
    backend, breaks allowed): its outputs (each of a tuple or list), detached after a backward
    of the sum of ``loss`` of each, and its parameters' gradients (``None`` where a parameter
    got none)."""
    import torch

    torch.manual_seed(0)
    model = mod.Model(**(model_kw or {}))
    torch._dynamo.reset()
    if not compiled:
        fn = model
    elif whole:
        fn = compile_without_break(model, inputs)
    else:
        fn = torch.compile(model, backend="eager")
    out = fn(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    sum(loss(o) for o in outs).backward()
    return [o.detach() for o in outs], [p.grad for p in model.parameters()]


def assert_same_as_original(
    original: Any,
    fixed: Any,
    inputs: tuple[Any, ...],
    *,
    model_kw: dict[str, Any] | None = None,
    loss: Callable[[Any], Any] = lambda o: o.float().sum(),
    whole: bool = True,
) -> None:
    """The fixed module's model, uncompiled and compiled without a break (``whole=False``:
    compiled, breaks allowed), gives the outputs and parameter gradients (values, dtypes,
    ``None`` where none) of the original module's model run uncompiled
    (:func:`outputs_and_grads` of each)."""
    import torch

    want = outputs_and_grads(original, inputs, False, model_kw=model_kw, loss=loss)
    for compiled in (False, True):
        got = outputs_and_grads(fixed, inputs, compiled, model_kw=model_kw, loss=loss, whole=whole)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])


def logged_break_lines(model: Any, x: Any, file_marker: str) -> set[int]:
    """The lines of the files whose name contains ``file_marker`` (``<lib23f_``, a module's
    ``<name>``) where torch logs a graph break while compiling ``model`` on ``x`` with the
    eager backend: the ``graph_breaks`` log names every break, also those of a frame torch
    then skips, which ``explain`` does not count."""
    import logging

    import torch

    lines: set[int] = set()
    at = f" at <{file_marker}"

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            for line in record.getMessage().splitlines():
                line = line.strip()
                if line.startswith("Graph break") and at in line:
                    num = line.rsplit(":", 1)[1]
                    if num.isdigit():
                        lines.add(int(num))

    log = logging.getLogger("torch._dynamo")
    handler = Grab()
    torch._logging.set_logs(graph_breaks=True)
    log.addHandler(handler)
    try:
        torch._dynamo.reset()
        torch.compile(model, backend="eager")(x)
    finally:
        log.removeHandler(handler)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return lines


def logged_break_user_lines(
    fn: Any, args: tuple[Any, ...], file_marker: str, *, compiled: bool = True
) -> set[int]:
    """Like :func:`logged_break_lines` for ``fn(*args)``, but a break torch logs inside its own
    code (``Optimizer.step``'s ``torch._dynamo.graph_break()`` at ``torch/optim/optimizer.py``)
    counts at the last line of the marked file in the record's user code traceback: the line
    of the user's code that called into it. ``compiled=False`` calls ``fn`` as it is (its own
    ``torch.compile`` regions log their breaks)."""
    import logging
    import re

    import torch

    lines: set[int] = set()
    at = f" at <{file_marker}"
    frame = re.compile(rf'File "<{re.escape(file_marker)}>", line (\d+)')

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            msg = record.getMessage()
            head = msg.strip().splitlines()[0] if msg.strip() else ""
            if not head.startswith("Graph break"):
                return
            if at in head:
                num = head.rsplit(":", 1)[1]
                if num.isdigit():
                    lines.add(int(num))
                return
            user = msg.split("User code traceback:", 1)
            found = frame.findall(user[1]) if len(user) == 2 else []
            if found:
                lines.add(int(found[-1]))

    log = logging.getLogger("torch._dynamo")
    handler = Grab()
    torch._logging.set_logs(graph_breaks=True)
    log.addHandler(handler)
    try:
        torch._dynamo.reset()
        (torch.compile(fn, backend="eager") if compiled else fn)(*args)
    finally:
        log.removeHandler(handler)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return lines


def in_memory_package(
    monkeypatch: pytest.MonkeyPatch, name: str, modules: dict[str, str]
) -> ModuleType:
    """A package ``name`` built in memory from ``modules`` (module name -> source), each module
    compiled under the file name ``<{name without "pkg"}{module}>`` so that torch's logs name it;
    the package is removed from ``sys.modules`` when the test ends."""
    pkg = ModuleType(name)
    pkg.__path__ = []  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, pkg)
    marker = name.removesuffix("pkg")
    for mod_name, text in modules.items():
        mod = ModuleType(f"{name}.{mod_name}")
        mod.__package__ = name
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
        setattr(pkg, mod_name, mod)
        exec(compile(text, f"<{marker}{mod_name}>", "exec"), mod.__dict__)
    return pkg
