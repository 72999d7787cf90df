"""CL502: ``requires_grad_()`` + ``torch.autograd.grad`` in forward -> ``torch.func.vjp``.

Gradient penalties (WGAN-GP), physics-informed residuals (``u_t - k * u_xx``) and saliency
maps differentiate a value computed in ``forward`` with respect to a tensor made there::

    xt = xt.clone().requires_grad_(True)           # GB8985 when a value derived from it leaks
    u = self.net(xt)
    g = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]   # GB9186

Dynamo breaks at both (``requires_grad_()`` on an intermediate that reaches the output, and
``torch.autograd.grad`` while ``trace_autograd_ops`` is off). ``torch.func.vjp`` computes the
same vector-Jacobian product as a function transform, which dynamo traces into one graph::

    xt = xt.clone()
    def _vjp_f(xt):
        u = self.net(xt)
        return u.sum(), (u,)
    _vjp_out, _vjp_pull, (u,) = torch.func.vjp(_vjp_f, xt, has_aux=True)
    g = _vjp_pull(torch.ones_like(_vjp_out))[0]

Why it is the same: ``autograd.grad(out, x, grad_outputs=v)`` is the product ``v^T dout/dx``,
which is what the pullback of ``vjp`` returns for ``v`` (``ones_like(out)`` when no
``grad_outputs`` is given, as ``autograd.grad`` does for a scalar ``out``), as a tuple with one
entry per input, as ``autograd.grad`` returns. The statements between ``requires_grad_()`` and
the gradient run once, inside the function, in the same order; their values that later code
reads come back as ``vjp``'s auxiliary outputs. Function transforms are differentiable with
respect to the tensors they close over (the parameters), so the outer ``backward`` reaches the
same gradients as with ``create_graph=True``; with ``create_graph=False`` the gradients are
detached as ``autograd.grad`` leaves them. A second gradient of a gradient (``u_xx``) wraps
the first rewrite in the second function: statements are rewritten one gradient at a time.

Also: ``t.requires_grad = True`` (GB0206) for ``requires_grad_()``; the whole in a ``with``
(``torch.enable_grad()``) or ``if`` block of the function (names read after the block come
back as aux); the gradient in a ``for``/``while`` body that ends by making the next ``t`` with
``requires_grad_()`` (Langevin steps, PGD), ``t`` made so before the loop. With grad mode off
``autograd.grad`` raises: a ``torch.is_grad_enabled()`` check raises the same error.

Applied when: the receiver of ``requires_grad_()`` is a tensor made here (an argument, a
``self`` attribute, subscript or alias gets the same rewrite as a proposal: the caller would
see its tensor change no more); every later ``autograd.grad`` with respect to it has that one
input and lies in a simple statement of the same block; the statements between are plain
assignments to names without in-place calls, none read before assigned (they become locals of
the function); the tensor is neither rebound before its last gradient nor read after it other
than to ``.detach()`` it (a value computed from it would no longer require grad);
``allow_unused``/``is_grads_batched``/``materialize_grads`` are not passed. Unsafe: a value
computed only from that tensor (no parameter) no longer reports ``requires_grad``.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    Codemod,
    bound_names,
    name_nodes,
    names_in,
    side_effect,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding

_RECIPE = (
    "set `requires_grad` outside the compiled region, or compute the gradient with "
    "`torch.func.vjp`/`torch.func.grad` (dynamo traces function transforms)"
)
_NO_GRAD = "element 0 of tensors does not require grad and does not have a grad_fn"
_REFUSED_KW = ("allow_unused", "is_grads_batched", "materialize_grads")
# autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, ...)
_POSITIONS = ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs")


def _dotted(e: cst.BaseExpression) -> str:
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute):
        head = _dotted(e.value)
        return f"{head}.{e.attr.value}" if head else ""
    return ""


def _imports(module: cst.Module) -> dict[str, str]:
    """Local name -> dotted origin for the module's top-level imports."""
    out: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for a in small.names:
                    full = _dotted(a.name)  # type: ignore[arg-type]
                    if a.asname is not None and isinstance(a.asname.name, cst.Name):
                        out[a.asname.name.value] = full
                    else:
                        out[full.split(".")[0]] = full.split(".")[0]
            elif isinstance(small, cst.ImportFrom) and small.module is not None:
                mod = _dotted(small.module)
                if small.relative or isinstance(small.names, cst.ImportStar):
                    continue
                for a in small.names:
                    name = _dotted(a.name)  # type: ignore[arg-type]
                    local = (
                        a.asname.name.value
                        if a.asname is not None and isinstance(a.asname.name, cst.Name)
                        else name
                    )
                    out[local] = f"{mod}.{name}"
    return out


