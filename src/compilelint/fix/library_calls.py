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

from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding

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


def _call_at(ctx: FixContext, f: Finding) -> cst.Call | None:
    exact = [c for c in ctx.nodes_at(f, cst.Call) if _callee_ok(c.func)]
    if exact:
        return exact[0]
    on_line = [c for c in ctx.on_line(f.line, cst.Call) if _callee_ok(c.func)]
    if not on_line:
        return None
    # the outermost call of the line: the one that reaches the library
    return min(on_line, key=lambda c: (ctx.span(c)[0], ctx.span(c)[1], -ctx.span(c)[2]))


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


def library_call_fix(ctx: FixContext, f: Finding) -> Rewrite | NoFix:
    """The rewrite of the user's call that reaches ``f.package``, or why there is none."""
    base = f"the code is in {f.package}, reached from this line"
    call = _call_at(ctx, f)
    if call is None:
        return NoFix(f"{base}: no call on the line to move out of the compiled region")
    if ctx.function(call) is None:
        return NoFix(f"{base}: the call is not in a function body")
    func_code = ctx.code(call.func)
    if func_code.split(".")[0] == ctx.torch_alias or func_code == HELPER:
        return NoFix(f"{base}: the line calls torch itself; no helper moves it out")
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
    first = cst.Arg(value=call.func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args = (
        [first, *call.args] if call.args else [first.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    )
    changes.append((call, call.with_changes(func=cst.Name(name), args=args)))
    return Rewrite(
        title=(
            f"call `{func_code}` ({f.package}) {TITLE_MARK} "
            f"`{name}(fn, *args)`: on torch 2.13 dynamo records one break at a disabled "
            "function's call instead of the library's own breaks inside it; values and "
            "gradients are the eager call's"
        ),
        changes=changes,  # type: ignore[arg-type]
        imports=("torch",),
    )
