"""CL103: drop ``.item()`` where the number only feeds arithmetic with tensors.

- ``x * t.item()``                           -> ``x * t``
- ``x / max(t.item(), 1.0)``                 -> ``x / torch.clamp(t, min=1.0)``
- ``x / max(abs(t.item()), 1.0)``            -> ``x / torch.clamp(torch.abs(t), min=1.0)``
  (``abs``/``round``/``int``/``float`` of the value become ``torch.abs``/``torch.round``/
  ``torch.trunc``/the value itself)
- ``peak = t.item()`` ... ``h / max(peak, 1.0)`` (every use of ``peak`` is such arithmetic)
                                             -> ``peak = t`` ... ``h / torch.clamp(peak, min=1.0)``
- ``lam = t.item()``; ``lam = max(lam, 1 - lam)``; ``lam * x``
                                             -> ``lam = t``; ``lam = torch.maximum(lam, 1 - lam)``
  (the value is followed along its def-use chain: names it is assigned to, reassignments
  included, must themselves only feed such arithmetic)
- ``spread = t.item()`` ... ``if not torch.compiler.is_compiling(): logger.debug("%f", spread)``
                                             -> the guarded (eager-only) uses read ``spread.item()``
                                                (``int(n)``/``float(n)`` where the value was
                                                converted with ``int``/``float``)

Any other use (a comparison, a shape, ``range()``, a format string, a return value, a call
of anything else) gets no fix.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import cast

import libcst as cst

from compilelint.fix.codemods import flow
from compilelint.fix.codemods.accumulators import accumulation, buffer_changes
from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    TORCH_OF,
    Codemod,
    all_nodes,
    arithmetic_top,
    atom,
    bound_names,
    is_math,
    is_number,
    name_nodes,
    not_compiling,
    number_expr,
    paren,
    template,
)
from compilelint.fix.codemods.cl101_tensor_dependent_branch import eager_only_body
from compilelint.fix.codemods.observe import eager_only
from compilelint.fix.codemods.operands import (
    fill_call,
    new_tensor,
    operand_slot,
    python_kind,
    split_clamp,
    store_slot,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Replacement, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

# one-argument builtins of a number and what they become on a 0-d tensor
_UNARY = {"abs": "abs", "round": "round", "int": "trunc", "float": "float"}
_MAX_PASSES = 6


@dataclass
class _End:
    """Where a value's climb ends: ``assign`` when it is the value of ``name = ...``;
    ``store`` when it is kept for observation on ``self`` (``self.X = v``, ``self.X[k] = v``,
    ``self.X = {"k": v}``); ``returned`` when it (or a dict, tuple or list holding it) is
    returned."""

    assign: cst.Assign | None = None
    store: cst.Assign | None = None
    returned: cst.Return | None = None
    accum: cst.BaseSmallStatement | None = None  # `self.total += v`: a running value
    branch: cst.If | None = None  # `if v < self.min_area:`: the `if` the comparison decides
    # `keep = order[0, :n]` ... `out[0, keep] = ...`: the cut's changes and title (`cuts`)
    cut: tuple[list[tuple[cst.CSTNode, Replacement]], str] | None = None
    # `lo, hi = a.item(), b.item()`: the name of a tuple target that `assign` binds the
    # value to (None: the assignment's single name target), and the expression it is bound
    # from (how eager-only reads convert it back)
    name: str | None = None
    source: cst.BaseExpression | None = None
    # `return out, {"loss": v}`: the keys from the returned expression down to the value
    path: tuple[object, ...] = ()
    # the ends of a value kept in a local tuple, list or dict and read back (`_container`)
    more: list[_End] | None = None

    def flat(self) -> list[_End]:
        """This end, or the ends of the reads of the container that holds the value."""
        if self.more is None:
            return [self]
        return [e for m in self.more for e in m.flat()]

    def bound(self) -> str:
        """The local name an assignment end binds the value to."""
        assert self.assign is not None
        return self.name or _target_name(self.assign) or ""


# kind of rewrite of an original node: "origin", "eager:<wrap>", "clamp", "maximum",
# "abs", "round", "trunc", "float"
_Plan = dict[int, str]


class TensorItemDrop(Codemod):
    CODE = "CL103"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        from compilelint.fix.codemods.step_index import step_index_rewrite

        step = step_index_rewrite(ctx, finding)  # a scheduler's `nonzero` step index
        if step is not None:
            return step
        self._cut_refused = False
        if self.CODE == "CL103":
            # `torch.add(a, b, alpha=t)`: torch reads `t` as `.item()` does (`number_args`)
            from compilelint.fix.codemods.number_args import scale_into_operand

            scaled = scale_into_operand(ctx, finding)
            if scaled is not None:
                return scaled
        got = self.origin(ctx, finding)
        if isinstance(got, NoFix):
            return got
        origin, replacement, wrap = got
        numpy = _numpy_call(replacement)
        if numpy is not None:
            # dynamo traces NumPy as tensors, so the fix would verify under torch.compile,
            # but the copy run eagerly would pass a NumPy value to torch functions
            return NoFix(
                f"the value comes from NumPy (`{ctx.code(numpy).strip()[:40]}`), a tensor only "
                "while dynamo traces it"
            )
        from compilelint.fix.codemods.accumulators import guarded_update

        guarded = guarded_update(ctx, origin, replacement)
        if guarded is not None:
            # `if v.item() > self.cap * k: self.cap = ...`: a running value updated when the
            # number passes a test
            return guarded
        res = self.keep_tensor(ctx, origin, replacement, wrap)
        rows_refused: NoFix | None = None
        if isinstance(res, NoFix):
            # `for i in range(B): n = int(lengths[i])`: the loop over the rows, one masked
            # expression (`row_lengths`)
            from compilelint.fix.codemods.row_lengths import row_loop_fix

            rows = row_loop_fix(ctx, origin)
            if isinstance(rows, (Rewrite, Proposal)):
                return rows
            if rows is not None:
                res = rows_refused = NoFix(f"{res.reason}; the loop over the rows: {rows.reason}")
        if isinstance(res, NoFix):
            # `for i in range(int(n)):` over a body indexing `x[i]`: a flag over `x`'s length
            from compilelint.fix.codemods import loops
            from compilelint.fix.codemods.cl101_tensor_dependent_branch import (
                TensorDependentBranchWhere,
            )

            loop = loops.range_of_tensor(ctx, origin)
            if loop is not None:
                inner = origin.args[0].value if origin.args else origin.func.value  # type: ignore[attr-defined]
                counted = loops.counted_for(
                    ctx, loop, inner, TensorDependentBranchWhere()._lowering
                )
                if not isinstance(counted, NoFix):
                    return counted
                return NoFix(f"{res.reason}; {counted.reason}")
        from compilelint.fix.codemods.cl113_tensor_slice_bound import _arith_top

        held = ctx.parent(_arith_top(ctx, origin))
        if (
            isinstance(res, NoFix)
            and not self._cut_refused
            and isinstance(held, cst.Assign)
            and not isinstance(held.targets[0].target, cst.Subscript)
        ):
            # `n = int(t.max())` ... `x[:, :n]`: CL113's mask, as a proposal
            from compilelint.fix.codemods.cl113_tensor_slice_bound import SliceBoundMask, _read

            value = _read(origin)
            if value is not None:
                prop = SliceBoundMask()._from_read(ctx, origin, value)
                if not isinstance(prop, NoFix):
                    return prop
                if rows_refused is not None:
                    return rows_refused  # the loop's reason is the precise one
                if "is not used as an upper slice" not in prop.reason:
                    return prop
        return res

    needs_torch: bool = False  # does the origin's replacement name torch?
    _cut_refused: bool = False  # a sort-index cut was refused (`cuts`): no mask proposal
    _float: bool = False  # is the value read certainly a Python float (see `_float_read`)?
    _bool: bool = False  # is the value read with `bool()` (it may only decide `if`s)?
    action: str = "drop `.item()`"  # what the title says is done

    # ------------------------------------------------------------------ the origin
    def origin(
        self, ctx: FixContext, finding: Finding
    ) -> tuple[cst.Call, cst.BaseExpression, str] | NoFix:
        """(the call that reads the number, what replaces it, how eager-only uses read it)."""
        calls = [
            c
            for c in ctx.nodes_at(finding, cst.Call)
            if isinstance(c.func, cst.Attribute) and c.func.attr.value == "item" and not c.args
        ]
        if not calls:
            return NoFix("the `.item()` call was not found in the file")
        call = calls[0]
        # `.item()` cut the value off autograd: `.detach()` keeps the gradients as they were
        recv = detached(call.func.value)  # type: ignore[attr-defined]
        if call.lpar:
            recv = recv.with_changes(lpar=call.lpar, rpar=call.rpar)
        return call, recv, "item"

    # ------------------------------------------------------------------ the def-use chain
    def keep_tensor(
        self,
        ctx: FixContext,
        origin: cst.Call,
        replacement: cst.BaseExpression,
        wrap: str,
    ) -> Rewrite | Proposal | NoFix:
        plan: _Plan = {id(origin): "origin"}
        self._float = wrap == "float" or _float_read(origin)
        self._bool = wrap == "bool"
        if self._path_start:
            end = self._from_container(ctx, origin, self._path_start, set(), plan)
        else:
            end = self._climb(ctx, origin, set(), plan, allow_assign=True)
        if isinstance(end, NoFix):
            # `if loss.item() > 100: print(...)`: the number is only read by code that reports,
            # so the whole `if` runs only in eager, where the number is still read
            fn = ctx.function(origin)
            report = _reporting_if(ctx, origin, fn) if fn is not None else None
            if report is not None:
                return self._rewrite(ctx, {id(report): "eagerif"}, {})
            return end
        firsts = end.flat()
        assigns = [e for e in firsts if e.assign is not None]
        if not assigns:
            return self._finish(ctx, plan, {id(origin): replacement}, firsts)
        fn = ctx.function(origin)
        if fn is None:
            return NoFix("the value is not in a function")
        # eager-only uses of the first names read them the way the original code converted
        # the value
        wraps = {
            e.bound(): _wrap_of(e.source if e.source is not None else e.assign.value, wrap)  # type: ignore[union-attr]
            for e in assigns
        }
        binders = bound_names(fn)
        names = {e.bound() for e in assigns}
        base = dict(plan)
        for _ in range(_MAX_PASSES):
            plan = dict(base)
            ends: list[_End] = [e for e in firsts if e.assign is None]
            reached = {id(e.assign) for e in assigns}
            found = set(names)
            # a use that fails may pass once a later name is known to be a tensor too
            # (`gain = min(1 / peak, g)`; `lim = peak * gain`): failures wait for the pass
            # that finds no new name
            failure: NoFix | None = None
            branches: list[cst.If] = [e.branch for e in firsts if e.branch is not None]
            for name in sorted(names):
                where = binders.get(name, [])
                if not where:
                    return NoFix(f"`{name}` is not assigned in the function")
                start = min(ctx.span(b)[:2] for b in where)
                for use in name_nodes(fn.body, name, reads_only=True):
                    if _unpacked_into(ctx, use):
                        continue  # `lo, hi = ...` binds `lo`: not a read
                    if ctx.span(use)[:2] < start:
                        return NoFix(f"`{name}` is read before it is assigned")
                    if _inside_body(ctx, use, branches):
                        # read under an `if` the value decides: the lowering selects it with
                        # `torch.where`, and torch verifies the result
                        continue
                    if _eager_only(ctx, use, fn):
                        plan[id(use)] = "eager:" + wraps.get(name, "item")
                        continue
                    report = _reporting_if(ctx, use, fn)
                    if report is not None:
                        # `if worst > 1e3: print(...)`: the whole `if` runs only in eager
                        plan[id(report)] = "eagerif"
                        plan[id(use)] = "eager:" + wraps.get(name, "item")
                        continue
                    got = self._climb(ctx, use, names, plan, allow_assign=True)
                    if isinstance(got, NoFix):
                        failure = failure or NoFix(
                            f"`{name}` is also {got.reason.removeprefix('the value is ')}"
                        )
                        continue
                    for e in got.flat():
                        ends.append(e)
                        if e.branch is not None:
                            branches.append(e.branch)
                        if e.assign is not None:
                            reached.add(id(e.assign))
                            found.add(e.bound())
            if found == names:
                if failure is not None:
                    return failure
                break
            names = found
        else:
            return NoFix("the value flows through too many names")
        for name in sorted(names):
            for b in binders.get(name, []):
                assign = ctx.parent(b) if isinstance(b, cst.AssignTarget) else None
                if assign is None or id(assign) not in reached:
                    how = ctx.code(b).strip().splitlines()[0][:40]
                    return NoFix(
                        f"`{name}` is assigned more than once (also by `{how}`), not only "
                        "from the tensor value"
                    )
        return self._finish(ctx, plan, {id(origin): replacement}, ends)

    def _finish(
        self,
        ctx: FixContext,
        plan: _Plan,
        fixed: dict[int, cst.BaseExpression],
        ends: list[_End],
    ) -> Rewrite | Proposal | NoFix:
        """The rewrite; a proposal when the tensor reaches the caller (returned, or stored
        on ``self`` where another method reads it back)."""
        stores = [e.store for e in ends if e.store is not None]
        returned = [e.returned for e in ends if e.returned is not None]
        callers: tuple[list[tuple[cst.CSTNode, Replacement]], str, tuple[str, ...]] | None = None
        if returned:
            # `def peak_of(w): return w.abs().max().item()` ... `gain = 1 / peak_of(wav)`:
            # a helper of this file whose every call uses the result as a tensor
            paths = {e.path for e in ends if e.returned is not None}
            got_callers = self._through_callers(ctx, returned, paths)
            if isinstance(got_callers, NoFix):
                return got_callers
            if got_callers is not None:
                callers = got_callers
                returned = []
        why: list[str] = []
        attrs: list[str] = []
        for st in stores:
            got = _store_readers(ctx, st)
            if isinstance(got, NoFix):
                return got
            attr, reader = got
            attrs.append(attr)
            if reader:
                why.append(
                    f"`self.{attr}` is read back in `{reader}()`, which would get a 0-d tensor "
                    "instead of a Python number"
                )
        held = [e for e in ends if e.returned is not None and e.path] if returned else []
        if held:
            # `return loss, {"acc": acc}`: name the entry the caller finds the tensor in
            e = held[0]
            assert e.returned is not None
            entry = "".join(f"[{k!r}]" for k in e.path if k is not _NO_KEY)
            why.append(
                f"the value is returned inside `{_line(ctx, e.returned)}`"
                + (f" (at `{entry}`)" if entry else "")
                + "; the outputs change type there: the caller gets a detached 0-d tensor "
                "instead of a Python number: read it with `.item()` after the compiled call "
                "where a number is needed"
            )
        if returned and not held:
            why.append(
                "the returned value becomes a 0-d tensor instead of a Python number: the "
                "outputs change type, so every caller must accept a tensor (formatting, "
                "arithmetic, comparisons and `float()` do; `json.dumps` and "
                "`isinstance(v, float)` do not)"
            )
        rw = self._rewrite(ctx, plan, fixed)
        decided = [e.branch for e in ends if e.branch is not None]
        if decided:
            from compilelint.fix.codemods.compare import lower_decided

            if stores or returned or callers is not None or accums_of(ends):
                return NoFix(
                    "the value decides an `if` and is also kept or returned: not rewritten together"
                )
            return lower_decided(ctx, rw, decided)
        if callers is not None:
            rw.changes = [*rw.changes, *callers[0]]
            rw.title += f"; {callers[1]}"
            rw.imports = tuple(sorted({*rw.imports, *callers[2]}))
        cuts = [e.cut for e in ends if e.cut is not None]
        for changes, title in cuts:
            rw.changes = [*rw.changes, *changes]
            rw.title += f"; {title}"
            rw.imports = tuple(sorted({*rw.imports, "torch"}))
        accums = [e.accum for e in ends if e.accum is not None]
        if accums:
            buffered = buffer_changes(ctx, accums)
            if isinstance(buffered, NoFix):
                return buffered
            rw.changes = [*rw.changes, *buffered[0]]
            if buffered[1]:
                rw.title += f"; {buffered[1]}"
        if attrs:
            names = ", ".join(f"`self.{a}`" for a in sorted(set(attrs)))
            rw.title += (
                f"; {names} keeps a detached 0-d tensor for observation (`float()`, "
                "formatting and arithmetic read it as before)"
            )
        if why:
            return Proposal(rw.title, rw.changes, "; ".join(why), imports=rw.imports)
        return rw

    _depth: int = 0  # helpers followed to their callers so far
    # where the value sits in the origin's result (a helper's call returning a tuple or dict
    # that holds it, see `_through_callers`); () when the origin is the value
    _path_start: tuple[object, ...] = ()

    def _through_callers(
        self,
        ctx: FixContext,
        returned: list[cst.Return],
        paths: set[tuple[object, ...]] | None = None,
    ) -> tuple[list[tuple[cst.CSTNode, Replacement]], str, tuple[str, ...]] | NoFix | None:
        """The value is returned by a helper of this file (a module-level function, or a
        method called as ``self.m(...)``; not ``forward``): the changes at its calls when every
        call's result is itself kept as a tensor (followed as the value is), else why not;
        None when the helper has no call in the file (its callers are elsewhere).

        ``paths``: where the value sits in what is returned (``return m.item(), s.item()``:
        ``(0,)`` for the first); each call's result is then followed to that entry
        (``m, s = stats(h)``, ``stats(h)[0]``), as a display in the function would be."""
        fns = {id(f): f for r in returned if (f := ctx.function(r)) is not None}
        if len(fns) != 1 or self._depth >= 2:
            return None
        path: tuple[object, ...] = ()
        if paths:
            if len(paths) != 1:
                return None
            path = next(iter(paths))
            if any(k is _NO_KEY for k in path):
                return None
        fn = next(iter(fns.values()))
        name = fn.name.value
        block = ctx.parent(fn)
        owner = ctx.parent(block) if block is not None else None
        is_method = isinstance(owner, cst.ClassDef)
        if (
            name == "forward"
            or name.startswith("__")
            or not (is_method or isinstance(block, cst.Module))
        ):
            return None
        sites: list[cst.Call] = []
        for n in all_nodes(ctx.module):
            if is_method:
                if not isinstance(n, cst.Attribute) or n.attr.value != name:
                    continue
                if self_attr(n) != name or ctx.enclosing(n, cst.ClassDef) is not owner:
                    return NoFix(
                        f"`{name}()` returns the value and is also reached as "
                        f"`{ctx.code(n).strip()[:40]}`, outside its class"
                    )
            elif not isinstance(n, cst.Name) or n.value != name or n is fn.name:
                continue
            call = ctx.parent(n)
            if not isinstance(call, cst.Call) or call.func is not n:
                what = ctx.code(call or n).strip().splitlines()[0][:40]
                return NoFix(f"`{name}` returns the value and is also used in `{what}`")
            if ctx.function(call) is fn:
                return NoFix(f"`{name}()` calls itself")
            sites.append(call)
        if not sites:
            return None
        changes: list[tuple[cst.CSTNode, Replacement]] = []
        imports: set[str] = set()
        for call in sites:
            sub = TensorItemDrop()
            sub._depth = self._depth + 1
            sub._path_start = path
            got = sub.keep_tensor(ctx, call, call, "item")
            if not isinstance(got, Rewrite):
                why = got.reason.removeprefix("the value is ")
                return NoFix(
                    f"`{name}()` returns the value, and at `{ctx.code(call).strip()[:40]}` "
                    f"it is {why}"
                )
            changes.extend(c for c in got.changes if c[0] is not call)
            imports.update(got.imports)
        count = len(sites)
        title = (
            f"`{name}()` returns the 0-d tensor; its {count} call{'s' * (count > 1)} in this file "
            "use it as one"
        )
        return changes, title, tuple(sorted(imports))

    # ------------------------------------------------------------------ analysis
    def _climb(
        self,
        ctx: FixContext,
        node: cst.CSTNode,
        names: set[str],
        plan: _Plan,
        *,
        allow_assign: bool,
    ) -> _End | NoFix:
        """Follow ``node`` (a number that becomes a 0-d tensor) up through the expressions
        that keep it a tensor, recording their rewrites in ``plan``; ``names``: the local
        names that become tensors too."""
        cur = node
        acc = accumulation(ctx, node)
        if acc is not None:
            # `self.total += v`, `self.ema = m * self.ema + (1 - m) * v`: the running value
            # becomes a tensor buffer (see `accumulators`)
            return _End(accum=acc)
        while True:
            p = ctx.parent(cur)
            if not self._bool and isinstance(p, cst.Assign) and p.value is cur:
                acc = accumulation(ctx, cur)
                if acc is not None:
                    # `self.amax = torch.clamp(v, min=self.amax)` (from `max(self.amax, v)`):
                    # a running statistic of the value, a tensor buffer as a running sum is
                    return _End(accum=acc)
            if self._bool:
                # `if bad:` / `if not bad:` with `bad = bool(t)`: CL101 lowers the `if`
                neg = isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not)
                holder = ctx.parent(p) if neg and p is not None else p
                test = p if neg else cur
                if (
                    isinstance(holder, cst.If)
                    and holder.test is test
                    and eager_only_body(holder) is None
                ):
                    return _End(branch=holder)
                if not (allow_assign and isinstance(p, cst.Assign) and p.value is cur):
                    where = ctx.code(ctx.statement(cur) or cur).strip().splitlines()[0][:40]
                    return NoFix(f"the value of `bool()` is used in `{where}`, not as an `if` test")
            if isinstance(p, cst.Arg):
                call = ctx.parent(p)
                fname = (
                    call.func.value
                    if isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
                    else ""
                )
                assert call is None or isinstance(call, cst.Call)
                plain = call is not None and all(
                    a.keyword is None and not a.star for a in call.args
                )
                if call is not None and plain and fname in ("max", "min") and len(call.args) == 2:
                    other = call.args[1].value if call.args[0] is p else call.args[0].value
                    tensorish = not number_expr(other) and self._tensorish(ctx, other, names)
                    if not tensorish and (number_expr(other) or ctx.is_number(other)):
                        plan[id(call)] = "clamp"
                        cur = call
                        continue
                    if tensorish:
                        plan[id(call)] = "maximum"
                        cur = call
                        continue
                if call is not None and plain and fname in _UNARY and len(call.args) == 1:
                    plan[id(call)] = _UNARY[fname]
                    cur = call
                    continue
                if (
                    call is not None
                    and plain
                    and len(call.args) == 1
                    and is_math(call.func)
                    and call.func.attr.value in TORCH_OF  # type: ignore[attr-defined]
                ):
                    plan[id(call)] = "math:" + TORCH_OF[call.func.attr.value]  # type: ignore[attr-defined]
                    cur = call
                    continue
                slot = operand_slot(ctx, call, p) if call is not None and p.value is cur else None
                if slot is not None:
                    # `torch.clamp(x, min=v)`, `x.masked_fill(m, v)`, `torch.where(c, v, x)`,
                    # `x.pow(v)`: the call takes the 0-d tensor with the same result (see
                    # `operands`); a clamp with a number for its other bound is split
                    assert call is not None
                    if slot == "fill":
                        # `torch.full_like(x, v)` -> `torch.empty_like(x).copy_(v)`
                        plan[id(call)] = "fill"
                        return _End()
                    if slot == "new_tensor":
                        # `torch.tensor(n_neg / n_pos)`: the dtype the number's kind gives
                        kind = python_kind(ctx, cast(cst.BaseExpression, cur))
                        if kind is None:
                            return NoFix(
                                f"the value is passed to `{ctx.code(call).strip()[:40]}` "
                                "without `dtype=`, and whether it is a Python int or float "
                                "is not known"
                            )
                        plan[id(call)] = f"new_tensor:{kind}"
                        return _End()
                    if slot.startswith("split:"):
                        if str(plan.get(id(call), "")).startswith("split:"):
                            # both bounds are the value (`x.clip(-lim, lim)`): two tensors
                            del plan[id(call)]
                        else:
                            plan[id(call)] = slot
                    return _End()
                where = ctx.code(call).strip()[:40] if call is not None else "a call"
                sized = flow.size_reason(ctx, call) if call is not None else None
                return NoFix(f"the value is passed to `{where}`{sized or ''}")
            if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
                other = p.right if p.left is cur else p.left
                if ctx.is_tensor(other):
                    return _End()
                if (
                    ctx.is_number(other)
                    or self._tensorish(ctx, other, names)
                    or _numeric_by_use(p, other, floats=self._float)
                ):
                    # a Python number (a literal, `self.eps` set from a number) combined
                    # with a 0-d tensor stays a 0-d tensor
                    cur = p
                    continue
                return NoFix(
                    f"the value is combined with `{ctx.code(other).strip()[:40]}`, "
                    "not known to be a tensor"
                )
            if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
                cur = p
                continue
            member = _membership(ctx, cur)
            if member is not None:
                # `tok.item() in self.stop_ids` (int ids set in `__init__`) deciding an `if`:
                # `torch.isin(tok, torch.tensor(list(self.stop_ids)))`, a bool tensor
                decided = _decided_if(ctx, member)
                if decided is None:
                    return NoFix(
                        f"the value is tested in `{ctx.code(member).strip()[:40]}`, not an `if`"
                    )
                plan[id(member)] = "isin"
                return _End(branch=decided)
            cmp = _comparison(ctx, cur)
            if cmp is not None:
                # `scores >= thr` with `scores` a tensor: a tensor of bools either way (a 0-d
                # tensor and a Python number compare alike with a tensor)
                if ctx.is_tensor(cmp[1]):
                    return _End()
                decided = _decided_if(ctx, cmp[0])
                if eager_only_body(decided) is not None if decided is not None else False:
                    # `if worst > 1e3: print(...)`: the whole `if` runs only in eager, where
                    # the number is still read (`_reporting_if`)
                    decided = None
                if decided is not None and (
                    number_expr(cmp[1])
                    or ctx.is_number(cmp[1])
                    or self._tensorish(ctx, cmp[1], names)
                ):
                    # `if area < self.min_area:`: the comparison becomes a bool tensor and the
                    # `if` it decides is lowered branchless (`compare.lower_decided`)
                    return _End(branch=decided)
                return NoFix(
                    f"the value is compared with `{ctx.code(cmp[1]).strip()[:40]}`, not known "
                    "to be a tensor (the result would become a tensor of bools)"
                )
            if (
                allow_assign
                and isinstance(p, cst.Assign)
                and p.value is cur
                and len(p.targets) == 1
                and isinstance(p.targets[0].target, cst.Name)
            ):
                return _End(assign=p)
            win = _window(ctx, cur, names) if isinstance(p, cst.Slice) else None
            if win is not None:
                # `int(x[b, s : s + L].argmax()) + s`: a window of static length gathered
                plan[id(win[0])] = win[1]
                return _End()
            if isinstance(p, cst.Slice) and isinstance(cur, cst.Name):
                # `keep = order[0, :n]` used only to store: kept whole, the stores masked
                from compilelint.fix.codemods.cuts import index_cut

                got_cut = index_cut(ctx, cur, names)
                if isinstance(got_cut, NoFix):
                    self._cut_refused = True
                    return got_cut
                if got_cut is not None:
                    return _End(cut=got_cut)
            if store_slot(ctx, cast(cst.BaseExpression, cur)):
                # `x[i] = v`, `x[mask] += v` into a tensor: a 0-d tensor stores as the number
                # does (see `operands`)
                return _End()
            kept = _kept(ctx, cur)
            if kept is not None:
                return kept
            held = self._held(ctx, cur, names, plan)
            if held is not None:
                # `lo, hi = a.item(), b.item()`, `stats = {"mean": m.item()}` ...
                # `stats["mean"]`: followed through the display to where it is read back
                return held
            sub = _tensor_index(ctx, cur)
            if sub is not None:
                # `x[:, n]` of a tensor: `x.index_select(1, n.long().view(1)).squeeze(1)`, the
                # same element (an index the original read as an int; a 0-d tensor index
                # mixed with slices would be read with `.item()` by dynamo)
                plan[id(sub[0])] = sub[1]
                return _End()
            where = ctx.code(p).strip().splitlines()[0][:40] if p is not None else "?"
            sizer = _sizing_call(ctx, cur)
            if sizer is not None:
                sized = flow.size_reason(ctx, sizer)
                if sized is not None:
                    what = ctx.code(sizer).strip().splitlines()[0][:40]
                    return NoFix(f"the value is a size of `{what}`{sized}")
            return NoFix(f"the value is used in `{where}`, not only in arithmetic with tensors")

    def _held(
        self, ctx: FixContext, cur: cst.CSTNode, names: set[str], plan: _Plan
    ) -> _End | NoFix | None:
        """``cur`` is an entry of a tuple, list or dict display: where the display takes it
        (see ``_from_container``); None when ``cur`` is not such an entry."""
        p = ctx.parent(cur)
        if not isinstance(p, (cst.Element, cst.DictElement)) or p.value is not cur:
            return None
        disp = ctx.parent(p)
        if not isinstance(disp, (cst.Tuple, cst.List, cst.Dict)):
            return None
        sizer = _sizing_call(ctx, cur)
        if sizer is not None and flow.size_reason(ctx, sizer) is not None:
            return None  # `torch.full((n,), v)`: a size, refused with the remedies named
        key = _entry_key(disp, p)
        if key is _NO_KEY:
            return NoFix(
                f"the value is an entry of `{_line(ctx, disp)}`, whose entries are not all at "
                "literal positions or keys (a starred entry, `**`, a computed or repeated key)"
            )
        return self._from_container(ctx, disp, (key,), names, plan, source=cur)  # type: ignore[arg-type]

    def _from_container(
        self,
        ctx: FixContext,
        expr: cst.CSTNode,
        path: tuple[object, ...],
        names: set[str],
        plan: _Plan,
        source: cst.BaseExpression | None = None,
    ) -> _End | NoFix:
        """``expr`` evaluates to a tuple, list or dict whose entry at ``path`` (keys,
        outermost first) is the value: follow it to where it is read. Unpacked into names
        (``lo, hi = ...``: the name at the value's position is bound to it), read back by a
        literal key (``expr[k]``; another key reads another entry), bound to a local name
        whose every read is such (``_container``), or returned / stored on ``self`` whole
        (``_kept``: the caller sees the tensor, a proposal). Anything else refuses."""
        if not path:
            return self._climb(ctx, expr, names, plan, allow_assign=True)
        key, rest = path[0], path[1:]
        p = ctx.parent(expr)
        if isinstance(p, (cst.Element, cst.DictElement)) and p.value is expr:
            # `{"stats": {"m": v}}`: the display is itself an entry of an outer one
            outer = ctx.parent(p)
            if isinstance(outer, (cst.Tuple, cst.List, cst.Dict)):
                k = _entry_key(outer, p)
                if k is _NO_KEY:
                    return NoFix(
                        f"the value is an entry of `{_line(ctx, outer)}`, whose entries are not "
                        "all at literal positions or keys (a starred entry, `**`, a computed or "
                        "repeated key)"
                    )
                return self._from_container(ctx, outer, (k, *path), names, plan)
        got_key = _get_call(ctx, expr)
        if got_key is not None:
            # `c.get("k")` of a dict display that has the key: the entry, as `c["k"]`
            call, k = got_key
            if isinstance(key, str):
                same = _same_key(k, key)
                if isinstance(same, NoFix):
                    return same
                return self._from_container(ctx, call, rest, names, plan) if same else _End()
        if isinstance(p, cst.Subscript) and p.value is expr:
            k = _literal_key(p)
            if k is _NO_KEY:
                return NoFix(
                    f"the value is held in `{_line(ctx, expr)}`, read by the index "
                    f"`{_line(ctx, p)}`, not a literal key"
                )
            if _written_sub(ctx, p):
                return NoFix(f"the container holding the value is changed in `{_line(ctx, p)}`")
            same = _same_key(k, key)
            if isinstance(same, NoFix):
                return same
            if not same:
                return _End()  # another entry: the value is not read here
            return self._from_container(ctx, p, rest, names, plan)
        if isinstance(p, cst.Assign) and p.value is expr and len(p.targets) == 1:
            t = p.targets[0].target
            if isinstance(t, (cst.Tuple, cst.List)) and isinstance(key, int):
                els = t.elements
                size = len(expr.elements) if isinstance(expr, (cst.Tuple, cst.List)) else None
                if (
                    any(isinstance(e, cst.StarredElement) for e in els)
                    or not 0 <= key < len(els)
                    or (size is not None and size != len(els))
                ):
                    return NoFix(
                        f"the value is unpacked in `{_line(ctx, p)}` into a starred target or "
                        "one of another length"
                    )
                tgt = els[key].value
                if not isinstance(tgt, cst.Name):
                    return NoFix(
                        f"the value is unpacked in `{_line(ctx, p)}` into "
                        f"`{ctx.code(tgt).strip()}`, not a local name"
                    )
                if rest:
                    return self._container(ctx, p, tgt.value, rest, names, plan)
                return _End(assign=p, name=tgt.value, source=source)
            if isinstance(t, cst.Name):
                return self._container(ctx, p, t.value, path, names, plan)
        kept = _kept(ctx, expr)
        if kept is not None:
            kept.path = (*kept.path, *path)
            return kept
        return NoFix(
            f"the value is held in `{ctx.code(expr).strip().splitlines()[0][:40]}`, which is "
            f"used in `{_line(ctx, p or expr)}`"
        )

    def _container(
        self,
        ctx: FixContext,
        assign: cst.Assign,
        cname: str,
        path: tuple[object, ...],
        names: set[str],
        plan: _Plan,
    ) -> _End | NoFix:
        """The local ``cname`` (bound once, by ``assign``) holds the value at ``path``: the
        ends of its reads, each ``cname[k]`` (followed on) or ``cname`` returned or stored
        whole; any other read (a call, a loop, a method, an alias) refuses."""
        fn = ctx.function(assign)
        if fn is None:
            return NoFix("the value is not in a function")
        binds = bound_names(fn).get(cname, [])
        if len(binds) != 1:
            return NoFix(f"`{cname}`, which holds the value, is assigned more than once")
        start = ctx.span(assign)[:2]
        more: list[_End] = []
        for r in name_nodes(fn.body, cname, reads_only=True):
            if _unpacked_into(ctx, r):
                continue
            if ctx.span(r)[:2] < start:
                return NoFix(f"`{cname}`, which holds the value, is read before it is assigned")
            p = ctx.parent(r)
            if (
                (isinstance(p, cst.Subscript) and p.value is r)
                or (isinstance(p, cst.Assign) and p.value is r)
                or _get_call(ctx, r) is not None
            ):
                # `c[k]`, or `a, b = c` / `c2 = c` (unpacked or aliased, followed the same)
                got: _End | NoFix = self._from_container(ctx, r, path, names, plan)
            else:
                kept = _kept(ctx, r)
                if kept is None:
                    return NoFix(
                        f"`{cname}`, which holds the value, is used in `{_line(ctx, p or r)}`"
                    )
                kept.path = (*kept.path, *path)
                got = kept
            if isinstance(got, NoFix):
                return got
            more.append(got)
        return _End(more=more)

    def _tensorish(self, ctx: FixContext, e: cst.BaseExpression, names: set[str]) -> bool:
        """Is ``e`` a tensor once the names in ``names`` are (numbers and those names under
        arithmetic)?"""
        if ctx.is_tensor(e):
            return True
        if isinstance(e, cst.Name):
            return e.value in names
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
            return self._tensorish(ctx, e.expression, names)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
            sides = (e.left, e.right)
            return any(self._tensorish(ctx, s, names) for s in sides) and all(
                number_expr(s) or ctx.is_number(s) or self._tensorish(ctx, s, names) for s in sides
            )
        return False

    # ------------------------------------------------------------------ rewriting
    def _rewrite(
        self, ctx: FixContext, plan: _Plan, fixed: dict[int, cst.BaseExpression]
    ) -> Rewrite:
        """One change per outermost planned node (the planned nodes below it are rewritten
        inside it)."""
        nodes: dict[int, cst.CSTNode] = {}
        for node in all_nodes(ctx.module):
            if id(node) in plan:
                nodes[id(node)] = node
        targets: dict[int, cst.CSTNode] = {}
        for node in nodes.values():
            top = node
            for a in ctx.ancestors(node):
                if id(a) in plan:
                    top = a
            targets[id(top)] = top
        torch_ = ctx.torch()
        uses_torch = self.needs_torch and any(k == "origin" for k in plan.values())

        def make(kind: str, u: cst.CSTNode, o: cst.CSTNode) -> cst.CSTNode:
            nonlocal uses_torch
            if kind == "origin":
                return fixed[id(o)]
            if kind.startswith("eager:"):
                how = kind.removeprefix("eager:")
                if how == "item":
                    return cst.Call(func=cst.Attribute(value=atom(u), attr=cst.Name("item")))  # type: ignore[arg-type]
                return cst.Call(func=cst.Name(how), args=[cst.Arg(u)])  # type: ignore[arg-type]
            if kind == "eagerif":
                uses_torch = True
                assert isinstance(u, cst.If)
                body = eager_only_body(u)
                assert body is not None
                return cst.If(
                    test=cst.parse_expression(f"not {torch_}.compiler.is_compiling()"),
                    body=cst.IndentedBlock(body=[u.with_changes(body=body, leading_lines=[])]),
                    leading_lines=u.leading_lines,
                )
            if kind == "isin":
                uses_torch = True
                assert isinstance(u, cst.Comparison)
                ids = u.comparisons[0].comparator
                isin = template(
                    f"{torch_}.isin(__v__, {torch_}.tensor(list(__ids__), device=__v__.device))",
                    v=atom(u.left),
                    ids=ids,
                )
                if isinstance(u.comparisons[0].operator, cst.NotIn):
                    return cst.UnaryOperation(operator=cst.BitInvert(), expression=isin)
                return isin.with_changes(lpar=u.lpar, rpar=u.rpar)
            if kind.startswith("index:"):
                assert isinstance(u, cst.Subscript)
                k, d, wrap = (int(v) for v in kind.removeprefix("index:").split(":"))
                idx = u.slice[k].slice.value  # type: ignore[attr-defined]
                rest = [
                    e.with_changes(slice=cst.Slice(lower=None, upper=None)) if j == k else e
                    for j, e in enumerate(u.slice)
                ]
                full = all(
                    isinstance(e.slice, cst.Slice)
                    and e.slice.lower is None
                    and e.slice.upper is None
                    and e.slice.step is None
                    for e in rest
                )
                x = atom(u.value) if full else u.with_changes(slice=rest, lpar=[], rpar=[])
                i = template("__i__.long().view(1)", i=atom(idx))
                if wrap:
                    # a negative int counts from the end (index_select would raise); one
                    # below `-size` or at `size` or above still raises, as the int did
                    i = template(f"__i__ + (__i__ < 0) * __x__.shape[{k}]", i=i, x=atom(u.value))
                return template(f"__x__.index_select({d}, __i__).squeeze({d})", x=x, i=i)
            if kind.startswith("window:"):
                uses_torch = True
                assert isinstance(u, cst.Subscript)
                k = int(kind.removeprefix("window:"))
                sl = u.slice[k].slice
                assert isinstance(sl, cst.Slice) and isinstance(sl.upper, cst.BinaryOperation)
                lo = sl.lower
                up = sl.upper
                lo_code = ctx.code(lo).strip() if lo is not None else ""
                width = up.right if ctx.code(up.left).strip() == lo_code else up.left
                rest = [
                    *u.slice[:k],
                    u.slice[k].with_changes(slice=cst.Slice(lower=None, upper=None)),
                ]
                whole = u.with_changes(slice=rest, lpar=[], rpar=[]) if k else atom(u.value)
                return template(
                    f"__x__.gather(0, (__lo__.long() + {torch_}.arange(__w__, device=__v__.device))"
                    f".clamp(max=__v__.shape[{k}] - 1))",
                    x=whole,
                    lo=atom(lo),  # type: ignore[arg-type]
                    w=width,
                    v=atom(u.value),
                )
            assert isinstance(u, cst.Call)
            if kind == "fill":
                return fill_call(ctx, u)
            if kind.startswith("new_tensor:"):
                uses_torch = True
                return new_tensor(ctx, u, kind.removeprefix("new_tensor:"))
            args = [a.value for a in u.args]
            if kind.startswith("split:"):
                uses_torch = True
                method = not (
                    isinstance(u.func, cst.Attribute) and ctx.code(o.func.value).strip() == torch_  # type: ignore[attr-defined]
                )
                return split_clamp(torch_, u, method)
            if kind.startswith("math:"):
                uses_torch = True
                return u.with_changes(func=cst.parse_expression(f"{torch_}.{kind[5:]}"))
            if kind == "float":
                return paren(args[0]) if not _simple(args[0]) else args[0]
            uses_torch = True
            if kind == "clamp":
                v, c = args
                if is_number(v):
                    v, c = c, v
                kw = "min" if o.func.value == "max" else "max"  # type: ignore[attr-defined]
                eq = cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                )
                return u.with_changes(
                    func=cst.parse_expression(f"{torch_}.clamp"),
                    args=[cst.Arg(v), cst.Arg(c, keyword=cst.Name(kw), equal=eq)],
                )
            if kind == "maximum":
                fn = "maximum" if o.func.value == "max" else "minimum"  # type: ignore[attr-defined]
                return u.with_changes(func=cst.parse_expression(f"{torch_}.{fn}"))
            return u.with_changes(func=cst.parse_expression(f"{torch_}.{kind}"))

        class T(cst.CSTTransformer):
            def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
                kind = plan.get(id(o))
                return make(kind, u, o) if kind is not None else u

        changes: list[tuple[cst.CSTNode, Replacement]] = []
        for top in targets.values():
            changes.append((top, top.visit(T())))  # type: ignore[arg-type]
        kinds = set(plan.values())
        title = f"keep the value a tensor: {self.action}"
        if kinds == {"eagerif"}:
            return Rewrite(
                "the `if` only reports: run it only in eager, under "
                "`if not torch.compiler.is_compiling():`",
                changes,
                imports=("torch",),
            )
        extra = sorted(
            {
                "`max`/`min` become `torch.clamp`" if "clamp" in kinds else "",
                "`torch.maximum`/`torch.minimum`" if "maximum" in kinds else "",
                "`abs`/`round`/`int` become torch ops" if kinds & {"abs", "round", "trunc"} else "",
            }
            - {""}
        )
        if extra:
            title += ", " + ", ".join(extra)
        return Rewrite(title, changes, imports=("torch",) if uses_torch else ())


def _tensor_index(ctx: FixContext, node: cst.CSTNode) -> tuple[cst.Subscript, str] | None:
    """(``x[..., node, ...]``, the plan kind ``index:<k>:<d>:<wrap>``) when ``node`` is one
    index of a read of a tensor ``x`` (``k`` its position in the index, ``d`` the dimension it
    selects once the other indices applied) and every other index is a Python int or a slice
    with number bounds; ``wrap`` is 1 when a negative value must count from the end.

    Basic indexing applies each int or slice to its own dimension, so ``x[b, 1:, v, 0]`` is
    ``x[b, 1:, :, 0]`` with dimension ``d`` (the slices before ``v``: ints drop their
    dimension) then selected at ``v``: ``index_select(d, v).squeeze(d)`` gives that element
    (a 0-d tensor index among the other indices would be read with ``.item()`` by dynamo).
    ``x`` need not be known statically when a tensor-only method is called on the result
    (``alpha_bar = self.sched.alphas_cumprod[int(t)]`` ... ``alpha_bar.sqrt()``): the result
    is then a tensor, so ``x`` is a tensor or a container of tensors, and ``x.index_select``
    on a container raises (AttributeError): the rewrite is the same element or fails
    loudly, never another value."""
    idx = ctx.parent(node)
    el = ctx.parent(idx) if isinstance(idx, cst.Index) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    if not isinstance(sub, cst.Subscript) or idx.star is not None:  # type: ignore[union-attr]
        return None
    if isinstance(ctx.parent(sub), (cst.AssignTarget, cst.AugAssign, cst.Del)):
        return None
    if not (ctx.is_tensor(sub.value) or _tensor_result(ctx, sub)):
        return None
    k = list(sub.slice).index(el)  # type: ignore[arg-type]
    d = 0
    for j, e in enumerate(sub.slice):
        if e is el:
            continue
        s = e.slice
        if isinstance(s, cst.Slice):
            if any(
                b is not None and not (number_expr(b) or ctx.is_number(b))
                for b in (s.lower, s.upper, s.step)
            ):
                return None
            d += j < k
        elif isinstance(s, cst.Index) and s.star is None:
            if not (number_expr(s.value) or ctx.is_number(s.value)):
                return None
        else:
            return None
    wrap = 0 if _non_negative(ctx, node) else 1
    if wrap and not _pure(sub.value):
        return None
    return sub, f"index:{k}:{d}:{wrap}"


# methods of a tensor that Python numbers, lists, dicts and NumPy arrays do not have
_TENSOR_ONLY_METHODS = frozenset(
    """sqrt rsqrt exp log log1p expm1 sigmoid tanh unsqueeze pow clamp clamp_min clamp_max
    detach softmax log_softmax view expand""".split()
)


def _tensor_result(ctx: FixContext, sub: cst.Subscript) -> bool:
    """Is a tensor-only method called on ``sub`` (``x[i].sqrt()``) or, when ``sub`` is
    assigned to a local name used nowhere else first, on that name (``a = x[i]``;
    ``(1 - a).sqrt()``, ``a.sqrt()``)?"""

    def method_on(e: cst.CSTNode) -> bool:
        cur = arithmetic_top(ctx, e)
        p = ctx.parent(cur)
        if isinstance(p, cst.Attribute) and p.value is cur:
            return p.attr.value in _TENSOR_ONLY_METHODS and isinstance(ctx.parent(p), cst.Call)
        return False

    if method_on(sub):
        return True
    p = ctx.parent(sub)
    if not (
        isinstance(p, cst.Assign)
        and p.value is sub
        and len(p.targets) == 1
        and isinstance(p.targets[0].target, cst.Name)
    ):
        return False
    fn = ctx.function(p)
    if fn is None:
        return False
    name = p.targets[0].target.value
    if len(bound_names(fn).get(name, [])) != 1:
        return False
    return any(method_on(r) for r in name_nodes(fn.body, name, reads_only=True))


def _window(ctx: FixContext, cur: cst.CSTNode, names: set[str]) -> tuple[cst.Subscript, str] | None:
    """(``x[b, s : s + L]``, the plan kind ``window:<k>``) when ``cur`` is a bound of that
    slice, ``s`` a kept value that is certainly non-negative (read from ``argmax``/``argmin``),
    ``L`` a Python number, the other indices Python ints before the slice, ``x`` a name or an
    attribute chain, and the window is read only by ``.argmax()``/``.argmin()`` (no
    arguments).

    The rewrite gathers ``L`` positions ``s, s+1, ...`` clamped to the last one, ``n - 1``:
    for ``0 <= s < n`` the first ``min(L, n - s)`` gathered values are the original window and
    the rest copies of its last value ``x[n - 1]``, so the first maximum (minimum, NaN) is at
    the same position; no gradient flows through an arg-reduction. ``gather`` raises unless
    the selected tensor is 1-d, as the flat index of the original needs. Where the original
    window is empty (``s >= n``) the original raises and the rewrite reads ``x[n - 1]``."""
    sl = ctx.parent(cur)
    el = ctx.parent(sl) if isinstance(sl, cst.Slice) else None
    sub = ctx.parent(el) if isinstance(el, cst.SubscriptElement) else None
    if not isinstance(sub, cst.Subscript) or not isinstance(sl, cst.Slice):
        return None
    lo, up = sl.lower, sl.upper
    if sl.step is not None or not isinstance(lo, cst.Name) or lo.value not in names:
        return None
    if not (isinstance(up, cst.BinaryOperation) and isinstance(up.operator, cst.Add)):
        return None
    sides = [up.left, up.right]
    same = [isinstance(e, cst.Name) and e.value == lo.value for e in sides]
    if sum(same) != 1:
        return None
    width = sides[1] if same[0] else sides[0]
    if not (number_expr(width) or ctx.is_number(width)):
        return None
    k = list(sub.slice).index(el)  # type: ignore[arg-type]
    if k != len(sub.slice) - 1 or not _pure(sub.value):
        return None
    for e in sub.slice[:k]:
        s = e.slice
        if not (
            isinstance(s, cst.Index)
            and s.star is None
            and (number_expr(s.value) or ctx.is_number(s.value))
        ):
            return None
    if not _non_negative(ctx, lo):
        return None
    attr = ctx.parent(sub)
    call = ctx.parent(attr) if isinstance(attr, cst.Attribute) else None
    if not (
        isinstance(attr, cst.Attribute)
        and attr.value is sub
        and attr.attr.value in ("argmax", "argmin")
        and isinstance(call, cst.Call)
        and not call.args
    ):
        return None
    return sub, f"window:{k}"


# reads of a position: never negative
_POSITIONS = frozenset({"argmax", "argmin", "numel", "count_nonzero"})


def _non_negative(ctx: FixContext, node: cst.CSTNode, depth: int = 0) -> bool:
    """Is the index value certainly non-negative: read from ``argmax``/``argmin`` (through
    ``int()``/``.item()``/``.detach()`` only), a non-negative int literal, or a sum of such
    (``int(w.argmax()) + s``)?"""
    e: cst.CSTNode = node
    if depth > 4:
        return False
    if isinstance(e, cst.Integer):
        return True
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.Add):
        return _non_negative(ctx, e.left, depth + 1) and _non_negative(ctx, e.right, depth + 1)
    if isinstance(e, cst.Name):
        fn = ctx.function(e)
        binders = bound_names(fn).get(e.value, []) if fn is not None else []
        if len(binders) != 1:
            return False
        a = ctx.parent(binders[0])
        if not isinstance(a, cst.Assign):
            return False
        if isinstance(a.value, cst.BinaryOperation):
            return _non_negative(ctx, a.value, depth + 1)
        e = a.value
    while isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Name) and f.value == "int" and len(e.args) == 1:
            e = e.args[0].value
            continue
        if isinstance(f, cst.Attribute):
            if f.attr.value in _POSITIONS:
                return True
            if f.attr.value in ("item", "detach", "long") and not e.args:
                e = f.value
                continue
        return False
    return False


def _pure(e: cst.BaseExpression) -> bool:
    """A name or an attribute chain of names: reading it twice reads the same value."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


_CMP = (
    cst.LessThan,
    cst.GreaterThan,
    cst.LessThanEqual,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


def _comparison(
    ctx: FixContext, node: cst.CSTNode
) -> tuple[cst.Comparison, cst.BaseExpression] | None:
    """(the comparison, the other side) when ``node`` is one side of a single ordering or
    equality comparison (``a < node``, ``node >= b``)."""
    p = ctx.parent(node)
    if isinstance(p, cst.ComparisonTarget) and p.comparator is node:
        cmp = ctx.parent(p)
        if isinstance(cmp, cst.Comparison) and len(cmp.comparisons) == 1:
            if isinstance(p.operator, _CMP):
                return cmp, cmp.left
        return None
    if isinstance(p, cst.Comparison) and p.left is node and len(p.comparisons) == 1:
        if isinstance(p.comparisons[0].operator, _CMP):
            return p, p.comparisons[0].comparator
    return None


def _numeric_by_use(
    op: cst.BinaryOperation, other: cst.BaseExpression, *, floats: bool = False
) -> bool:
    """``n + other`` / ``-`` / ``/`` / ``**`` with ``n`` a Python number: the original only
    ran when ``other`` is a number or a tensor (a string, a list or None raise), so the 0-d
    tensor in ``n``'s place combines with it as well (``conf / self.config.temperature``).
    ``*`` only when ``n`` is certainly a float (``floats``): an int times a list or a string
    repeats it."""
    ops: tuple[type, ...] = (cst.Add, cst.Subtract, cst.Divide, cst.Power)
    if floats:
        ops = (*ops, cst.Multiply)
    return isinstance(op.operator, ops) and not (
        isinstance(other, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.BaseString))
    )


# methods whose result is a floating tensor whatever the input's dtype (`.item()` of it is a
# Python float)
_FLOAT_METHODS = frozenset(
    """mean std var norm float double half exp log log1p sqrt rsqrt sigmoid tanh softmax
    log_softmax logsumexp erf reciprocal""".split()
)


def _float_read(origin: cst.Call) -> bool:
    """``t.mean().item()``, ``x.float().sum().item()``: the value read is a Python float
    (the chain holds a method that makes a floating tensor, followed only by reductions and
    elementwise steps that keep it floating)."""
    cur: cst.BaseExpression = (
        origin.func.value if isinstance(origin.func, cst.Attribute) else origin
    )
    keep = {
        "sum",
        "max",
        "min",
        "amax",
        "amin",
        "abs",
        "neg",
        "clamp",
        "detach",
        "squeeze",
        "flatten",
    }
    while isinstance(cur, cst.Call) and isinstance(cur.func, cst.Attribute):
        name = cur.func.attr.value
        if name in _FLOAT_METHODS:
            return True
        if name not in keep:
            return False
        cur = cur.func.value
    return False


def _numpy_call(e: cst.CSTNode) -> cst.Call | None:
    """A call in ``e`` that makes a NumPy value: ``t.numpy()`` or ``np.f(...)``/``numpy.f(...)``."""
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            f = n.func
            if isinstance(f, cst.Attribute) and (
                f.attr.value == "numpy"
                or (isinstance(f.value, cst.Name) and f.value.value in ("np", "numpy"))
            ):
                found.append(n)

    e.visit(V())
    return found[0] if found else None


def _self_store(t: cst.BaseExpression) -> str | None:
    """``X`` of an assignment target ``self.X`` or ``self.X[k]``."""
    if isinstance(t, cst.Subscript):
        t = t.value
    return self_attr(t)


def _kept(ctx: FixContext, node: cst.CSTNode) -> _End | None:
    """``node`` kept as it is: stored on ``self`` or returned, directly or as an entry of a
    dict, tuple or list literal (``dict(k=v)`` too)."""
    cur = node
    path: list[object] = []  # the keys from the kept expression down to ``node``
    while True:
        p = ctx.parent(cur)
        if isinstance(p, (cst.DictElement, cst.Element)) and p.value is cur:
            q = ctx.parent(p)
            if not isinstance(q, (cst.Dict, cst.Tuple, cst.List)):
                return None
            path.insert(0, _entry_key(q, p))
            cur = q
            continue
        if isinstance(p, cst.Arg) and p.keyword is not None and p.value is cur:
            call = ctx.parent(p)
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Name)
                and call.func.value == "dict"
                and all(a.keyword is not None for a in call.args)
            ):
                path.insert(0, p.keyword.value)
                cur = call
                continue
            return None
        break
    if (
        isinstance(p, cst.Assign)
        and p.value is cur
        and len(p.targets) == 1
        and _self_store(p.targets[0].target) is not None
    ):
        return _End(store=p)
    if isinstance(p, cst.Return) and p.value is cur:
        return _End(returned=p, path=tuple(path))
    return None


