"""What a ``.tolist()`` list is used for, when it is not kept on ``self`` (CL105).

- read only by observing code (``log.debug("lengths %s", lengths)``, ``print``, through
  ``max(lengths)`` and other statements computing only what the log reads): the group runs
  only in eager (``logged``), as CL105 does for lists on ``self``;
- split sizes (``x.split(counts.tolist())``, ``torch.split(x, sizes)``): ``torch.split`` takes
  Python sizes only (a tensor of sizes is refused), so the list must stay a list. Under
  ``torch._dynamo.config.capture_scalar_outputs = True`` dynamo traces ``.tolist()`` as symbolic
  sizes instead of breaking the graph (and, when the counts come from a boolean mask,
  ``capture_dynamic_output_shape_ops`` lets the selection be traced too: on torch 2.13 the
  EViT-style ``x[keep]`` + ``split(keep.sum(1).tolist())`` compiles to one graph with both).
  That is a process-wide setting: proposed after the file's imports, never applied
  (``split_sizes_proposal``); the verifier's config remedies write it where the project
  compiles the model.
- returned by ``forward`` (``return out, lengths.tolist()``, through a local name or a tuple,
  list or dict display): the caller sees a Python list, which no traced code gives without
  reading the tensor. Proposed, never applied: return ``t.detach()`` and call ``.tolist()``
  after the compiled call (``returned_list``).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes, bound_names, name_nodes
from compilelint.fix.codemods.guard import observing_call
from compilelint.fix.context import FixContext
from compilelint.fix.records import Proposal

_SPLITS = {"split", "split_with_sizes"}


def logged(group: list[cst.BaseStatement]) -> bool:
    """Is the group only a log line and the local names it reads: every statement a report
    (a print, a log line, a warning) or an assignment to plain local names, and one report?
    A store into a tensor (``y[order] = ...``), an attribute or a loop is model code, not
    observation, even when the verifier could tell."""
    reports = 0
    for st in group:
        if not isinstance(st, cst.SimpleStatementLine):
            return False
        for small in st.body:
            if isinstance(small, cst.Expr) and observing_call(small.value):
                reports += 1
            elif isinstance(small, cst.Assign) and all(
                isinstance(t.target, cst.Name) for t in small.targets
            ):
                if any(observing_call(n) for n in all_nodes(small.value)):
                    return False
            else:
                return False
    return reports > 0


def split_of(ctx: FixContext, e: cst.CSTNode) -> cst.Call | None:
    """The ``split`` call ``e`` (a ``.tolist()``) is the sizes argument of, or None."""
    return _split_arg(ctx, e)


def _split_arg(ctx: FixContext, e: cst.CSTNode) -> cst.Call | None:
    """The ``split`` call ``e`` is the sizes argument of, or None."""
    arg = ctx.parent(e)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value not in _SPLITS:
        return None
    pos = [a for a in call.args if a.keyword is None]
    is_torch = isinstance(call.func.value, cst.Name) and call.func.value.value == "torch"
    want = pos[1] if is_torch and len(pos) > 1 else pos[0] if pos and not is_torch else None
    kw = next(
        (a for a in call.args if a.keyword and a.keyword.value == "split_size_or_sections"), None
    )
    return call if arg is want or arg is kw else None


def split_sizes_proposal(
    ctx: FixContext, tolist: cst.Call, seed: cst.BaseStatement
) -> Proposal | None:
    """The config proposal when the list of ``tolist`` is used as split sizes, else None."""
    where = _split_arg(ctx, tolist)
    if where is None:
        a = (
            seed.body[0]
            if isinstance(seed, cst.SimpleStatementLine) and len(seed.body) == 1
            else None
        )
        if not (
            isinstance(a, cst.Assign)
            and a.value is tolist
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
        ):
            return None
        fn = ctx.function(seed)
        name = a.targets[0].target.value
        if fn is None or len(bound_names(fn).get(name, [])) != 1:
            return None
        uses = [_split_arg(ctx, r) for r in name_nodes(fn.body, name, reads_only=True)]
        where = next((u for u in uses if u is not None), None)
        if where is None:
            return None
    body = list(ctx.module.body)
    last = None
    for st in body:
        if isinstance(st, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body
        ):
            last = st
        elif last is not None:
            break
    if last is None:
        return None
    line = cst.parse_statement(
        "torch._dynamo.config.capture_scalar_outputs = True  # `.tolist()` sizes stay symbolic\n"
    )
    return Proposal(
        title=(
            "set `torch._dynamo.config.capture_scalar_outputs = True` where you compile the "
            "model: `.tolist()` then gives symbolic sizes to `split` instead of breaking the graph"
        ),
        changes=[(last, cst.FlattenSentinel([last, line]))],
        reason=(
            f"the list is the sizes of `{ctx.code(where).strip()[:60]}`, which takes Python sizes "
            "only (`torch.split` refuses a tensor of sizes), so it cannot stay a tensor; the "
            "setting is process-wide (every compiled function traces `.item()`/`.tolist()` "
            "symbolically), so it is proposed, not applied: set it where you call "
            "`torch.compile` (add `capture_dynamic_output_shape_ops = True` when the counts come "
            "from a boolean mask, `x[mask]`)"
        ),
        imports=("torch",),
    )


def returned_list(ctx: FixContext, tolist: cst.Call) -> Proposal | None:
    """The proposal to return the tensor when the list of ``tolist`` is returned by
    ``forward`` and used nowhere else: directly or inside displays (``return out,
    t.tolist()``), or through a local name bound once whose every read is so returned. None
    otherwise. The caller then gets a tensor where it got a list (another type), hence a
    proposal: the patch replaces ``t.tolist()`` by ``t.detach()``, and the caller calls
    ``.tolist()`` on it after the compiled call."""
    from compilelint.fix.codemods.cl103_tensor_item import _kept, _line, _unpacked_into, detached

    fn = ctx.function(tolist)
    if fn is None or fn.name.value != "forward":
        return None
    ends = []
    kept = _kept(ctx, tolist)
    if kept is not None:
        ends.append(kept)
    else:
        a = ctx.parent(tolist)
        if not (
            isinstance(a, cst.Assign)
            and a.value is tolist
            and len(a.targets) == 1
            and isinstance(a.targets[0].target, cst.Name)
        ):
            return None
        name = a.targets[0].target.value
        if len(bound_names(fn).get(name, [])) != 1:
            return None
        for r in name_nodes(fn.body, name, reads_only=True):
            if _unpacked_into(ctx, r):
                return None
            k = _kept(ctx, r)
            if k is None:
                return None
            ends.append(k)
    if not ends or any(e.returned is None for e in ends):
        return None
    ret = ends[0].returned
    assert ret is not None
    recv = tolist.func.value  # type: ignore[attr-defined]
    new = detached(recv)
    return Proposal(
        title=(
            "return the tensor, not its list: `.tolist()` -> `.detach()`; call `.tolist()` on "
            "it after the compiled call"
        ),
        changes=[(tolist, new)],
        reason=(
            f"the list is returned by `forward` (`{_line(ctx, ret)}`): the caller sees a Python "
            "list, which traced code cannot give without reading the tensor (the graph break); "
            "returned as a detached tensor, the caller gets a tensor there instead (another "
            "type), so it is proposed, not applied"
        ),
    )
