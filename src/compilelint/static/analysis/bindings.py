"""What a statement of CPython's tree binds and reads, in the names a frame keeps (``x``,
``self.x``: :func:`key_of`): its targets and in-place receivers (:func:`bound_keys`), whether a
node reads any of some names (:func:`reads_any`), and the names it only stores Python numbers
read from tensors in (:func:`stored_numbers`: ``n = x.item()``); and the outside names a
comprehension's own frame reads (:func:`comprehension_reads`).
"""

from __future__ import annotations

import ast


def key_of(e: ast.AST) -> str:
    """``x`` for a name, ``self.x`` for an attribute of ``self``, else ``""``."""
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        return f"self.{e.attr}"
    return ""


def bound_keys(st: ast.stmt) -> set[str]:
    """What a statement binds: its assignment targets (tuples unpacked), and the receiver of
    an in-place method call statement (``x.mul_(m)``)."""
    targets: list[ast.AST] = []
    if isinstance(st, ast.Assign):
        targets = list(st.targets)
    elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
        targets = [st.target]
    elif (
        isinstance(st, ast.Expr)
        and isinstance(st.value, ast.Call)
        and isinstance(st.value.func, ast.Attribute)
        and st.value.func.attr.endswith("_")
    ):
        targets = [st.value.func.value]
    out: set[str] = set()
    while targets:
        t = targets.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        elif isinstance(t, ast.Starred):
            targets.append(t.value)
        elif key := key_of(t):
            out.add(key)
    return out


def reads_any(node: ast.AST, keys: set[str]) -> bool:
    """Whether ``node`` loads any of ``keys`` (:func:`key_of`'s names: ``x``, ``self.x``)."""
    if not keys:
        return False
    for n in ast.walk(node):
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            if key_of(n) in keys:
                return True
    return False


def is_read_out(e: ast.expr, draw: bool = False) -> bool:
    """``t.item()`` / ``t.tolist()``: a number read from a tensor, nothing done with it yet;
    with ``draw``, any call (the break's draw, ``r = random.random()``)."""
    return isinstance(e, ast.Call) and (
        draw or (isinstance(e.func, ast.Attribute) and e.func.attr in ("item", "tolist"))
    )


def stored_numbers(stmt: ast.stmt, draw: bool = False) -> set[str]:
    """The names a statement only stores numbers read from tensors in: ``n = x.item()``, and
    ``lo, hi = lo.item(), hi.item()`` (each element a read-out); empty when the statement goes
    on with a number (``if x.item() > t:``, ``n = int(x.item()) + 1``)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return set()
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and is_read_out(value, draw):
        return {target.id}
    if (
        isinstance(target, ast.Tuple)
        and isinstance(value, ast.Tuple)
        and len(target.elts) == len(value.elts)
        and all(isinstance(t, ast.Name) for t in target.elts)
        and all(is_read_out(v, draw) for v in value.elts)
    ):
        return {t.id for t in target.elts if isinstance(t, ast.Name)}
    return set()


def comprehension_reads(comp: ast.expr, names: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` of the reads of ``names`` that reach a comprehension's own frame, when
    the frame does work dynamo traces (an index or a call): inside it (a name the comprehension
    binds itself is not read from outside), and in its first iterable, which the enclosing
    frame evaluates and passes as the frame's argument (a ``range`` iterator is guarded on its
    bounds, ``___normalize_range_iter(.0) == (0, 2, 1)``, at the comprehension's line)."""
    gens: list[ast.comprehension] = getattr(comp, "generators", [])
    if not gens:
        return []
    bound = {n.id for g in gens for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    parts: list[ast.AST] = [
        *(getattr(comp, f) for f in ("elt", "key", "value") if hasattr(comp, f)),
        *(c for g in gens for c in g.ifs),
        *(g.iter for g in gens[1:]),
    ]
    if not any(isinstance(n, (ast.Subscript, ast.Call)) for p in parts for n in ast.walk(p)):
        return []
    inside = [
        (n.lineno, n.id)
        for p in parts
        for n in ast.walk(p)
        if isinstance(n, ast.Name)
        and isinstance(n.ctx, ast.Load)
        and n.id in names
        and n.id not in bound
    ]
    first = [
        (comp.lineno, n.id)
        for n in ast.walk(gens[0].iter)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
    ]
    return inside + first