_NO_KEY = object()  # an entry whose position or key is not a literal


def _literal(e: cst.BaseExpression) -> object:
    """The value of an int or string literal (``-1`` included), else ``_NO_KEY``."""
    if isinstance(e, (cst.Integer, cst.SimpleString)) or (
        isinstance(e, cst.UnaryOperation)
        and isinstance(e.operator, cst.Minus)
        and isinstance(e.expression, cst.Integer)
    ):
        return ast.literal_eval(cst.Module([]).code_for_node(e).strip())
    return _NO_KEY


def _entry_key(disp: cst.CSTNode, el: cst.CSTNode) -> object:
    """The position of ``el`` in a tuple or list display without starred entries, or its key
    in a dict display whose keys are distinct literals (no ``**``); else ``_NO_KEY``."""
    if isinstance(disp, (cst.Tuple, cst.List)):
        if any(isinstance(e, cst.StarredElement) for e in disp.elements):
            return _NO_KEY
        return next(i for i, e in enumerate(disp.elements) if e is el)
    if isinstance(disp, cst.Dict):
        keys = []
        for e in disp.elements:
            if not isinstance(e, cst.DictElement):
                return _NO_KEY
            keys.append(_literal(e.key))
        if any(k is _NO_KEY for k in keys) or len({(type(k), k) for k in keys}) != len(keys):
            return _NO_KEY
        if any(a == b and type(a) is not type(b) for a in keys for b in keys):
            return _NO_KEY
        assert isinstance(el, cst.DictElement)
        return _literal(el.key)
    return _NO_KEY


