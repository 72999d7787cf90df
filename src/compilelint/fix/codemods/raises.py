"""Whether a ``raise`` under a tensor condition is an error check or control flow (CL101).

``if (entropy < thr).all(): raise ValueError("collapsed")`` checks an invariant: CL101 turns it
into ``torch._assert_async(torch.logical_not(cond), msg)``, traced without a break (torch 2.13;
the catalogue's example checks it). ``if (entropy < thr).all(): raise StopIteration`` in a
decoding step whose caller does ``except StopIteration: break`` ends a loop: the exception is
control flow, and an in-graph assertion would turn the early stop into an error (a
``RuntimeError`` no ``except`` catches), while a run whose condition never holds would verify
it. Such a raise gets no rewrite and the recipe a PyTorch engineer uses: compile the step
without the stop test, return the stop flag as a tensor and test it outside the compiled
region.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes

# exceptions that only ever end iteration
_ITERATION = {"StopIteration", "StopAsyncIteration", "GeneratorExit"}
_BROAD = {"Exception", "BaseException"}

RECIPE = (
    "compile the step without the stop test: return the stop flag as a tensor "
    "(`stop = (entropy < thr).all()`) and test it outside the compiled region "
    "(`if stop: break` in the eager loop), or keep the graph break"
)


def _names(t: cst.BaseExpression | None) -> set[str]:
    if t is None:
        return {"BaseException"}  # a bare `except:`
    if isinstance(t, cst.Tuple):
        return {n for e in t.elements for n in _names(e.value)}
    if isinstance(t, cst.Attribute):
        return {t.attr.value}
    if isinstance(t, cst.Name):
        return {t.value}
    return set()


def _bases(module: cst.Module) -> dict[str, set[str]]:
    """Classes of the module and the names of their bases."""
    out: dict[str, set[str]] = {}
    for n in all_nodes(module):
        if isinstance(n, cst.ClassDef):
            out[n.name.value] = {b for a in n.bases for b in _names(a.value)}
    return out


def control_flow(module: cst.Module, exc: cst.BaseExpression) -> str | None:
    """Why raising ``exc`` (a class or a call building one) is control flow, or None: an
    iteration-ending exception (or a class of the module derived from one), or one that an
    ``except`` of the same module catches by name."""
    f = exc.func if isinstance(exc, cst.Call) else exc
    name = f.attr.value if isinstance(f, cst.Attribute) else getattr(f, "value", None)
    if not isinstance(name, str):
        return None
    bases = _bases(module)
    lineage = {name}
    todo = [name]
    while todo:
        for b in bases.get(todo.pop(), set()):
            if b not in lineage:
                lineage.add(b)
                todo.append(b)
    if lineage & _ITERATION:
        return f"`{name}` ends an iteration: the raise is control flow (an early stop)"
    for n in all_nodes(module):
        if isinstance(n, cst.ExceptHandler) and (_names(n.type) & lineage):
            return (
                f"`{name}` is caught by an `except` of this file: the raise is control flow "
                "(an early stop), which an in-graph assertion would turn into an error"
            )
    return None