def _is_autograd_grad(call: cst.Call, imports: dict[str, str]) -> bool:
    text = _dotted(call.func)
    if not text:
        return False
    head, _, rest = text.partition(".")
    origin = imports.get(head)
    if origin is None:
        return False
    full = f"{origin}.{rest}" if rest else origin
    return full == "torch.autograd.grad"


def _grad_calls(node: cst.CSTNode, imports: dict[str, str]) -> list[cst.Call]:
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            if _is_autograd_grad(n, imports):
                found.append(n)

    node.visit(V())
    return found


def _requires_grad_call(e: cst.CSTNode) -> bool:
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Attribute)
        and e.func.attr.value == "requires_grad_"
    )


def _true_args(call: cst.Call) -> bool:
    """``requires_grad_()`` / ``(True)`` / ``(requires_grad=True)``."""
    if not call.args:
        return True
    if len(call.args) != 1 or call.args[0].star:
        return False
    a = call.args[0]
    kw_ok = a.keyword is None or a.keyword.value == "requires_grad"
    return kw_ok and isinstance(a.value, cst.Name) and a.value.value == "True"


def _fresh_value(e: cst.BaseExpression) -> bool:
    """A tensor this expression makes (not a name, attribute or subscript: an alias of a
    caller's tensor, a parameter or a view)."""
    return not isinstance(e, (cst.Name, cst.Attribute, cst.Subscript))


def _targets(small: cst.BaseSmallStatement) -> set[str] | None:
    """Names a plain assignment binds; None for anything else."""
    out: set[str] = set()

    def add(t: cst.BaseExpression) -> bool:
        if isinstance(t, cst.Name):
            out.add(t.value)
            return True
        if isinstance(t, (cst.Tuple, cst.List)):
            return all(add(el.value) for el in t.elements if not isinstance(el, cst.StarredElement))
        return False

    if isinstance(small, cst.Assign):
        return out if all(add(t.target) for t in small.targets) else None
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        return out if add(small.target) else None
    return None


def _stmt_targets(st: cst.BaseStatement) -> set[str]:
    out: set[str] = set()
    if isinstance(st, cst.SimpleStatementLine):
        for small in st.body:
            out |= _targets(small) or set()
    elif isinstance(st, cst.FunctionDef):
        out.add(st.name.value)
    return out


def _only_targets(st: cst.BaseStatement) -> set[str]:
    """Names of ``st`` that appear only as assignment targets (not read)."""
    if not isinstance(st, cst.SimpleStatementLine):
        return set()
    out: set[str] = set()
    for small in st.body:
        if isinstance(small, cst.Assign):
            read = names_in(small.value)
            out |= (_targets(small) or set()) - read
    return out


def _bool_literal(e: cst.BaseExpression | None) -> bool | None:
    if e is None:
        return False
    if isinstance(e, cst.Name) and e.value in ("True", "False"):
        return e.value == "True"
    return None


class _Grad:
    """One ``autograd.grad(out, x, ...)`` call, its parts by name."""

    def __init__(self, call: cst.Call) -> None:
        self.call = call
        self.parts: dict[str, cst.BaseExpression] = {}
        self.error = ""
        for i, a in enumerate(call.args):
            if a.star:
                self.error = "the call passes `*`/`**` arguments"
                return
            key = a.keyword.value if a.keyword is not None else _POSITIONS[min(i, 5)]
            self.parts[key] = a.value
        bad = [k for k in self.parts if k in _REFUSED_KW]
        if bad:
            self.error = f"`{bad[0]}=` is passed (the transform has no counterpart)"

    def input_name(self) -> str | None:
        e = self.parts.get("inputs")
        if isinstance(e, (cst.List, cst.Tuple)) and len(e.elements) == 1:
            e = e.elements[0].value
        return e.value if isinstance(e, cst.Name) else None


