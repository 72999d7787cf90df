"""A guard every rewrite passes: it may not make the code read an attribute of a non-torch
module (``np.device``, ``np.new_zeros``) that the original code does not read.

Codemods that handle a tensor's method form (``x.bincount(...)``) and torch's function form
(``torch.bincount(x, ...)``) read ``np.bincount(x, ...)`` as the method form of a tensor named
``np`` when they only ask "is the receiver torch?": the fixed model then fails with
``AttributeError: module 'numpy' has no attribute ...``. The receiver check now lives in
:meth:`FixContext.foreign_module` (a name bound by ``import``), and this guard refuses any
rewrite or proposal that would add such a read, whatever codemod made it.
"""

from __future__ import annotations

import importlib
import sys

import libcst as cst

from compilelint.fix.context import FixContext
from compilelint.fix.records import Proposal, Rewrite


def _module_reads(ctx: FixContext, node: cst.CSTNode) -> set[tuple[str, str, str]]:
    """(alias, module, attribute) of each ``alias.attr`` under ``node``."""
    out: set[tuple[str, str, str]] = set()

    def walk(n: cst.CSTNode) -> None:
        if isinstance(n, cst.Attribute):
            mod = ctx.foreign_module(n.value)
            if mod is not None:
                out.add((n.value.value, mod, n.attr.value))  # type: ignore[attr-defined]
        for c in n.children:
            walk(c)

    walk(node)
    return out


_SAFE_TO_IMPORT = frozenset({"numpy"})


def _exists(mod: str, attr: str) -> bool | None:
    """Whether module ``mod`` has ``attr`` (None: not known without importing user code)."""
    root = mod.split(".")[0]
    if not (root in sys.stdlib_module_names or root in _SAFE_TO_IMPORT or mod in sys.modules):
        return None
    try:
        m = importlib.import_module(mod)
    except Exception:  # not installed here: unknown
        return None
    return hasattr(m, attr)


def foreign_attrs_added(ctx: FixContext, res: Rewrite | Proposal) -> str | None:
    """``mod.attr`` that ``res``'s new code reads, its replaced code does not, and the module
    does not have (or may not: a module that is not imported here); None: none."""
    before: set[tuple[str, str, str]] = set()
    after: set[tuple[str, str, str]] = set()
    for old, new in res.changes:
        before |= _module_reads(ctx, old)
        news = new.nodes if isinstance(new, cst.FlattenSentinel) else [new]
        for n in news:
            if isinstance(n, cst.CSTNode):
                after |= _module_reads(ctx, n)
    for alias, mod, attr in sorted(after - before):
        if mod in res.imports and _exists(mod, attr) is not False:
            continue  # a module the rewrite itself names (``contextlib.nullcontext``)
        if _exists(mod, attr):
            continue
        return f"{alias}.{attr}"
    return None
