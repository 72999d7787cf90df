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
from typing import Any


def assert_no_graph_break(model: Any, inputs: tuple[Any, ...]) -> None:
    """``explain`` of a copy of ``model`` on ``inputs`` counts one graph and no break; the
    model, the inputs and the random generators are left as they were."""
    import torch

    twin = copy.deepcopy(model)
    args = tuple(a.detach().clone() if isinstance(a, torch.Tensor) else a for a in inputs)
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


def compile_without_break(model: Any, inputs: tuple[Any, ...]) -> Any:
    """``torch.compile(model, backend="eager", fullgraph=True)`` after
    :func:`assert_no_graph_break` on the same inputs."""
    import torch

    assert_no_graph_break(model, inputs)
    return torch.compile(model, backend="eager", fullgraph=True)