class RequiresGradVjp(Codemod):
    CODE = "CL502"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        calls: list[cst.Call | cst.Assign] = [
            c for c in ctx.nodes_at(finding, cst.Call) if _requires_grad_call(c)
        ]
        if not calls:
            calls = [c for c in ctx.on_line(finding.line, cst.Call) if _requires_grad_call(c)]
        if not calls:
            calls = [a for a in ctx.on_line(finding.line, cst.Assign) if _attr_true(a)]
        if not calls:
            calls = _requires_grad_of_grad(ctx, finding)
        if not calls:
            arg = _argument_grad(ctx, finding)
            if arg is not None:
                return arg
            return NoFix(f"no `requires_grad_()` call on this line: {_RECIPE}")
        call = calls[0]
        if isinstance(call, cst.Call) and not _true_args(call):
            return NoFix(f"`requires_grad_` is not given `True`: {_RECIPE}")
        line = ctx.statement(call)
        fn = ctx.function(call)
        where = _block_of(ctx, line) if line is not None else None
        if (
            fn is None
            or not isinstance(line, cst.SimpleStatementLine)
            or len(line.body) != 1
            or where is None
        ):
            return NoFix(
                f"`requires_grad_()` is not a statement of its function's body (or of a "
                f"`with`/`if` there): {_RECIPE}"
            )
        body, outer_later = where
        i = body.index(line)
        small = line.body[0]
        recv = (
            call.targets[0].target.value  # type: ignore[attr-defined]
            if isinstance(call, cst.Assign)
            else call.func.value  # type: ignore[attr-defined]
        )
        new_first: cst.SimpleStatementLine | None
        attr_form = small is call and isinstance(recv, cst.Name)  # `t.requires_grad = True`
        if attr_form or (
            isinstance(small, cst.Expr) and small.value is call and isinstance(recv, cst.Name)
        ):
            x = recv.value
            made = _last_binding(body[:i], x)
            new_first = None
            if made is None or not _fresh_value(made):
                why = (
                    f"`{x}` is not a tensor made in this function (an argument, attribute or "
                    f"alias): removing `requires_grad_()` would change the caller's"
                )
                return _propose(_rewrite(ctx, fn, body, i, x, new_first, outer_later), why)
        elif (
            isinstance(small, cst.Assign)
            and small.value is call
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            x = small.targets[0].target.value
            if isinstance(recv, cst.Name) and recv.value == x:
                made = _last_binding(body[:i], x)  # `h = h.requires_grad_()`
                fresh = made is not None and _fresh_value(made)
            else:
                fresh = _fresh_value(recv)
            new_first = line.with_changes(body=[small.with_changes(value=recv)])
            if not fresh:
                why = (
                    f"`{ctx.code(recv)}` is not a tensor made here: removing `requires_grad_()` "
                    f"would change the caller's"
                )
                return _propose(_rewrite(ctx, fn, body, i, x, new_first, outer_later), why)
        else:
            return NoFix(
                f"`requires_grad_()` is neither a statement nor assigned to a name: {_RECIPE}"
            )
        return _rewrite(ctx, fn, body, i, x, new_first, outer_later)


def _propose(res: Rewrite | NoFix, why: str) -> Proposal | NoFix:
    """The rewrite shown, never applied: the caller sees its tensor change no more (its
    ``requires_grad``, and the ``.grad`` a later ``backward`` fills)."""
    if isinstance(res, NoFix):
        return NoFix(f"{why}; {res.reason}")
    return Proposal(
        res.title,
        res.changes,
        reason=f"{why} (its `requires_grad`, and the `.grad` a later `backward` fills)",
        imports=res.imports,
    )


def _argument_grad(ctx: FixContext, finding: Finding) -> Rewrite | NoFix | None:
    """``torch.autograd.grad(out, x, ...)`` of an argument ``x`` of the function, never
    rebound there (the caller made it require grad: a PINN's collocation points): the same
    rewrite from the top of the body, nothing removed. ``x`` keeps its ``requires_grad``, so
    it may be read anywhere; where it does not require grad ``autograd.grad`` raises, and so
    does a check of ``x.requires_grad``. None: not this form."""
    imports = _imports(ctx.module)
    grads = [c for c in ctx.on_line(finding.line, cst.Call) if _is_autograd_grad(c, imports)]
    x = _Grad(grads[0]).input_name() if grads else None
    fn = ctx.function(grads[0]) if grads else None
    line = ctx.statement(grads[0]) if grads else None
    if x is None or fn is None or line is None or not isinstance(fn.body, cst.IndentedBlock):
        return None
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}
    if x not in params or x in bound_names(fn) or ctx.parent(line) is not fn.body:
        return None
    body = list(fn.body.body)
    start = 0
    first = body[0] if body else None
    if (
        isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        start = 1  # the docstring stays
    plan = _plan(ctx, body, start, x)
    if isinstance(plan, NoFix):
        return plan
    block, _, last = plan
    check = cst.parse_statement(
        f"if not {x}.requires_grad:\n"
        '    raise RuntimeError("One of the differentiated Tensors does not require grad")\n'
    )
    new_stmts = [_no_grad_guard(ctx), check, *block]
    new_stmts[0] = new_stmts[0].with_changes(leading_lines=_leading(body[start]))
    changes: list[tuple[cst.CSTNode, object]] = [(body[start], cst.FlattenSentinel(new_stmts))]
    changes += [(st, cst.RemovalSentinel.REMOVE) for st in body[start + 1 : last + 1]]
    return Rewrite(_title(x), changes, imports=("torch",))  # type: ignore[arg-type]


def _attr_true(a: cst.Assign) -> bool:
    """``t.requires_grad = True`` (``t`` a name)."""
    return (
        len(a.targets) == 1
        and isinstance(a.targets[0].target, cst.Attribute)
        and a.targets[0].target.attr.value == "requires_grad"
        and isinstance(a.targets[0].target.value, cst.Name)
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
    )


def _block_of(
    ctx: FixContext, line: cst.CSTNode
) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement]] | None:
    """(the statements of the block holding ``line``, the statements that run after that
    block up to the end of the function) when the block is the function's body or lies in
    it through ``with`` and ``if`` blocks only (each runs once per call); else None."""
    block = ctx.parent(line)
    if not isinstance(block, cst.IndentedBlock):
        return None
    later: list[cst.BaseStatement] = []
    cur: cst.CSTNode = block
    while True:
        owner = ctx.parent(cur)
        if isinstance(owner, cst.FunctionDef):
            return list(block.body), later
        if isinstance(owner, cst.Else):
            owner = ctx.parent(owner)
        if not isinstance(owner, (cst.With, cst.If)):
            return None
        outer = ctx.parent(owner)
        while isinstance(outer, (cst.If, cst.Else)):  # an `elif` chain
            owner, outer = outer, ctx.parent(outer)
        if not isinstance(outer, cst.IndentedBlock):
            return None
        stmts = list(outer.body)
        later += stmts[stmts.index(owner) + 1 :]  # type: ignore[arg-type]
        cur = outer