def _literal_key(sub: cst.Subscript) -> object:
    """The literal of ``x[k]`` (one index, not a slice), else ``_NO_KEY``."""
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return _NO_KEY
    return _literal(sub.slice[0].slice.value)


def _same_key(k: object, key: object) -> bool | NoFix:
    """Does ``x[k]`` read the entry at ``key``? A negative position is refused (the length
    is not followed), as are keys equal across types (``1`` and ``True``)."""
    if isinstance(k, int) and isinstance(key, int) and k < 0:
        return NoFix(f"the container holding the value is read from its end (`[{k}]`)")
    if k == key and type(k) is not type(key):
        return NoFix(f"the key `{k!r}` equals the value's key `{key!r}` across types")
    return k == key


def _get_call(ctx: FixContext, expr: cst.CSTNode) -> tuple[cst.Call, object] | None:
    """(``expr.get(k)``, ``k``) for a string literal ``k`` and no default, else None. Only a
    string key is taken: a dict holds it (the display's keys are literals, checked where the
    value is put in), so ``get`` returns the entry as ``expr[k]`` does; a position of a tuple
    or list has no ``get`` (AttributeError either way)."""
    attr = ctx.parent(expr)
    if not (isinstance(attr, cst.Attribute) and attr.value is expr and attr.attr.value == "get"):
        return None
    call = ctx.parent(attr)
    if not (isinstance(call, cst.Call) and call.func is attr and len(call.args) == 1):
        return None
    a = call.args[0]
    if a.keyword is not None or a.star or not isinstance(a.value, cst.SimpleString):
        return None
    return call, _literal(a.value)


