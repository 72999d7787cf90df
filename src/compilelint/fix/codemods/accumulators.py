"""Running sums, means and EMAs on ``self`` of values read with ``.item()``: tensor buffers.

``self.total += loss.item()`` or ``self.ema = m * self.ema + (1 - m) * h.mean().item()``,
where ``__init__`` starts the attribute at a number literal: the read breaks the graph, and the
attribute is a Python number that changes on every call. As a non-persistent 0-d buffer (float64
for a float literal, so the sum keeps Python's precision) the same statement accumulates the
detached tensor in place of the number (``+=`` steps the buffer in place; ``self.ema = ...``
assigns the buffer a new 0-d tensor, which torch.compile traces as a buffer update), and no
value is read back to Python. Shared by CL103 (``.item()``) through :func:`accumulation`,
:func:`buffer_changes`.

Offered when every other use of the attribute in the class is such an update, a read in
eager-only code, or a read in another method (a trainer's ``average()``): that code now gets a
0-d tensor (``float(model.total)`` gives the number back), which the title says.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from compilelint.fix.codemods.base import all_nodes, arithmetic_top
from compilelint.fix.codemods.observe import eager_only
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.static.analysis.walker import self_attr

_ACC_OPS = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign)


def _target(st: cst.CSTNode) -> str | None:
    if isinstance(st, cst.AugAssign) and isinstance(st.operator, _ACC_OPS):
        return self_attr(st.target)
    if isinstance(st, cst.Assign) and len(st.targets) == 1:
        attr = self_attr(st.targets[0].target)
        if attr and any(self_attr(n) == attr for n in all_nodes(st.value)):
            return attr
    return None


def accumulation(ctx: FixContext, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
    """The update of a running value on ``self`` that ``node`` (a number about to become a
    0-d tensor) is an arithmetic operand of: ``self.X += node``, ``self.X = a * self.X + node``;
    else None."""
    cur = arithmetic_top(ctx, node)
    p = ctx.parent(cur)
    if isinstance(p, (cst.AugAssign, cst.Assign)) and p.value is cur and _target(p):
        return p
    return None


def _init_of(cls: cst.ClassDef) -> cst.FunctionDef | None:
    if not isinstance(cls.body, cst.IndentedBlock):
        return None
    return next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )


def _registered(body: cst.IndentedBlock, attr: str) -> bool:
    """``self.register_buffer("<attr>", ...)`` among ``__init__``'s top-level statements."""
    for st in body.body:
        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
            e = st.body[0]
            if (
                isinstance(e, cst.Expr)
                and isinstance(e.value, cst.Call)
                and isinstance(e.value.func, cst.Attribute)
                and e.value.func.attr.value == "register_buffer"
                and e.value.args
                and isinstance(e.value.args[0].value, cst.SimpleString)
                and e.value.args[0].value.evaluated_value == attr
            ):
                return True
    return False


