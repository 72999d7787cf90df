"""Module-level constants of a library's files, for library mode (``Project.module_constant``).

A module-level name bound once to a literal (pytorch-metric-learning's ``COLLECT_STATS =
False``) holds that value when a user first calls the package's entry points, unless some file
of the package stores it through the module (``c_f.COLLECT_STATS = True``). Read from CPython's
parse of the text, on demand: only library mode asks, so a scan of model files pays nothing.
"""

from __future__ import annotations

import ast
import re
from typing import Any

# an attribute of a name stored by an assignment statement (``c_f.COLLECT_STATS = True``, ``m.X += 1``)
_ATTR_STORE = re.compile(
    rb"^[ \t]*([A-Za-z_]\w*)\.([A-Za-z_]\w*)[ \t]*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)", re.M
)
_GLOBAL = re.compile(rb"^[ \t]*global[ \t]+([\w \t,]+)", re.M)


def module_constants(
    tree: ast.Module | None, imports: dict[str, str] | None, source: bytes | None
) -> dict[str, Any]:
    """``module_consts`` and ``module_stores`` of a module, from CPython's parse of its
    text (``tree``, parsed here when None): the module-level names bound once, by a plain assignment of a literal at the top
    level (``COLLECT_STATS = False``), that no ``global`` statement of the file and no other
    binding at module level (in a branch, a loop, an import, a definition) re-binds; and the
    ``<module>.<name>`` attributes the file stores through a module it imports
    (``c_f.COLLECT_STATS = True``: not a constant), ``*.<name>`` where the imports are not
    known (``imports`` None: a file only syntax-checked). Both empty without the text."""
    if source is None:
        return {}
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            return {}
    counts: dict[str, int] = {}
    consts: dict[str, object] = {}
    aliases: dict[str, tuple[str, bool]] = {}  # name -> (the earlier constant, negated)

    def count(name: str, n: int = 1) -> None:
        counts[name] = counts.get(name, 0) + n

    def count_targets(node: ast.AST, n: int = 1) -> None:
        for sub in ast.walk(node):
            if type(sub) is ast.Name:
                count(sub.id, n)
            elif type(sub) in (ast.MatchAs, ast.MatchStar) and sub.name:  # type: ignore[attr-defined]
                count(sub.name, n)  # type: ignore[attr-defined]

    def bindings(body: list[ast.stmt]) -> None:
        """Count the names the module-level statements ``body`` bind (their expressions are
        not walked: a walrus at module level is not seen)."""
        for stmt in body:
            t = type(stmt)
            if t is ast.Assign:
                for tg in stmt.targets:  # type: ignore[attr-defined]
                    count_targets(tg)
            elif t is ast.AnnAssign:
                count_targets(stmt.target)  # type: ignore[attr-defined]
            elif t in (ast.AugAssign, ast.For, ast.AsyncFor):
                # (bound twice: no constant)
                count_targets(stmt.target, 2)  # type: ignore[attr-defined]
            elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                count(stmt.name)  # type: ignore[attr-defined]
            elif t in (ast.Import, ast.ImportFrom):
                for al in stmt.names:  # type: ignore[attr-defined]
                    count(al.asname or al.name.partition(".")[0])
            elif t in (ast.With, ast.AsyncWith):
                for item in stmt.items:  # type: ignore[attr-defined]
                    if item.optional_vars is not None:
                        count_targets(item.optional_vars)
            elif t is ast.Delete:
                for tg in stmt.targets:  # type: ignore[attr-defined]
                    count_targets(tg, 2)
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if type(inner) is list and t not in (
                    ast.FunctionDef,
                    ast.AsyncFunctionDef,
                    ast.ClassDef,
                ):
                    bindings(inner)
            for h in getattr(stmt, "handlers", ()):
                if h.name:
                    count(h.name)
                bindings(h.body)
            for case in getattr(stmt, "cases", ()):
                count_targets(case.pattern, 2)  # (capture patterns)
                bindings(case.body)

    for stmt in tree.body:
        if (
            type(stmt) is ast.Assign
            and len(stmt.targets) == 1
            and type(stmt.targets[0]) is ast.Name
        ):
            v = stmt.value
            if (
                type(v) is ast.UnaryOp
                and type(v.op) is ast.USub
                and type(v.operand) is ast.Constant
            ):
                neg = v.operand.value
                lit: object = (
                    -neg if isinstance(neg, (int, float)) and type(neg) is not bool else ...
                )
            elif type(v) is ast.Name or (
                type(v) is ast.UnaryOp and type(v.op) is ast.Not and type(v.operand) is ast.Name
            ):
                # a constant of an earlier one (`USE_CACHE = DEFAULT_USE_CACHE`, `FAST = not
                # DEBUG`): resolved once both are known to be bound once
                inner: Any = getattr(v, "operand", v)
                name_of = str(inner.id)
                if name_of in consts or name_of in aliases:  # (bound above it)
                    aliases[stmt.targets[0].id] = (name_of, type(v) is not ast.Name)
                continue
            else:
                lit = v.value if type(v) is ast.Constant else ...
            if lit is None or type(lit) in (bool, int, float, str):
                consts[stmt.targets[0].id] = lit
    bindings(tree.body)
    rebound = (
        {n.strip() for m in _GLOBAL.finditer(source) for n in m.group(1).decode().split(",")}
        if b"global" in source
        else set()
    )
    out = {k: v for k, v in consts.items() if counts.get(k) == 1 and k not in rebound}
    for k, (of, neg) in aliases.items():  # (in order: an alias of an earlier alias too)
        if of in out and counts.get(k) == 1 and k not in rebound:
            out[k] = (not out[of]) if neg else out[of]
    return {"module_consts": out, "module_stores": module_stores(imports, source)}


def module_stores(imports: dict[str, str] | None, source: bytes) -> list[str]:
    """The ``<module>.<name>`` attributes the text ``source`` stores through a module it
    imports (``c_f.COLLECT_STATS = True``), ``*.<name>`` where ``imports`` (local name ->
    module) is not known. A pattern over the lines, no parse."""
    stores: set[str] = set()
    for m in _ATTR_STORE.finditer(source):
        head, attr = m.group(1).decode(), m.group(2).decode()
        if head == "self":
            continue
        if imports is None:
            stores.add(f"*.{attr}")
        elif head in imports:
            stores.add(f"{imports[head]}.{attr}")
    return sorted(stores)