def _written_sub(ctx: FixContext, sub: cst.Subscript) -> bool:
    """``x[k]`` is written (assigned, augmented, deleted), not read."""
    p = ctx.parent(sub)
    if isinstance(p, (cst.Element, cst.StarredElement)):
        return _unpacked_into(ctx, sub)
    return (
        isinstance(p, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del))
        and getattr(p, "target", None) is sub
    )


def _unpacked_into(ctx: FixContext, node: cst.CSTNode) -> bool:
    """``node`` is a target of an unpacking assignment or loop (``a, b = ...``), which
    ``name_nodes(reads_only=True)`` lists as a read."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if isinstance(p, (cst.Element, cst.StarredElement)) and p.value is cur:
            q = ctx.parent(p)
            if not isinstance(q, (cst.Tuple, cst.List)):
                return False
            cur = q
            continue
        break
    if cur is node:
        return False
    return isinstance(p, (cst.AssignTarget, cst.For, cst.CompFor)) and p.target is cur


def _line(ctx: FixContext, node: cst.CSTNode) -> str:
    """The first line of ``node``'s statement, shortened."""
    return ctx.code(ctx.statement(node) or node).strip().splitlines()[0][:50]


def _store_target(ctx: FixContext, node: cst.Attribute) -> bool:
    """``node`` (``self.X``) is what an assignment writes: ``self.X = ...``, ``self.X[k] = ...``."""
    p = ctx.parent(node)
    if isinstance(p, cst.Subscript) and p.value is node:
        node, p = p, ctx.parent(p)  # type: ignore[assignment]
    return isinstance(p, (cst.AssignTarget, cst.AnnAssign)) and p.target is node