def _requires_grad_of_grad(ctx: FixContext, finding: Finding) -> list[cst.Call | cst.Assign]:
    """For an ``autograd.grad`` finding (GB9186): the ``requires_grad_()`` call that made its
    input, a statement earlier in the same body (the rewrite starts there)."""
    imports = _imports(ctx.module)
    grads = [c for c in ctx.on_line(finding.line, cst.Call) if _is_autograd_grad(c, imports)]
    if not grads:
        return []
    x = _Grad(grads[0]).input_name()
    line = ctx.statement(grads[0])
    if x is None or line is None:
        return []
    where = _block_of(ctx, line)
    if where is None:
        # in the body of a loop: made before the loop
        block = ctx.parent(line)
        loop = ctx.parent(block) if block is not None else None
        if not isinstance(loop, (cst.For, cst.While)):
            return []
        where, line = _block_of(ctx, loop), loop
        if where is None:
            return []
    body = where[0]
    for st in reversed(body[: body.index(line)]):
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            continue
        small = st.body[0]
        if (
            isinstance(small, cst.Assign)
            and _attr_true(small)
            and small.targets[0].target.value.value == x  # type: ignore[attr-defined]
        ):
            return [small]
        value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if not _requires_grad_call(value):  # type: ignore[arg-type]
            continue
        recv = value.func.value  # type: ignore[union-attr]
        if isinstance(small, cst.Expr) and isinstance(recv, cst.Name) and recv.value == x:
            return [value]  # type: ignore[list-item]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == x
        ):
            return [value]  # type: ignore[list-item]
    return []