def buffer_changes(
    ctx: FixContext,
    updates: list[cst.BaseSmallStatement],
    rewritten: cst.CSTNode | None = None,
) -> tuple[list[tuple[cst.CSTNode, cst.CSTNode]], str] | NoFix:
    """The ``__init__`` lines that make the running values of ``updates`` buffers, and the
    title's words; or why one cannot be. ``rewritten``: a statement the caller rewrites
    whole (a guarded update, :func:`guarded_update`), whose reads are its own."""
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    words: list[str] = []
    done: set[str] = set()
    for up in updates:
        attr = _target(up)
        cls = ctx.enclosing(up, cst.ClassDef)
        if attr is None or cls is None:
            return NoFix("the running value is not an attribute of the model's class")
        if attr in done:
            continue
        done.add(attr)
        init = _init_of(cls)
        if init is None or not isinstance(init.body, cst.IndentedBlock):
            return NoFix(f"no `__init__` sets `self.{attr}`")
        line, literal = None, None
        for st in init.body.body:
            if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
                continue
            a = st.body[0]
            if (
                isinstance(a, cst.Assign)
                and len(a.targets) == 1
                and self_attr(a.targets[0].target) == attr
            ):
                if line is not None:
                    return NoFix(f"`__init__` sets `self.{attr}` more than once")
                v = a.value.expression if isinstance(a.value, cst.UnaryOperation) else a.value
                if not isinstance(v, (cst.Integer, cst.Float)):
                    return NoFix(f"`self.{attr}` does not start as a number literal")
                line, literal = st, a.value
        if line is None and _registered(init.body, attr):
            continue  # already a buffer (CL501 made the counter one in an earlier round)
        if line is None or literal is None:
            return NoFix(f"`__init__` does not set `self.{attr}` in its top-level statements")
        readers: set[str] = set()
        traced: list[cst.Attribute] = []  # reads in the traced function, besides updates
        fn = ctx.function(up)
        for n in all_nodes(cls):
            if self_attr(n) != attr or ctx.enclosing(n, cst.FunctionDef) is init:
                continue
            where = ctx.function(n)
            own = next((a for a in ctx.ancestors(n) if _target(a) == attr), None)
            if own is not None:
                continue  # an update of the running value (this one or another)
            if rewritten is not None and any(a is rewritten for a in ctx.ancestors(n)):
                continue
            if eager_only(ctx, n):
                continue
            if where is fn or where is None:
                if not isinstance(n, cst.Attribute):
                    code = ctx.code(ctx.statement(n) or n).strip().splitlines()[0][:50]
                    return NoFix(f"`self.{attr}` is also used in `{code}`")
                traced.append(n)
                continue
            readers.add(where.name.value)
        is_float = isinstance(
            literal.expression if isinstance(literal, cst.UnaryOperation) else literal,
            cst.Float,
        )
        if traced:
            # the running value is read by the model too (`loss / (self.ema + eps)`, `x /
            # self.amax`): each read must compute the same with a 0-d tensor, as tensor
            # arithmetic (`counters.tensor_reads`); a read that needs a Python number (a size,
            # a Python `if`, a number-only argument) keeps it a number: refused with the reason
            from compilelint.fix.codemods.counters import tensor_reads

            joint = tensor_reads(ctx, cls, attr, traced)
            if isinstance(joint, NoFix):
                return NoFix(
                    joint.reason.replace(
                        "keep it a Python int outside `forward` (the training loop) or pass it in",
                        "the statistic must stay a Python number there: update it outside "
                        "`forward` (a hook or the training loop) or pass it in",
                    )
                )
            changes += joint
        # read by the traced code, the buffer takes the default dtype, so that its reads
        # compute in the dtype of the tensors they meet (float64 would promote a 0-d loss)
        dtype = f", dtype={ctx.torch('float64')}" if is_float and not traced else ""
        new = cst.parse_statement(
            f'self.register_buffer("{attr}", {ctx.torch("tensor")}({ctx.code(literal).strip()}'
            f"{dtype}), persistent=False)\n"
        )
        assert isinstance(new, cst.SimpleStatementLine)
        changes.append(
            (
                line,
                new.with_changes(
                    leading_lines=line.leading_lines,
                    trailing_whitespace=line.trailing_whitespace,
                ),
            )
        )
        also = (
            " (read in " + ", ".join(f"`{r}()`" for r in sorted(readers)) + ", which now gets it)"
            if readers
            else ""
        )
        words.append(
            f"`self.{attr}` becomes a non-persistent 0-d buffer accumulated as a tensor "
            f"(`model.{attr}` is now a tensor{also}; the state_dict is unchanged)"
            + (
                "; forward reads it as a 0-d tensor (float32 where it started as a float)"
                if traced
                else ""
            )
        )
    return changes, "; ".join(words)


# ---------------------------------------------------------------------------- guarded updates
def _conjuncts(e: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.And):
        return [*_conjuncts(e.left), *_conjuncts(e.right)]
    return [e]