def _store_readers(ctx: FixContext, store: cst.Assign) -> tuple[str, str] | NoFix:
    """(the attribute ``store`` sets on ``self``, the first other method that reads it or
    ""), or why the tensor must not be kept there (the traced function reads it back)."""
    attr = _self_store(store.targets[0].target)
    assert attr is not None
    fn = ctx.function(store)
    if fn is None:
        return NoFix("the value is not in a function")
    scope = ctx.enclosing(fn, cst.ClassDef) or fn
    reader = ""
    for n in all_nodes(scope):
        if not isinstance(n, cst.Attribute) or self_attr(n) != attr or _store_target(ctx, n):
            continue
        if eager_only(ctx, n):
            continue
        where = ctx.function(n)
        if where is fn:
            line = ctx.code(ctx.statement(n) or n).strip().splitlines()[0][:40]
            return NoFix(
                f"`self.{attr}` is also read in `{line}`: kept as a tensor it would change what "
                "the model computes"
            )
        if where is not None and not reader and where.name.value != "__init__":
            reader = where.name.value
    if not reader:
        # `blk.last_ppl` read by other code of the file (a parent module, a training step)
        for n in all_nodes(ctx.module):
            if (
                isinstance(n, cst.Attribute)
                and n.attr.value == attr
                and self_attr(n) is None
                and ctx.function(n) is not None
            ):
                reader = ctx.function(n).name.value  # type: ignore[union-attr]
                break
    return attr, reader