def _last_binding(stmts: list[cst.BaseStatement], name: str) -> cst.BaseExpression | None:
    """The value of the last plain ``name = value`` among ``stmts`` (None: none, or another
    kind of binding comes later)."""
    value: cst.BaseExpression | None = None
    for st in stmts:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value == name
                ):
                    value = small.value
                elif name in (_targets(small) or set()):
                    value = None
        elif name in _stmt_targets(st) or name in names_in(st):
            value = None
    return value


def _rewrite(
    ctx: FixContext,
    fn: cst.FunctionDef,
    body: list[cst.BaseStatement],
    i: int,
    x: str,
    new_first: cst.SimpleStatementLine | None,
    outer_later: list[cst.BaseStatement] = (),  # type: ignore[assignment]
) -> Rewrite | NoFix:
    """From ``requires_grad_()`` at ``body[i]``: its gradients in the statements that follow
    it, or in the body of the loop that follows it (Langevin steps, PGD attacks), where the
    body ends by making the next ``x`` with ``requires_grad_()`` again."""
    k = i + 1
    while k < len(body) and x not in names_in(body[k]):
        k += 1
    loop = body[k] if k < len(body) else None
    if not isinstance(loop, (cst.For, cst.While)):
        plan = _plan(ctx, body, i + 1, x, list(outer_later))
        if isinstance(plan, NoFix):
            return plan
        block, first_i, last = plan
        if _reads([*body[last + 1 :], *outer_later], x):
            return NoFix(_READ_AFTER.format(x=x, recipe=_RECIPE))
        changes: list[tuple[cst.CSTNode, object]] = []
        head = [new_first] if new_first is not None else []
        new_stmts = [*head, _no_grad_guard(ctx), *block]
        if new_first is None:  # the removed statement's comments lead what replaces it
            new_stmts[0] = new_stmts[0].with_changes(
                leading_lines=[*_leading(body[i]), *_leading(new_stmts[0])]
            )
        changes.append((body[i], cst.FlattenSentinel(new_stmts)))
        changes += [(st, cst.RemovalSentinel.REMOVE) for st in body[i + 1 : last + 1]]
        return Rewrite(_title(x), changes, imports=("torch",))  # type: ignore[arg-type]
    if loop.orelse is not None or not isinstance(loop.body, cst.IndentedBlock):
        return NoFix(f"the loop over the gradients of `{x}` has an `else`: {_RECIPE}")
    lb = list(loop.body.body)
    rebind = _rebind(lb[-1], x) if lb else None
    if rebind is None:
        return NoFix(
            f"the loop does not end by making the next `{x}` with `requires_grad_()` on a new "
            f"tensor: {_RECIPE}"
        )
    plan = _plan(ctx, lb[:-1], 0, x, [lb[-1], *body[k + 1 :], *outer_later])
    if isinstance(plan, NoFix):
        return plan
    block, _, last = plan
    if _reads([*lb[last + 1 : -1], lb[-1], *body[k + 1 :], *outer_later], x):
        return NoFix(_READ_AFTER.format(x=x, recipe=_RECIPE))
    changes = []
    changes.append((body[i], new_first if new_first is not None else cst.RemovalSentinel.REMOVE))
    new_stmts = [_no_grad_guard(ctx), *block]
    new_stmts[0] = new_stmts[0].with_changes(leading_lines=_leading(lb[0]))
    changes.append((lb[0], cst.FlattenSentinel(new_stmts)))
    changes += [(st, cst.RemovalSentinel.REMOVE) for st in lb[1 : last + 1]]
    changes.append((lb[-1], rebind))
    return Rewrite(_title(x), changes, imports=("torch",))  # type: ignore[arg-type]


_READ_AFTER = (
    "`{x}` is read after its last gradient (not only to `.detach()` it): a value made from "
    "it would no longer require grad; {recipe}"
)


def _title(x: str) -> str:
    return (
        f"compute the gradients of `{x}` with `torch.func.vjp` (traced as one graph) instead "
        "of `requires_grad_()` + `torch.autograd.grad`"
    )