class _LowerMinMax(cst.CSTTransformer):
    """``min(a, b)``/``max(a, b)`` of an update whose state ``attrs`` are 0-d tensors:
    ``torch.clamp(a, max=b)`` where only ``a`` holds state (``b`` a number), ``torch.minimum``
    where both do."""

    def __init__(self, ctx: FixContext, attrs: set[str]) -> None:
        self.ctx, self.attrs = ctx, attrs

    def _state(self, e: cst.CSTNode) -> bool:
        return any(self_attr(n) in self.attrs for n in all_nodes(e))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        f = updated.func
        if not (isinstance(f, cst.Name) and f.value in ("min", "max")):
            return updated
        a, b = updated.args[0].value, updated.args[1].value
        sa, sb = self._state(a), self._state(b)
        if sa and sb:
            fn = "minimum" if f.value == "min" else "maximum"
            return cst.parse_expression(
                f"{self.ctx.torch(fn)}({self.ctx.code(a).strip()}, {self.ctx.code(b).strip()})"
            )
        t, n = (a, b) if sa else (b, a)
        bound = "max" if f.value == "min" else "min"
        return cst.parse_expression(
            f"{self.ctx.torch('clamp')}({self.ctx.code(t).strip()}, "
            f"{bound}={self.ctx.code(n).strip()})"
        )