def _simple(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or bool(e.lpar)


def _target_name(a: cst.Assign) -> str | None:
    t = a.targets[0].target
    return t.value if isinstance(t, cst.Name) else None


def _wrap_of(value: cst.BaseExpression, default: str) -> str:
    """How eager-only code reads the number back: the conversion the original applied
    last (``int(...)``/``float(...)``), else ``.item()``."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in ("int", "float")
    ):
        return value.func.value
    return default


def _reporting_if(ctx: FixContext, node: cst.CSTNode, fn: cst.FunctionDef) -> cst.If | None:
    """The ``if`` (no ``else``, in a function body) whose test or body holds ``node`` and
    whose body only reports (print, logging, warnings): it can run only in eager."""
    cur: cst.CSTNode | None = node
    while cur is not None and cur is not fn:
        p = ctx.parent(cur)
        if (
            isinstance(p, cst.If)
            and (cur is p.test or cur is p.body)
            and eager_only_body(p) is not None
            and isinstance(ctx.parent(p), cst.IndentedBlock)
        ):
            return p
        cur = p
    return None


def _eager_only(ctx: FixContext, node: cst.CSTNode, fn: cst.FunctionDef) -> bool:
    """Is ``node`` in the body of ``if not torch.compiler.is_compiling():`` (code that
    torch.compile skips) within ``fn``?"""
    cur: cst.CSTNode | None = node
    while cur is not None and cur is not fn:
        p = ctx.parent(cur)
        if isinstance(p, cst.If) and cur is p.body and not_compiling(p.test):
            return True
        cur = p
    return False


def detached(e: cst.BaseExpression) -> cst.Call:
    """``e.detach()``: a Python number read from a tensor carried no gradient; the tensor
    kept in its place must not carry one either."""
    return cst.Call(func=cst.Attribute(value=atom(e), attr=cst.Name("detach")))


def _sizing_call(ctx: FixContext, e: cst.CSTNode) -> cst.Call | None:
    """The call ``e`` is an element of a size tuple or list of (``torch.full((n,), v)``,
    ``torch.zeros([n, d])``), or None."""
    node: cst.CSTNode | None = e
    seen = False
    while node is not None:
        p = ctx.parent(node)
        if isinstance(p, cst.Element) or isinstance(p, (cst.Tuple, cst.List)):
            seen = seen or isinstance(p, (cst.Tuple, cst.List))
            node = p
            continue
        if isinstance(p, cst.Arg) and seen:
            call = ctx.parent(p)
            return call if isinstance(call, cst.Call) else None
        return None
    return None


def accums_of(ends: list[_End]) -> bool:
    return any(e.accum is not None for e in ends)


def _decided_if(ctx: FixContext, cmp: cst.Comparison) -> cst.If | None:
    """The ``if`` statement whose test is ``cmp`` (or ``not cmp``)."""
    cur: cst.CSTNode = cmp
    p = ctx.parent(cur)
    if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, cst.Not):
        cur, p = p, ctx.parent(p)
    if isinstance(p, cst.If) and p.test is cur:
        return p
    return None


def _inside_body(ctx: FixContext, node: cst.CSTNode, branches: list[cst.If]) -> bool:
    """Is ``node`` in the body or ``else`` of one of ``branches`` (not in its test)?"""
    if not branches:
        return False
    ids = {id(b) for b in branches}
    prev: cst.CSTNode = node
    for a in ctx.ancestors(node):
        if id(a) in ids and isinstance(a, cst.If) and prev is not a.test:
            return True
        prev = a
    return False


def _membership(ctx: FixContext, node: cst.CSTNode) -> cst.Comparison | None:
    """``node in self.ids`` / ``node not in self.ids`` with ``self.ids`` int ids set in
    ``__init__`` (:func:`compare.int_ids`)."""
    from compilelint.fix.codemods.compare import int_ids

    p = ctx.parent(node)
    if (
        isinstance(p, cst.Comparison)
        and p.left is node
        and len(p.comparisons) == 1
        and isinstance(p.comparisons[0].operator, (cst.In, cst.NotIn))
        and int_ids(ctx, p.comparisons[0].comparator)
    ):
        return p
    return None