def _no_grad_guard(ctx: FixContext) -> cst.BaseStatement:
    """``autograd.grad`` raises with grad mode off (the outputs have no graph); a transform
    does not: the same error keeps the two alike under ``torch.no_grad()``."""
    return cst.parse_statement(
        f'if not {ctx.torch("is_grad_enabled")}():\n    raise RuntimeError("{_NO_GRAD}")\n'
    )


class _NoDetach(cst.CSTTransformer):
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value == "detach" and not updated.args:
            return cst.Name("_")
        return updated


def _reads(stmts: list[cst.BaseStatement], x: str) -> bool:
    """Whether ``stmts`` read ``x`` other than in the receiver of a ``.detach()`` (a
    detached value does not require grad either way)."""
    for st in stmts:
        seen = st.visit(_NoDetach())
        if isinstance(seen, cst.CSTNode) and name_nodes(seen, x, reads_only=True):
            return True
    return False


def _leading(st: cst.BaseStatement) -> list[cst.EmptyLine]:
    """The blank and comment lines before a statement (simple or compound)."""
    return list(getattr(st, "leading_lines", ()))


def _rebind(st: cst.BaseStatement, x: str) -> cst.BaseStatement | None:
    """``x = <new>.requires_grad_()`` -> ``x = <new>``; None for anything else."""
    if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
        return None
    small = st.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == x
        and _requires_grad_call(small.value)
        and _true_args(small.value)  # type: ignore[arg-type]
        and _fresh_value(small.value.func.value)  # type: ignore[attr-defined]
    ):
        return st.with_changes(body=[small.with_changes(value=small.value.func.value)])  # type: ignore[attr-defined]
    return None


