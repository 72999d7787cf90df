"""Breaks inside an installed library, reached from a user's line: call the library through a
``torch.compiler.disable``d helper.

The static stage follows a call into third-party code (torchmetrics' AUROC, a transformer
library's internals) and attributes what breaks there to the user's line that reaches it
(``Finding.package``). No codemod edits the library; what a PyTorch engineer writes instead is
to move the library call out of the compiled region::

    auroc = binary_auroc(logits.sigmoid(), target)
        -> auroc = _run_eager(binary_auroc, logits.sigmoid(), target)

    @torch.compiler.disable
    def _run_eager(fn, *args, **kwargs):
        return fn(*args, **kwargs)

On torch 2.13 (CPU) dynamo records exactly one break for each call of a disabled function
("Skip calling `torch.compiler.disable()`d function"), whatever the library does inside it,
where the library's own code broke the graph once per data-dependent branch, ``nonzero`` or
``unique`` (10 records for ``binary_auroc``). Calling ``torch.compiler.disable(fn)(...)`` inline
costs two (one for the ``disable`` call itself), hence the module-level helper. Autograd runs
through the eager call as usual, so values and gradients are those of the original; the
verifier keeps the rewrite only when the observed breaks drop and they match.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import iter_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

HELPER = "_run_eager"
# dynamo's break record (its gb_type) at a call of a disabled function, torch 2.13
DISABLED_SKIP = "Skip calling `torch.compiler.disable()`d function"
TITLE_MARK = "through a `torch.compiler.disable`d helper"


def is_library_call(title: str) -> bool:
    """Whether a fix record's title is this module's rewrite."""
    return TITLE_MARK in title


def _callee_ok(e: cst.BaseExpression) -> bool:
    """A plain name or a dotted attribute chain (``binary_auroc``, ``self.metric.update``)."""
    while isinstance(e, cst.Attribute):
        e = e.value
    return isinstance(e, cst.Name)


def _chained(e: cst.BaseExpression) -> bool:
    """A callee reached through calls or subscripts (``self.flow(c).log_prob``,
    ``self.metrics["acc"]``): an attribute chain whose root is a name."""
    while isinstance(e, (cst.Attribute, cst.Call, cst.Subscript)):
        e = e.value if not isinstance(e, cst.Call) else e.func
    return isinstance(e, cst.Name)


def _call_at(ctx: FixContext, f: Finding) -> cst.Call | None:
    """The outermost call of the finding's span (else of its line) that reaches code outside
    the file: ``self.flow(c).log_prob(theta)`` as a whole, not only ``self.flow(c)``."""
    exact = [c for c in ctx.nodes_at(f, cst.Call) if _chained(c.func)]
    if exact:
        return exact[0]
    on_line = [c for c in ctx.on_line(f.line, cst.Call) if _chained(c.func)]
    # the call that starts where the finding does (``self.blur(x)`` inside ``self.head(...)``:
    # the inner one reaches the library, the outer is torch's), else the outermost of the line
    starts = [c for c in on_line if ctx.span(c)[:2] == (f.line, f.col)]
    pool = starts or on_line
    if not pool:
        return None
    return min(
        pool, key=lambda c: (ctx.span(c)[0], ctx.span(c)[1], -ctx.span(c)[2], -ctx.span(c)[3])
    )


_NO_LAMBDA = (cst.Yield, cst.Await, cst.NamedExpr)


def _nested_module_call(ctx: FixContext, call: cst.Call) -> cst.Call | None:
    """A call of a library module on ``self`` inside the arguments (gpytorch's
    ``self.likelihood(self.gp(x))``: the posterior, its breaks and size recompiles, are
    computed by ``self.gp``), which the helper's plain form would leave in the compiled region.
    A module of the project's own (``self.net(x)`` feeding a metric) stays compiled."""
    for a in call.args:
        for n in iter_nodes(a.value):
            if not isinstance(n, cst.Call):
                continue
            f = n.func
            if (attr := self_attr(f)) is not None and _library_attr(ctx, call, attr):
                return n
    return None


