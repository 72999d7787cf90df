"""CL105: a ``.tolist()`` whose list is only kept for observation runs only in eager.

- ``self.last_load = probs.sum(0).tolist()`` (no code of the class reads it back in traced
  code)                          -> the statement under ``if not torch.compiler.is_compiling():``
- ``load = t.tolist()`` ... ``self.stats["load"] = load``
                                 -> both statements under the guard (every statement reading
                                    what the guarded ones bind goes with them)

Compiled calls skip the store: the attribute keeps the list of the last eager call, and keeps
its type (a tensor in its place would concatenate as ``+`` adds, and ``json.dumps`` refuses
it). A list that is returned, or that the traced code reads back, gets no fix.

- ``lengths = mask.sum(-1).tolist()`` read only by ``log.debug(...)`` (a local list)
                                 -> the statements under the guard (``tolist_uses.logged``)
- ``torch.stack([u.mean(0) for u in h.split(counts.tolist())])`` (pieces only reduced, also
  through a loop appending to a list)
                                 -> one segment reduction, ``index_add_`` over
                                    ``repeat_interleave`` segment ids (``segments``)
- ``x.split(counts.tolist())`` otherwise (split sizes: ``torch.split`` takes no tensor of sizes)
                                 -> proposed, never applied: ``capture_scalar_outputs`` (a
                                    process-wide setting; ``tolist_uses``)
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from compilelint.fix.codemods import moe
from compilelint.fix.codemods.accumulators import key_counts
from compilelint.fix.codemods.base import Codemod
from compilelint.fix.codemods.cl103_tensor_item import _self_store, _store_readers
from compilelint.fix.codemods.id_loops import element_updates
from compilelint.fix.codemods.lengths import lengths_rewrite
from compilelint.fix.codemods.observe import _statement, guard_group, guard_rewrite
from compilelint.fix.codemods.operands import unpacked_elements
from compilelint.fix.codemods.segments import segment_reduction
from compilelint.fix.codemods.tolist_uses import (
    logged,
    returned_list,
    split_of,
    split_sizes_proposal,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding


class TolistObservedEagerOnly(Codemod):
    CODE = "CL105"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, cst.Attribute) and c.func.attr.value == "tolist" and not c.args
        ]
        if not calls:
            return NoFix("the `.tolist()` call was not found in the file")
        elements = unpacked_elements(ctx, calls[0])
        if isinstance(elements, Rewrite):
            # `lo, hi = t.tolist()` used where tensors are taken: `t.detach().unbind(0)`
            return elements
        dense = moe.sorted_dispatch(ctx, calls[0]) or moe.count_dispatch(ctx, calls[0])
        if dense is not None:
            return dense
        counted = key_counts(ctx, calls[0])
        if counted is not None:
            return counted
        per_id = element_updates(ctx, calls[0])
        if per_id is not None:
            # `for tok in set(ids.tolist()): x[b, tok] *= p`: one gather and one scatter
            return per_id
        pieces = segment_reduction(ctx, calls[0])
        if pieces is not None:
            return pieces
        lengths = lengths_rewrite(ctx, calls[0])
        if lengths is not None:
            # `torch.stack([torch.arange(T) < n for n in lengths.tolist()])`: a mask
            return lengths
        split = split_of(ctx, calls[0])
        seed = _statement(ctx, calls[0])
        stmt = ctx.statement(calls[0])
        if split is not None and stmt is not None and not isinstance(stmt, cst.SimpleStatementLine):
            sizes = split_sizes_proposal(ctx, calls[0], stmt)
            if sizes is not None:
                return _pieces_reason(sizes, split)
        if seed is None or not isinstance(seed, cst.SimpleStatementLine):
            return NoFix("the `.tolist()` is not in a simple statement of a function body")
        group = guard_group(ctx, seed, "list")
        if isinstance(group, NoFix):
            sizes = split_sizes_proposal(ctx, calls[0], seed)
            if sizes is not None:
                return _pieces_reason(sizes, split)
            back = returned_list(ctx, calls[0])
            if back is not None:
                # `return out, lengths.tolist()`: the caller reads the list
                return back
            return NoFix(
                f"{group.reason}; keep the values in a tensor where the model uses them, and "
                "read the list outside the compiled region"
            )
        stored = False
        for st in group:
            for small in st.body if isinstance(st, cst.SimpleStatementLine) else ():
                if not isinstance(small, cst.Assign):
                    continue
                for t in small.targets:
                    if _self_store(t.target) is None:
                        continue
                    got = _store_readers(ctx, small)
                    if isinstance(got, NoFix):
                        return got
                    stored = True
        if not stored and logged(group):
            return guard_rewrite(
                ctx,
                group,
                "the list is only read by a log line: it is read, with what reads it, only in "
                "eager, under `if not torch.compiler.is_compiling():`",
            )
        if not stored:
            sizes = split_sizes_proposal(ctx, calls[0], seed)
            if sizes is not None:
                return _pieces_reason(sizes, split)
            return NoFix(
                "the list is not kept on `self` (nothing but observation would read it): a "
                "dead value, or one read where the codemod cannot see"
            )
        return guard_rewrite(
            ctx,
            group,
            "the list is only kept for observation: store it only in eager, under "
            "`if not torch.compiler.is_compiling():`",
        )


def _pieces_reason(p: Proposal, split: cst.Call | None) -> Proposal:
    """The split-sizes proposal, saying why the pieces are not one segment reduction."""
    if split is None:
        return p
    why = (
        "the pieces are not only reduced over the split dimension 0 (`sum`/`mean`) and "
        "stacked, which one segment reduction would do with a static shape: "
    )
    return dataclasses.replace(p, reason=why + p.reason)
