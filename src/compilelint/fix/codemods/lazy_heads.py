"""CL508, more forms of per-key layers built on first use (GB0264).

CL508's own codemod handles ``if key not in self.heads: self.heads[key] = nn.Linear(...)``.
Real code writes the same "look up, build when missing" in other ways; each becomes the same
``nn.ModuleDict`` of lazy layers built in ``__init__`` (one per key of the loop's ``self``
attribute), the lookup kept as a plain lookup:

- ``head = self.heads[key] if key in self.heads else None`` + ``if head is None: head =
  nn.Linear(...); self.heads[key] = head``          -> ``head = self.heads[key]``
- ``try: head = self.heads[key]`` + ``except KeyError: head = self.heads[key] = nn.Linear(...)``
                                                    -> ``head = self.heads[key]``
- ``if not hasattr(self, f"head_{k}"): setattr(self, f"head_{k}", nn.Linear(...))`` + calls of
  ``getattr(self, f"head_{k}")``                    -> the ``if`` goes; ``__init__`` ends with
  ``for k in self.keys: setattr(self, f"head_{k}", nn.LazyLinear(...))``

The lazy layers infer the input size and draw their weights at their first call, in the loop's
order, as the original drew them when it built each head just before calling it. The input
size the original passed (``h.shape[-1]``, or a number such as ``16``) is dropped: a
``LazyLinear`` reads it from the input, which the original layer had to match. Applied only
when the loop is over a ``self`` attribute set in ``__init__``, the heads are only looked up
there and called with one input, and the other constructor arguments are known in
``__init__``.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes, bound_names, leading_lines, name_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.static.analysis.walker import self_attr

RECIPE = (
    "build the heads in `__init__`: `nn.ModuleDict({k: nn.LazyLinear(out) for k in keys})` "
    "for every key known there (a lazy layer infers the input size at its first call)"
)


def _init_of(klass: cst.ClassDef) -> cst.FunctionDef | None:
    return next(
        (
            s
            for s in klass.body.body  # type: ignore[union-attr]
            if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
        ),
        None,
    )


def _lookup(e: cst.BaseExpression | None, holder: str, key: str) -> bool:
    """``self.<holder>[key]``."""
    return (
        isinstance(e, cst.Subscript)
        and self_attr(e.value) == holder
        and len(e.slice) == 1
        and isinstance(e.slice[0].slice, cst.Index)
        and isinstance(e.slice[0].slice.value, cst.Name)
        and e.slice[0].slice.value.value == key
    )


def _single(st: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1:
        return st.body[0]
    return None


def _builds(
    stmts: list[cst.BaseStatement], call: cst.Call, holder: str, key: str, local: str
) -> bool:
    """The statements bind ``local`` and ``self.<holder>[key]`` to the layer ``call`` builds,
    and do nothing else (``head = L(...); self.heads[key] = head``, or chained targets)."""
    got_local = got_key = False
    for st in stmts:
        a = _single(st)
        if not isinstance(a, cst.Assign):
            return False
        if a.value is not call and not (isinstance(a.value, cst.Name) and a.value.value == local):
            return False
        if isinstance(a.value, cst.Name) and not got_local:
            return False  # reads the local before it holds the layer
        for t in a.targets:
            if isinstance(t.target, cst.Name) and t.target.value == local:
                got_local = True
            elif _lookup(t.target, holder, key):
                got_key = True
            else:
                return False
    return got_local and got_key


def _none_lookup(e: cst.BaseExpression, holder: str, key: str) -> bool:
    """``self.<holder>[key] if key in self.<holder> else None``."""
    if not isinstance(e, cst.IfExp) or not _lookup(e.body, holder, key):
        return False
    t = e.test
    return (
        isinstance(e.orelse, cst.Name)
        and e.orelse.value == "None"
        and isinstance(t, cst.Comparison)
        and isinstance(t.left, cst.Name)
        and t.left.value == key
        and len(t.comparisons) == 1
        and isinstance(t.comparisons[0].operator, cst.In)
        and self_attr(t.comparisons[0].comparator) == holder
    )


def _holder_of(call: cst.Call, ctx: FixContext) -> str | None:
    """The ``self`` attribute the layer is stored under by key (``self.heads[key] = ...``)."""
    st = ctx.statement(call)
    blocks = [st] if st is not None else []
    p = ctx.parent(st) if st is not None else None
    if isinstance(p, cst.IndentedBlock):
        blocks = list(p.body)
    for b in blocks:
        a = _single(b)
        if isinstance(a, cst.Assign):
            for t in a.targets:
                if isinstance(t.target, cst.Subscript) and self_attr(t.target.value):
                    return self_attr(t.target.value)
    return None


def lookup_forms(ctx: FixContext, call: cst.Call, lazy: str, dim: int) -> Rewrite | NoFix | None:
    """A rewrite (or why not) when ``call`` builds a per-key head in one of the forms above;
    None when it is none of them (CL508's own codemod decides)."""
    stmt = ctx.statement(call)
    if stmt is None:
        return None
    loop = ctx.enclosing(stmt, cst.For)
    fn = ctx.function(stmt)
    if loop is None or fn is None or ctx.function(loop) is not fn:
        return None
    body = loop.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    top = next(
        (s for s in body.body if s is stmt or any(a is s for a in ctx.ancestors(stmt))), None
    )
    if top is None:
        return None
    form = _match(ctx, call, top, list(body.body), lazy)
    if form is None:
        return None
    why = "a layer per key is built on first use"
    if isinstance(form, NoFix):
        return form
    kind, holder, local, keep, remove = form
    if not isinstance(loop.target, cst.Name) or self_attr(loop.iter) is None:
        return NoFix(f"{why}, in a loop that is not over keys on `self`: {RECIPE}")
    key = loop.target.value
    keys_attr = self_attr(loop.iter)
    klass = ctx.enclosing(loop, cst.ClassDef)
    init = _init_of(klass) if klass is not None else None
    if klass is None or init is None:
        return NoFix(f"{why}: the class has no `__init__` to build the heads in: {RECIPE}")
    from compilelint.fix.codemods.cl508_parameter_created_in_forward import (
        _not_in_init,
        _self_attrs_before,
        _size_source,
    )

    args = list(call.args)
    if not args or args[0].keyword is not None or args[0].star:
        return NoFix(f"{why}: the input size is not the first positional argument: {RECIPE}")
    src = _size_source(args[0].value, dim)
    first = args[0].value
    if src is None and not isinstance(first, cst.Integer) and self_attr(first) is None:
        return NoFix(f"{why}, not of the input's size or a known number: {RECIPE}")
    # the heads' construction place in __init__, and what is known there
    empty: cst.SimpleStatementLine | None = None
    attr = kind in ("attr", "attr_none")
    if not attr:
        for st in init.body.body:  # type: ignore[union-attr]
            a = _single(st)
            if (
                isinstance(a, cst.Assign)
                and len(a.targets) == 1
                and self_attr(a.targets[0].target) == holder
                and isinstance(a.value, cst.Call)
                and not a.value.args
                and getattr(getattr(a.value.func, "attr", a.value.func), "value", "")
                == "ModuleDict"
            ):
                empty = st  # type: ignore[assignment]
        if empty is None:
            return NoFix(f"`__init__` does not set `self.{holder} = nn.ModuleDict()`: {RECIPE}")
        known = _self_attrs_before(init, empty)
    else:
        known = _self_attrs_before(init, cst.Pass())  # every attribute set in __init__
    if keys_attr not in known:
        return NoFix(f"`self.{keys_attr}` is not set in `__init__` before the heads: {RECIPE}")
    if self_attr(first) is not None and self_attr(first) not in known:
        return NoFix(f"`{ctx.code(first).strip()}` is not known in `__init__`: {RECIPE}")
    for arg in args[1:]:
        bad = _not_in_init(ctx, arg.value, known, fn, init)
        if bad is not None:
            return NoFix(f"`{bad}` is not known in `__init__`: {RECIPE}")
    # the heads are only called, with one input (the one whose size was read)
    region = {id(n) for r in [*remove, top, *([keep] if keep else [])] for n in all_nodes(r)}
    if local is not None:
        mine = [top] + ([keep] if keep is not None else [])
        for b in bound_names(fn).get(local, []):
            if not any(b is m or any(a is m for a in ctx.ancestors(b)) for m in mine):
                return NoFix(f"`{local}` is bound elsewhere in `{fn.name.value}`: {RECIPE}")
        for r in name_nodes(fn.body, local, reads_only=True):
            if id(r) in region:
                continue
            bad = _bad_call(ctx, r, src, loop)
            if bad is not None:
                return NoFix(f"{bad}: {RECIPE}")
    if not attr:
        for n in all_nodes(klass):
            if not isinstance(n, cst.Attribute) or self_attr(n) != holder:
                continue
            if ctx.function(n) is init or id(n) in region:
                continue
            sub = ctx.parent(n)
            if _lookup(sub, holder, key):  # type: ignore[arg-type]
                bad = _bad_call(ctx, sub, src, loop)  # type: ignore[arg-type]
                if bad is None:
                    continue
                return NoFix(f"{bad}: {RECIPE}")
            what = ctx.code(ctx.statement(n) or n).strip().splitlines()[0][:40]
            return NoFix(f"`self.{holder}` is also used in `{what}`: {RECIPE}")
    else:
        name_code = holder  # for kind "attr", the attribute-name expression's code
        for n in all_nodes(klass):
            if id(n) in region or not isinstance(n, cst.Call):
                continue
            if (
                isinstance(n.func, cst.Attribute)
                and n.func.attr.value in ("add_module", "register_module")
                and ctx.function(n) is not init
            ):
                return NoFix(f"`{ctx.code(n).strip()[:40]}` also sets the heads: {RECIPE}")
            if isinstance(n.func, cst.Name) and n.func.value in ("getattr", "setattr", "hasattr"):
                if len(n.args) >= 2 and ctx.code(n.args[1].value).strip() == name_code:
                    if n.func.value == "getattr" and len(n.args) == 2:
                        bad = _bad_call(ctx, n, src, loop)
                        if bad is None:
                            continue
                        return NoFix(f"{bad}: {RECIPE}")
                    what = ctx.code(n).strip()[:40]
                    return NoFix(f"`{what}` also reads the heads: {RECIPE}")
    for c in klass.body.body:  # type: ignore[union-attr]
        if c is init:
            continue
        for n in all_nodes(c):
            if isinstance(n, cst.AssignTarget) and self_attr(n.target) == keys_attr:
                return NoFix(f"`self.{keys_attr}` is changed outside `__init__`: {RECIPE}")
    f = call.func
    new_func = (
        f.with_changes(attr=cst.Name(lazy)) if isinstance(f, cst.Attribute) else cst.Name(lazy)
    )
    rest = list(call.args[1:])
    kept = [*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if rest else []
    built = call.with_changes(func=new_func, args=kept)
    changes: list[tuple[cst.CSTNode, object]] = []
    if attr:
        setter = cst.parse_statement(
            f"for {key} in self.{keys_attr}:\n    setattr(self, {holder}, {ctx.code(built)})\n"
        )
        last = init.body.body[-1]  # type: ignore[union-attr]
        changes.append((last, cst.FlattenSentinel([last, setter])))
        title = (
            f"set a `{lazy}` per key of `self.{keys_attr}` at the end of `__init__` (each "
            "infers the input size and draws its weights at its first call, as before); the "
            + (
                "`hasattr` test in the loop goes"
                if kind == "attr"
                else "lookup in the loop stays a plain `getattr`"
            )
        )
    else:
        assert empty is not None
        mdict = empty.body[0].value  # type: ignore[attr-defined]
        comp = cst.DictComp(
            key=cst.Name(key),
            value=built,
            for_in=cst.CompFor(target=cst.Name(key), iter=loop.iter),
        )
        new_init = empty.body[0].with_changes(value=mdict.with_changes(args=[cst.Arg(comp)]))  # type: ignore[attr-defined]
        changes.append((empty.body[0], new_init))
        title = (
            f"build a `{lazy}` per key of `self.{keys_attr}` in `__init__` (`nn.ModuleDict("
            f"{{k: nn.{lazy}(...) for k in self.{keys_attr}}})`): each infers the input size and "
            "draws its weights at its first call, as before; the lookup in the loop stays a "
            "plain lookup"
        )
    if keep is not None:
        plain = cst.parse_statement(
            f"{local} = getattr(self, {holder})\n" if attr else f"{local} = self.{holder}[{key}]\n"
        )
        changes.append((keep, plain.with_changes(leading_lines=leading_lines(keep))))
    for gone in remove:
        changes.append((gone, cst.RemovalSentinel.REMOVE))
    return Rewrite(title=title, changes=changes)  # type: ignore[arg-type]


_Form = tuple[str, str, str | None, cst.BaseStatement | None, list[cst.BaseStatement]]


def _match(
    ctx: FixContext, call: cst.Call, top: cst.BaseStatement, body: list, lazy: str
) -> _Form | NoFix | None:
    """(kind, holder, local, statement to turn into the plain lookup, statements to remove)."""
    # try: head = self.H[k]  except KeyError: head = self.H[k] = L(...)
    if isinstance(top, cst.Try):
        if top.orelse is not None or top.finalbody is not None or len(top.handlers) != 1:
            return None
        h = top.handlers[0]
        a = _single(top.body.body[0]) if len(top.body.body) == 1 else None  # type: ignore[union-attr]
        if (
            not isinstance(h.type, cst.Name)
            or h.type.value != "KeyError"
            or h.name is not None
            or not isinstance(a, cst.Assign)
            or len(a.targets) != 1
            or not isinstance(a.targets[0].target, cst.Name)
            or not isinstance(a.value, cst.Subscript)
            or self_attr(a.value.value) is None
            or not any(x is call for x in all_nodes(h))
        ):
            return None
        holder = self_attr(a.value.value)
        local = a.targets[0].target.value
        key = a.value.slice[0].slice.value if len(a.value.slice) == 1 else None  # type: ignore[attr-defined]
        if not isinstance(key, cst.Name) or not _builds(
            list(h.body.body),  # type: ignore[arg-type, union-attr]
            call,
            holder,  # type: ignore[arg-type]
            key.value,
            local,
        ):
            return NoFix(
                "a layer per key is built on first use under `except KeyError:`, with more "
                f"than binding it to a name and to `self.{holder}[key]`: {RECIPE}"
            )
        return ("try", holder, local, top, [])  # type: ignore[return-value]
    if not isinstance(top, cst.If) or top.orelse is not None:
        return None
    t = top.test
    # if not hasattr(self, NAME): setattr(self, NAME, L(...))  (or self.add_module(NAME, ...),
    # or `if NAME not in self._modules:`)
    missing = _missing_attr(ctx, t)
    if missing is not None:
        name_code = missing
        st = _single(top.body.body[0]) if len(top.body.body) == 1 else None  # type: ignore[union-attr]
        setter = st.value if isinstance(st, cst.Expr) else None
        if not isinstance(setter, cst.Call) or _set_attr(ctx, setter, name_code) is not call:
            return NoFix(
                "a layer is set with `setattr`/`add_module` on first use, with more than that "
                f"call under `if not hasattr(...)`: {RECIPE}"
            )
        return ("attr", name_code, None, None, [top])
    tested = _none_tested(t)  # `head` of `if head is None:`
    # head = getattr(self, NAME, None);  if head is None: head = L(...); setattr(self, NAME, head)
    if tested is not None:
        local = tested
        i = body.index(top)
        prev = _single(body[i - 1]) if i > 0 else None
        got = prev.value if isinstance(prev, cst.Assign) else None
        if (
            isinstance(got, cst.Call)
            and isinstance(got.func, cst.Name)
            and got.func.value == "getattr"
            and len(got.args) == 3
            and ctx.code(got.args[0].value).strip() == "self"
            and ctx.code(got.args[2].value).strip() == "None"
            and isinstance(prev, cst.Assign)
            and len(prev.targets) == 1
            and isinstance(prev.targets[0].target, cst.Name)
            and prev.targets[0].target.value == local
        ):
            name_code = ctx.code(got.args[1].value).strip()
            stmts = list(top.body.body)  # type: ignore[union-attr]
            first = _single(stmts[0]) if len(stmts) == 2 else None
            second = _single(stmts[1]) if len(stmts) == 2 else None
            setter = second.value if isinstance(second, cst.Expr) else None
            if not (
                isinstance(first, cst.Assign)
                and len(first.targets) == 1
                and isinstance(first.targets[0].target, cst.Name)
                and first.targets[0].target.value == local
                and first.value is call
                and isinstance(setter, cst.Call)
                and isinstance(_set_attr(ctx, setter, name_code), cst.Name)
                and _set_attr(ctx, setter, name_code).value == local  # type: ignore[union-attr]
            ):
                return NoFix(
                    f"a layer is built when `{local} is None` after `getattr(self, ..., None)`, "
                    f"with more than binding it to `{local}` and setting it on `self`: {RECIPE}"
                )
            return ("attr_none", name_code, local, body[i - 1], [top])
    # head = self.H[k] if k in self.H else None;  if head is None: head = L(...); self.H[k] = head
    if tested is not None:
        local = tested
        i = body.index(top)
        prev = _single(body[i - 1]) if i > 0 else None
        holder = _holder_of(call, ctx)
        if (
            holder is None
            or not isinstance(prev, cst.Assign)
            or len(prev.targets) != 1
            or not isinstance(prev.targets[0].target, cst.Name)
            or prev.targets[0].target.value != local
            or not isinstance(prev.value, cst.IfExp)
        ):
            return NoFix(
                f"a layer per key is built when `{local} is None`, not right after "
                f"`{local} = self.heads[key] if key in self.heads else None`: {RECIPE}"
            )
        key = prev.value.test.left if isinstance(prev.value.test, cst.Comparison) else None
        if (
            not isinstance(key, cst.Name)
            or not _none_lookup(prev.value, holder, key.value)
            or not _builds(list(top.body.body), call, holder, key.value, local)  # type: ignore[arg-type, union-attr]
        ):
            return NoFix(
                f"a layer per key of `self.{holder}` is built when `{local} is None`, with more "
                f"than binding it to `{local}` and to `self.{holder}[key]`: {RECIPE}"
            )
        return ("none", holder, local, body[i - 1], [top])
    return None


def _missing_attr(ctx: FixContext, t: cst.BaseExpression) -> str | None:
    """``not hasattr(self, NAME)`` or ``NAME not in self._modules``: NAME's code."""
    if (
        isinstance(t, cst.UnaryOperation)
        and isinstance(t.operator, cst.Not)
        and isinstance(t.expression, cst.Call)
        and isinstance(t.expression.func, cst.Name)
        and t.expression.func.value == "hasattr"
        and len(t.expression.args) == 2
        and isinstance(t.expression.args[0].value, cst.Name)
        and t.expression.args[0].value.value == "self"
    ):
        return ctx.code(t.expression.args[1].value).strip()
    if (
        isinstance(t, cst.Comparison)
        and len(t.comparisons) == 1
        and isinstance(t.comparisons[0].operator, cst.NotIn)
        and self_attr(t.comparisons[0].comparator) == "_modules"
    ):
        return ctx.code(t.left).strip()
    return None


def _none_tested(t: cst.BaseExpression) -> str | None:
    """``x`` of the test ``x is None``."""
    if (
        isinstance(t, cst.Comparison)
        and isinstance(t.left, cst.Name)
        and len(t.comparisons) == 1
        and isinstance(t.comparisons[0].operator, cst.Is)
        and isinstance(t.comparisons[0].comparator, cst.Name)
        and t.comparisons[0].comparator.value == "None"
    ):
        return t.left.value
    return None


def _set_attr(ctx: FixContext, c: cst.Call, name_code: str) -> cst.BaseExpression | None:
    """The value ``setattr(self, NAME, v)`` or ``self.add_module(NAME, v)`` sets."""
    f = c.func
    if isinstance(f, cst.Name) and f.value == "setattr" and len(c.args) == 3:
        if ctx.code(c.args[0].value).strip() == "self" and (
            ctx.code(c.args[1].value).strip() == name_code
        ):
            return c.args[2].value
    if (
        self_attr(f) in ("add_module", "register_module")
        and len(c.args) == 2
        and ctx.code(c.args[0].value).strip() == name_code
    ):
        return c.args[1].value
    return None


def _bad_call(ctx: FixContext, e: cst.CSTNode, src: str | None, loop: cst.For) -> str | None:
    """Why the use ``e`` of a head is not a call with one input inside ``loop`` (with ``src``
    when the size was read from it), or None."""
    p = ctx.parent(e)
    if not (isinstance(p, cst.Call) and p.func is e):
        return f"`{ctx.code(ctx.statement(e) or e).strip()[:40]}` uses a head other than calling it"
    pos = [a for a in p.args if a.keyword is None and not a.star]
    if len(pos) != 1 or len(p.args) != 1:
        return f"`{ctx.code(p).strip()[:40]}` does not call the head with one input"
    if src is not None and not (isinstance(pos[0].value, cst.Name) and pos[0].value.value == src):
        return f"`{ctx.code(p).strip()[:40]}` does not pass `{src}`, whose size was read"
    if not any(a is loop for a in ctx.ancestors(p)):
        return f"`{ctx.code(p).strip()[:40]}` calls a head outside the loop over keys"
    return None