def guarded_update(
    ctx: FixContext, origin: cst.CSTNode, replacement: cst.BaseExpression
) -> Rewrite | NoFix | None:
    """``if <py> and v.item() > self.cap * k: self.cap = min(self.cap + d, m)``: a running value
    on ``self`` updated when a tensor's number passes a test (a KL capacity raised, a best
    score kept). The value becomes a 0-d buffer (:func:`buffer_changes`) and the update a
    choice made by a tensor: ``self.cap = torch.where(v.detach() > self.cap * k, torch.clamp(
    self.cap + d, max=m), self.cap)``, under the test's Python parts (``self.training``). None
    when ``origin`` (the ``.item()``) is not in the test of such an ``if``."""
    from compilelint.fix.codemods.counters import _number_like

    node = next(
        (
            a
            for a in ctx.ancestors(origin)
            if isinstance(a, cst.If) and any(x is origin for x in all_nodes(a.test))
        ),
        None,
    )
    if node is None or node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    updates: list[cst.Assign] = []
    for st in node.body.body:
        a = st.body[0] if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 else None
        if not isinstance(a, cst.Assign) or _target(a) is None:
            return None
        updates.append(a)
    attrs = {_target(a) for a in updates}
    assert None not in attrs
    state: set[str] = {a for a in attrs if a}
    py: list[cst.BaseExpression] = []
    tensor: list[cst.BaseExpression] = []
    for part in _conjuncts(node.test):
        if any(x is origin for x in all_nodes(part)):
            tensor.append(part)
        elif any(self_attr(x) in state for x in all_nodes(part)) or any(
            isinstance(x, cst.Call) for x in all_nodes(part)
        ):
            return NoFix(
                f"the test `{ctx.code(part).strip()[:40]}` of the guarded update is neither a "
                "Python flag nor the tensor's test"
            )
        else:
            py.append(part)
    if len(tensor) != 1 or not isinstance(tensor[0], cst.Comparison):
        return NoFix("the tensor's number is not compared in the test of the guarded update")
    cmp = tensor[0]
    for side in [cmp.left, *(c.comparator for c in cmp.comparisons)]:
        if any(x is origin for x in all_nodes(side)):
            continue
        if not _number_like(ctx, side, ""):
            return NoFix(
                f"the tensor's number is compared with `{ctx.code(side).strip()[:40]}`, not a "
                "number or the running value"
            )
    for a in updates:
        for x in all_nodes(a.value):
            if isinstance(x, cst.Call) and not (
                isinstance(x.func, cst.Name)
                and x.func.value in ("min", "max")
                and len(x.args) == 2
                and not any(g.keyword or g.star for g in x.args)
            ):
                return NoFix(
                    f"the update `{ctx.code(a).strip()[:40]}` calls "
                    f"`{ctx.code(x.func).strip()[:30]}`, not arithmetic of the running value"
                )
        if not _number_like(ctx, _strip_minmax(a.value), ""):
            return NoFix(f"the update `{ctx.code(a).strip()[:40]}` is not arithmetic of numbers")

    class _Origin(cst.CSTTransformer):
        def on_leave(self, o: cst.CSTNode, u: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return replacement if o is origin else u

    cond = ctx.code(cast(cst.CSTNode, cmp.visit(_Origin()))).strip()
    lines: list[str] = []
    for a in updates:
        attr = _target(a)
        new = ctx.code(cast(cst.CSTNode, a.value.visit(_LowerMinMax(ctx, state)))).strip()
        lines.append(f"self.{attr} = {ctx.torch('where')}({cond}, {new}, self.{attr})")
    indent = "    "
    if py:
        test = " and ".join(ctx.code(x).strip() for x in py)
        text = f"if {test}:\n" + "".join(f"{indent}{ln}\n" for ln in lines)
    else:
        text = "".join(f"{ln}\n" for ln in lines)
    stmts = list(cst.parse_module(text).body)
    stmts[0] = stmts[0].with_changes(leading_lines=node.leading_lines)
    buffered = buffer_changes(ctx, list(updates), rewritten=node)
    if isinstance(buffered, NoFix):
        return buffered
    names = ", ".join(f"`self.{a}`" for a in sorted(state))
    return Rewrite(
        title=(
            f"the guarded update of {names} becomes a choice made by a tensor (`torch.where`: "
            f"the update is computed on every call and kept where the test holds); " + buffered[1]
        ),
        changes=[(node, cst.FlattenSentinel(stmts)), *buffered[0]],
        imports=("torch",),
    )


def _strip_minmax(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` with each ``min(a, b)``/``max(a, b)`` replaced by ``a + b`` (for the check that
    the rest is arithmetic of numbers)."""

    class T(cst.CSTTransformer):
        def leave_Call(self, o: cst.Call, u: cst.Call) -> cst.BaseExpression:
            if isinstance(u.func, cst.Name) and u.func.value in ("min", "max"):
                return cst.BinaryOperation(
                    left=u.args[0].value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
                    ),
                    operator=cst.Add(),
                    right=u.args[1].value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
                    ),
                )
            return u

    return e.visit(T())  # type: ignore[return-value]


# ---------------------------------------------------------------------------- key counts
_DICT_CTORS = frozenset({"dict", "Counter", "collections.Counter", "defaultdict"})
_SIZE_OF = {"Embedding": "num_embeddings", "Linear": "out_features"}
_SAME_SHAPE = frozenset(
    {"softmax", "log_softmax", "sigmoid", "float", "detach", "exp", "abs", "neg", "clone"}
)


def _dict_init(value: cst.BaseExpression) -> bool:
    """``{}``, ``dict()``, ``Counter()``, ``defaultdict(int)``."""
    if isinstance(value, cst.Dict) and not value.elements:
        return True
    if not isinstance(value, cst.Call):
        return False
    name = cst.Module([]).code_for_node(value.func)
    if name.endswith("defaultdict"):
        return len(value.args) == 1 and cst.Module([]).code_for_node(value.args[0].value) == "int"
    return name in _DICT_CTORS and not value.args


def _count_step(st: cst.BaseStatement, key: str) -> str | None:
    """``X`` of a loop body that adds one to ``self.X[key]``: ``self.X[key] += 1``,
    ``self.X[key] = self.X.get(key, 0) + 1``, ``self.X[key] = self.X[key] + 1``."""
    if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
        return None
    a = st.body[0]
    code = cst.Module([]).code_for_node
    if isinstance(a, cst.AugAssign) and isinstance(a.operator, cst.AddAssign):
        target, value = a.target, a.value
        ok = code(value).strip() == "1"
    elif isinstance(a, cst.Assign) and len(a.targets) == 1:
        target, value = a.targets[0].target, a.value
        ok = False
    else:
        return None
    if not (isinstance(target, cst.Subscript) and len(target.slice) == 1):
        return None
    attr = self_attr(target.value)
    if attr is None or code(target.slice[0]).strip() != key:
        return None
    if isinstance(a, cst.Assign):
        v = code(value).replace(" ", "")
        ok = v in (f"self.{attr}.get({key},0)+1", f"self.{attr}[{key}]+1")
    return attr if ok else None


def _counted(ctx: FixContext, call: cst.Call) -> tuple[cst.CSTNode, str] | None:
    """(the statement that counts the keys of ``call``'s list on ``self``, the attribute):
    ``for k in t.tolist(): self.X[k] += 1`` or ``self.X.update(t.tolist())``."""
    p = ctx.parent(call)
    if isinstance(p, cst.For) and p.iter is call and isinstance(p.target, cst.Name):
        if p.orelse is None and isinstance(p.body, cst.IndentedBlock) and len(p.body.body) == 1:
            attr = _count_step(p.body.body[0], p.target.value)
            if attr is not None:
                return p, attr
        return None
    if isinstance(p, cst.Arg):
        up = ctx.parent(p)
        if (
            isinstance(up, cst.Call)
            and len(up.args) == 1
            and isinstance(up.func, cst.Attribute)
            and up.func.attr.value == "update"
            and self_attr(up.func.value)
        ):
            expr = ctx.parent(up)
            line = ctx.parent(expr) if isinstance(expr, cst.Expr) else None
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                return line, self_attr(up.func.value)  # type: ignore[return-value]
    return None


def _size_of(ctx: FixContext, cls: cst.ClassDef, fn: cst.FunctionDef, t: cst.CSTNode) -> str | None:
    """How many keys the counted tensor can hold, as code that forward can read: the
    ``num_embeddings`` of an ``nn.Embedding`` the same tensor indexes (``self.codebook(idx)``,
    ``self.emb(input_ids)``), or the ``out_features`` of the ``nn.Linear`` whose output it is
    the ``argmax``/``argmin`` of."""
    from compilelint.fix.codemods.base import name_nodes

    kinds: dict[str, str] = {}
    init = _init_of(cls)
    for n in all_nodes(init) if init is not None else []:
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.value, cst.Call):
            attr = self_attr(n.targets[0].target)
            func = cst.Module([]).code_for_node(n.value.func)
            kind = func.rsplit(".", 1)[-1]
            if attr and kind in _SIZE_OF:
                kinds[attr] = kind
    names = [n.value for n in name_nodes(t)]
    if len(names) != 1:
        return None
    base = names[0]

    def module_call(e: cst.CSTNode) -> str | None:
        if isinstance(e, cst.Call) and self_attr(e.func) in kinds:
            return self_attr(e.func)
        return None

    for r in name_nodes(fn.body, base, reads_only=True):  # `self.codebook(idx)`
        arg = ctx.parent(r)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        m = module_call(call) if call is not None else None
        if m is not None and kinds[m] == "Embedding" and call.args[0] is arg:  # type: ignore[union-attr]
            return f"self.{m}.num_embeddings"
    for n in all_nodes(fn.body):  # `preds = self.fc(x).argmax(1)`, through one local
        if not (isinstance(n, cst.Assign) and len(n.targets) == 1):
            continue
        if cst.Module([]).code_for_node(n.targets[0].target).strip() != base:
            continue
        v = n.value
        if not (
            isinstance(v, cst.Call)
            and isinstance(v.func, cst.Attribute)
            and v.func.attr.value in ("argmax", "argmin")
        ):
            return None
        src = v.func.value
        while (  # `scores.softmax(-1).argmax(-1)`: elementwise maps keep the class axis
            isinstance(src, cst.Call)
            and isinstance(src.func, cst.Attribute)
            and src.func.attr.value in _SAME_SHAPE
        ):
            src = src.func.value
        m = module_call(src)
        if m is None and isinstance(src, cst.Name):
            for b in all_nodes(fn.body):
                if (
                    isinstance(b, cst.Assign)
                    and len(b.targets) == 1
                    and isinstance(b.targets[0].target, cst.Name)
                    and b.targets[0].target.value == src.value
                ):
                    m = module_call(b.value)
        if m is not None and kinds[m] == "Linear":
            return f"self.{m}.out_features"
    return None


def key_counts(ctx: FixContext, call: cst.Call) -> Rewrite | Proposal | NoFix | None:
    """``for k in t.tolist(): self.X[k] += 1`` (or ``self.X.update(t.tolist())``) where
    ``__init__`` starts ``self.X`` as an empty dict, ``Counter`` or ``defaultdict(int)``:
    a count per key in a tensor buffer, ``self.X.index_add_(0, ids, torch.ones_like(ids))``,
    when the number of keys is known; None when the list is not counted on ``self``."""
    got = _counted(ctx, call)
    if got is None:
        return None
    stmt, attr = got
    cls = ctx.enclosing(stmt, cst.ClassDef)
    fn = ctx.function(stmt)
    init = _init_of(cls) if cls is not None else None
    if cls is None or fn is None or init is None or not isinstance(init.body, cst.IndentedBlock):
        return NoFix(f"`self.{attr}` is not set in the class's `__init__`")
    line = None
    for st in init.body.body:
        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
            a = st.body[0]
            if isinstance(a, (cst.Assign, cst.AnnAssign)):
                t = a.targets[0].target if isinstance(a, cst.Assign) else a.target
                if self_attr(t) == attr and a.value is not None and _dict_init(a.value):
                    line = st
    if line is None:
        return NoFix(
            f"`self.{attr}` does not start as an empty dict, `Counter` or `defaultdict(int)`"
        )
    readers: list[str] = []
    for n in all_nodes(cls):
        if self_attr(n) != attr or ctx.enclosing(n, cst.FunctionDef) is init:
            continue
        if any(a is stmt for a in ctx.ancestors(n)) or eager_only(ctx, n):
            continue
        where = ctx.function(n)
        readers.append(where.name.value if where is not None else "?")
    t = call.func.value  # type: ignore[attr-defined]
    size = _size_of(ctx, cls, fn, t)
    if size is None:
        return NoFix(
            f"`self.{attr}` counts the values of `{ctx.code(t).strip()[:40]}`, but how many "
            "keys it can hold is not known (no `nn.Embedding` it indexes, no `nn.Linear` whose "
            "`argmax` it is): keep the counts in a buffer of that size by hand, "
            f"`self.{attr}.index_add_(0, ids, torch.ones_like(ids))`"
        )
    ids = ctx.fresh_name("ids")
    tt = ctx.torch
    flat = ctx.code(t).strip()
    if not flat.endswith(".flatten()"):
        flat += ".flatten()"
    text = f"{ids} = {flat}\nself.{attr}.index_add_(0, {ids}, {tt('ones_like')}({ids}))\n"
    body = cst.parse_module(text).body
    first = body[0].with_changes(leading_lines=stmt.leading_lines)  # type: ignore[attr-defined]
    buf = cst.parse_statement(
        f'self.register_buffer("{attr}", {tt("zeros")}({size}, '
        f"dtype={tt('long')}), persistent=False)\n"
    )
    new_init = buf.with_changes(
        leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace
    )
    changes: list[tuple[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[cst.BaseStatement]]] = [
        (line, new_init),
        (stmt, cst.FlattenSentinel([first, *body[1:]])),
    ]
    title = (
        f"count the keys in a tensor: `self.{attr}` becomes a non-persistent buffer of "
        f"{size} counts (`model.{attr}[k]` is the count of key `k`; `model.{attr}` is now a "
        "tensor, not a dict; the state_dict is unchanged), stepped with `index_add_`"
    )
    if readers:
        return Proposal(
            title,
            changes,
            reason=(
                f"`self.{attr}` is also read in "
                + ", ".join(f"`{r}()`" for r in sorted(set(readers)))
                + ", which reads a dict (`.get`, `.items()`, `.most_common()`): change those "
                "reads to the tensor of counts with this patch"
            ),
            imports=("torch",),
        )
    return Rewrite(title, changes, imports=("torch",))