def _plan(
    ctx: FixContext,
    body: list[cst.BaseStatement],
    start: int,
    x: str,
    later: list[cst.BaseStatement] = (),  # type: ignore[assignment]
) -> tuple[list[cst.BaseStatement], int, int] | NoFix:
    """The statements from ``body[start]`` to the last gradient of ``x`` among them,
    rewritten with ``torch.func.vjp``: (new statements, start, index of the last gradient).
    ``later``: statements that run after ``body`` (what they read comes back as well)."""
    i = start - 1
    imports = _imports(ctx.module)
    grads: list[tuple[int, _Grad]] = []
    for j in range(i + 1, len(body)):
        found = _grad_calls(body[j], imports)
        if not found:
            continue
        g = _Grad(found[0])
        if g.input_name() != x:
            if x in names_in(body[j]):
                return NoFix(
                    f"`{ctx.code(found[0])}` is not a gradient with respect to `{x}` alone: "
                    f"{_RECIPE}"
                )
            continue
        if len(found) > 1 or not isinstance(body[j], cst.SimpleStatementLine):
            return NoFix(f"the gradient of `{x}` is not alone in a simple statement: {_RECIPE}")
        if g.error:
            return NoFix(f"`{ctx.code(found[0])}`: {g.error}; {_RECIPE}")
        if "outputs" not in g.parts or isinstance(g.parts["outputs"], (cst.List, cst.Tuple)):
            return NoFix(f"the gradient is of several outputs: {_RECIPE}")
        if _bool_literal(g.parts.get("create_graph")) is None:
            return NoFix(f"`create_graph` is not a literal: {_RECIPE}")
        grads.append((j, g))
    if not grads:
        return NoFix(f"no `torch.autograd.grad` with respect to `{x}` follows: {_RECIPE}")
    last = grads[-1][0]
    for st in body[i + 1 : last + 1]:
        if not isinstance(st, cst.SimpleStatementLine):
            return NoFix(
                f"a compound statement lies between `requires_grad_()` and the gradient: {_RECIPE}"
            )
        for small in st.body:
            tg = _targets(small)
            if tg is None and st is body[last] and isinstance(small, cst.Return):
                tg = set()  # `return torch.autograd.grad(...)[0]`: stays outside the function
            if tg is None:
                return NoFix(
                    f"`{ctx.code(small).strip()}` is not a plain assignment to names: {_RECIPE}"
                )
            if x in tg:
                return NoFix(f"`{x}` is rebound before its last gradient: {_RECIPE}")
            if side_effect(small) is not None:
                return NoFix(f"`{ctx.code(small).strip()}` changes state in place: {_RECIPE}")
    # a name the statements assign is local to the function they move into: none may be
    # read there before it is assigned (it would be the value from before, or from the last
    # iteration)
    assigned_in = set().union(*(_stmt_targets(st) for st in body[start : last + 1]))
    seen: set[str] = set()
    for st in body[start : last + 1]:
        early = (names_in(st) & assigned_in) - seen - _stmt_targets(st)
        reads_own = {n for n in _stmt_targets(st) & names_in(st) if n not in seen} - _only_targets(
            st
        )
        if early or reads_own:
            n = sorted(early | reads_own)[0]
            return NoFix(
                f"`{n}` is read before it is assigned in the gradient's statements: {_RECIPE}"
            )
        seen |= _stmt_targets(st)
    vjp = ctx.torch("func.vjp")
    # rewrite one gradient at a time; `block` is the statements after requires_grad_ so far
    block: list[cst.BaseStatement] = []
    pos = i + 1
    for j, g in grads:
        block.extend(body[pos:j])
        # the gradient's `outputs` is computed inside the function: not a read after it
        rest = body[j].deep_replace(g.call, cst.Name("_"))
        go_in = g.parts.get("grad_outputs")
        read_later = names_in(rest) | (names_in(go_in) if go_in is not None else set())
        read_later |= set().union(*(names_in(st) for st in [*body[j + 1 :], *later]))
        assigned: list[str] = []
        for st in block:
            for n in sorted(_stmt_targets(st)):
                if n not in assigned:
                    assigned.append(n)
        aux = [n for n in assigned if n in read_later and n != x]
        f_name = ctx.fresh_name("_vjp_f")
        out_name = ctx.fresh_name("_vjp_out")
        pull_name = ctx.fresh_name("_vjp_pull")
        out_expr = g.parts["outputs"]
        ret: cst.BaseExpression = out_expr
        if aux:
            tup = cst.Tuple([cst.Element(cst.Name(n)) for n in aux])
            ret = cst.Tuple([cst.Element(out_expr), cst.Element(tup)], lpar=[], rpar=[])
        fdef = cst.FunctionDef(
            name=cst.Name(f_name),
            params=cst.Parameters(params=[cst.Param(cst.Name(x))]),
            body=cst.IndentedBlock(body=[*block, cst.SimpleStatementLine([cst.Return(ret)])]),
        )
        if aux:
            call_text = f"{vjp}({f_name}, {x}, has_aux=True)"
            tgt = f"{out_name}, {pull_name}, ({', '.join(aux)}{',' if len(aux) == 1 else ''})"
        else:
            call_text = f"{vjp}({f_name}, {x})"
            tgt = f"{out_name}, {pull_name}"
        vjp_line = cst.parse_statement(f"{tgt} = {call_text}\n")
        go = g.parts.get("grad_outputs")
        if go is None or (isinstance(go, cst.Name) and go.value == "None"):
            go_text = f"{ctx.torch('ones_like')}({out_name})"
            go_expr: cst.BaseExpression = cst.parse_expression(go_text)
        else:
            if isinstance(go, (cst.List, cst.Tuple)) and len(go.elements) == 1:
                go = go.elements[0].value
            go_expr = go
        pulled: cst.BaseExpression = cst.Call(cst.Name(pull_name), [cst.Arg(go_expr)])
        if not _bool_literal(g.parts.get("create_graph")):
            # autograd.grad without create_graph leaves the gradients out of the graph
            pulled = _detached(pull_name, go_expr)
        grad_line = body[j].deep_replace(g.call, pulled)
        block = [fdef, vjp_line, grad_line]  # type: ignore[list-item]
        pos = j + 1
    return block, start, last


def _detached(pull: str, go: cst.BaseExpression) -> cst.BaseExpression:
    """``tuple(_g.detach() for _g in <pull>(<go>))``."""
    expr = cst.parse_expression(f"tuple(_g.detach() for _g in {pull}(__go__))")
    holder: list[cst.Name] = []

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == "__go__":
                holder.append(n)

    expr.visit(V())
    return expr.deep_replace(holder[0], go)  # type: ignore[return-value]