def _root(e: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(e, (cst.Attribute, cst.Call)):
        e = e.value if isinstance(e, cst.Attribute) else e.func
    return e


def _library_attr(ctx: FixContext, at: cst.CSTNode, attr: str) -> bool:
    """``self.<attr>`` is built in ``__init__`` by a library's class, or by a class of this
    file whose base is a library's (``class ExactGPModel(gpytorch.models.ExactGP)``)."""
    cls = ctx.enclosing(at, cst.ClassDef)
    if cls is None:
        return False
    foreign = lambda e: isinstance(e, cst.Name) and ctx.foreign_module(e) is not None  # noqa: E731
    for node in iter_nodes(cls.body):
        if not (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and self_attr(node.targets[0].target) == attr
            and isinstance(node.value, cst.Call)
        ):
            continue
        callee = node.value.func
        while isinstance(callee, cst.Call):  # ``Model(...).eval()``
            callee = callee.func
        if isinstance(callee, cst.Attribute) and callee.attr.value in ("eval", "train", "to"):
            callee = _root(callee.value) if isinstance(callee.value, cst.Call) else callee
            if isinstance(node.value.func, cst.Attribute) and isinstance(
                node.value.func.value, cst.Call
            ):
                callee = node.value.func.value.func
        if foreign(_root(callee)):
            return True
        if isinstance(callee, cst.Name):
            for st in ctx.module.body:
                if isinstance(st, cst.ClassDef) and st.name.value == callee.value:
                    return any(foreign(_root(b.value)) for b in st.bases)
    return False


def _lambda_ok(call: cst.Call) -> str | None:
    """Why ``lambda: <call>`` would not mean the call, or None."""
    for n in iter_nodes(call):
        if isinstance(n, _NO_LAMBDA):
            return "the call holds a `yield`, `await` or `:=`"
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "super":
            return "the call reads `super()`, which a lambda cannot"
    return None


def _existing_helper(module: cst.Module, name: str) -> bool:
    for st in module.body:
        if isinstance(st, cst.FunctionDef) and st.name.value == name:
            return any("disable" in cst.Module([]).code_for_node(d) for d in st.decorators)
    return False


def _anchor(module: cst.Module) -> cst.SimpleStatementLine | None:
    """The last top-level import line (the helper goes right after it)."""
    last = None
    for st in module.body:
        if isinstance(st, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body
        ):
            last = st
        elif isinstance(st, (cst.FunctionDef, cst.ClassDef)):
            break
    return last


# the library's break kinds a torch config setting removes instead (remedies.CONFIG_REMEDIES): the
# rule the static stage names inside the library -> the GB id torch gives it
_RULE_GB = {
    "CL110": "GB0036",
    "CL111": "GB0036",
    "CL103": "GB0124",
    "CL102": "GB0124",
    "CL105": "GB0033",
    "CL112": "GB0033",
}


def _config_note(f: Finding) -> str:
    """The config remedy that would keep the library's code in the graph, if one applies."""
    from compilelint.remedies import config_for

    cfg = config_for(f.gb_id or _RULE_GB.get(f.rule))
    if cfg is None:
        return ""
    return (
        f"; the break inside {f.package} is also one `{cfg.lines[0]}` removes (the verifier "
        "tries that config remedy too; it keeps the library's code in the graph)"
    )


def library_call_fix(ctx: FixContext, f: Finding) -> Rewrite | NoFix:
    """The rewrite of the user's call that reaches ``f.package``, or why there is none.

    ``fn(args)`` / ``self.mod(args)`` / ``self.a.b(args, k=v)`` -> ``_run_eager(fn, args)``;
    a callee reached through a call or subscript (``self.flow(c).log_prob(theta)``, a metric
    taken from a ``ModuleDict``) -> ``_run_eager(lambda: <the call>)``: the whole expression
    runs in eager (a lambda costs no more breaks than the helper's one on torch 2.13)."""
    base = f"the code is in {f.package}, reached from this line"
    call = _call_at(ctx, f)
    if call is None:
        return NoFix(f"{base}: no call on the line to move out of the compiled region")
    if ctx.function(call) is None:
        return NoFix(f"{base}: the call is not in a function body")
    func_code = ctx.code(call.func).strip()
    head = func_code.split(".")[0].split("(")[0]
    if head == ctx.torch_alias or func_code == HELPER or func_code.startswith(HELPER + "("):
        return NoFix(f"{base}: the line calls torch itself; no helper moves it out")
    if any(isinstance(a, cst.Lambda) and a.body is call for a in ctx.ancestors(call)):
        return NoFix(f"{base}: the call is already inside a lambda")
    nested = _nested_module_call(ctx, call)
    plain = (
        _callee_ok(call.func)
        and not any(a.keyword is not None and a.keyword.value == "fn" for a in call.args)
        and nested is None
    )
    if not plain:
        why = _lambda_ok(call)
        if why is not None:
            return NoFix(f"{base}: {why}")
    changes: list[tuple[cst.CSTNode, object]] = []
    if _existing_helper(ctx.module, HELPER):
        name = HELPER
    else:
        name = ctx.fresh_name(HELPER, reserve=False)
        anchor = _anchor(ctx.module)
        helper = (
            cst.parse_module(
                f"@{ctx.torch('compiler.disable')}\n"
                f"def {name}(fn, *args, **kwargs):\n"
                f'    """Call ``fn`` outside the compiled region: one graph break, not the '
                f'library\'s."""\n'
                f"    return fn(*args, **kwargs)\n"
            )
            .body[0]
            .with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        )
        if anchor is None:
            return NoFix(f"{base}: the file has no top-level import to put the helper after")
        changes.append((anchor, cst.FlattenSentinel([anchor, helper])))
    if plain:
        first = cst.Arg(
            value=call.func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        args = (
            [first, *call.args]
            if call.args
            else [first.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
        new = call.with_changes(func=cst.Name(name), args=args)
        form = f"`{name}(fn, *args)`"
    else:
        inner = call.with_changes(lpar=[], rpar=[])
        new = cst.Call(
            func=cst.Name(name),
            args=[cst.Arg(cst.Lambda(params=cst.Parameters(), body=inner))],
            lpar=call.lpar,
            rpar=call.rpar,
        )
        form = (
            f"`{name}(lambda: ...)` (the argument `{ctx.code(nested)[:40]}` calls a module "
            "too: the whole expression runs eagerly)"
            if nested is not None
            else f"`{name}(lambda: ...)` (the callee is reached through a call or subscript)"
        )
    changes.append((call, new))
    return Rewrite(
        title=(
            f"call `{func_code[:60]}` ({f.package}) {TITLE_MARK} "
            f"{form}: on torch 2.13 dynamo records one break at a disabled "
            "function's call instead of the library's own breaks inside it; values and "
            "gradients (the library module's parameters included) are the eager call's"
            f"{_config_note(f)}"
        ),
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )
