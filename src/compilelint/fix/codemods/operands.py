"""Where a 0-d tensor can stand for a Python number as an argument of a torch call, with the
same result (the operand slots of the value model that CL102/CL103/CL112 follow).

Checked against torch 2.13 (eager, and compiled with ``fullgraph=True``; the pairs in
``rules/CL103.md`` run both): in each slot below a 0-d tensor gives the values and the dtype a
Python number of the same kind gives (a 0-d tensor does not promote a dimensioned tensor of its
own category, as a Python number does not), and compiles without a break:

- ``torch.clamp/clip/clamp_min/clamp_max`` and the methods ``.clamp/.clip/.clamp_min/
  .clamp_max`` (and the in-place ones): the bounds ``min``/``max``, positional or keyword.
  A tensor bound next to a *number* bound fails to compile (torch 2.13: "pending unbacked
  symbols"), so such a call is split: ``torch.clamp(x, min=t, max=1.0)`` ->
  ``torch.clamp(torch.clamp(x, min=t), max=1.0)`` (the same values, ``min > max`` included:
  both give ``max``);
- ``x.masked_fill(mask, v)`` / ``masked_fill_``: the fill value (``value=`` too);
- ``torch.where(cond, a, b)``: either branch;
- ``torch.pow(x, e)`` / ``x.pow(e)``: the exponent (equal to within one ulp: the scalar and the
  tensor kernels round alike on floats, checked on float32 and float16);
- ``x.add/sub/mul/div(v)``, ``torch.add/sub/mul/div(x, v)``: the other operand;
- ``torch.lerp(a, b, w)``: the weight;
- ``torch.tensor(v, dtype=...)`` / ``torch.as_tensor(v, dtype=...)``: the data, when the dtype
  is given (without it a Python float becomes the default dtype, a 0-d tensor keeps its own).

- ``torch.full(size, v, dtype=...)``: the fill value, when the dtype is given (torch 2.13
  compiles it without a break; without ``dtype=`` the result's dtype comes from the number's
  Python type, which a 0-d tensor does not have);
- ``torch.full_like(x, v)`` / ``x.new_full(size, v)`` (``fill_value=`` too): compiled, a tensor
  fill value fails there ("pending unbacked symbols"), so the call is rewritten
  ``torch.empty_like(x).copy_(v)`` / ``x.new_empty(size).copy_(v)`` (slot ``"fill"``): ``copy_``
  broadcasts the 0-d tensor and casts it to the result's dtype as ``fill_`` casts a number
  (``-2.7`` -> ``-2`` in an int64 result both ways), with the other arguments kept; refused
  with ``requires_grad=`` (``copy_`` into a leaf that requires grad raises).

Index stores (:func:`store_slot`): ``x[i] = v`` and ``x[i] += v`` (``-=``, ``*=``, ``/=``)
with ``x`` a tensor take a 0-d tensor as they take a number (the value is cast to ``x``'s
dtype either way; ``+=`` of a float into an int64 element raises either way), boolean-mask and
slice indices included, and compile without a break.

Not accepted (the call keeps the number): ``torch.full`` without ``dtype=``, sizes, indices,
``torch.maximum``/``minimum`` with a Python number (the original raises), a store into a
Python list or dict, anything else.
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import (
    ARITH_OPERATORS,
    atom,
    bound_names,
    name_nodes,
    number_expr,
    template,
)
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite

_CLAMPS = frozenset(
    {"clamp", "clip", "clamp_min", "clamp_max", "clamp_", "clip_", "clamp_min_", "clamp_max_"}
)
# methods only tensors have (a NumPy array has `.clip`, `.__pow__` ...)
_TORCH_ONLY = frozenset(
    {
        "clamp",
        "clamp_min",
        "clamp_max",
        "clamp_",
        "clamp_min_",
        "clamp_max_",
        "masked_fill",
        "masked_fill_",
        "clip_",
    }
)
# torch functions whose first argument must be a tensor (TypeError for a number or a list)
_TENSOR_INPUT = frozenset(
    """clamp clip clamp_min clamp_max abs exp log sqrt tanh sigmoid relu sum mean amax amin
    masked_fill""".split()
)
_ARITH = frozenset({"add", "sub", "mul", "div", "true_divide", "add_", "sub_", "mul_", "div_"})


def _position(call: cst.Call, arg: cst.Arg) -> tuple[int | None, str | None]:
    """(the positional index, the keyword) of ``arg`` in ``call``."""
    if arg.keyword is not None:
        return None, arg.keyword.value
    pos = [a for a in call.args if a.keyword is None]
    return pos.index(arg), None


def _torch_func(ctx: FixContext, call: cst.Call) -> str | None:
    """``f`` of ``torch.f(...)``."""
    f = call.func
    if isinstance(f, cst.Attribute) and ctx.code(f.value).strip() == ctx.torch():
        return f.attr.value
    return None


def operand_slot(ctx: FixContext, call: cst.Call, arg: cst.Arg) -> str | None:
    """How ``arg`` of ``call`` takes a 0-d tensor in place of a Python number: ``"tensor"``
    (as it is; the result is a tensor), ``"split:min"``/``"split:max"`` (a clamp bound next to
    a number bound: the call is split in two, the tensor bound first), or None (not a slot
    that keeps the result)."""
    if arg.star:
        return None
    i, kw = _position(call, arg)
    fn = _torch_func(ctx, call)
    meth = None
    recv: cst.BaseExpression | None = None
    if fn is None and isinstance(call.func, cst.Attribute):
        meth = call.func.attr.value
        recv = call.func.value
        if meth not in _TORCH_ONLY and not ctx.is_tensor(recv):
            return None
    name = fn or meth
    if name is None:
        return None
    # the positions of the operands after the tensor input (functions take it first)
    off = 1 if fn is not None else 0
    j = None if i is None else i - off
    if name in _CLAMPS:
        if fn is not None and (i == 0 or not call.args or call.args[0].keyword is not None):
            return None
        base = name.rstrip("_")
        if base in ("clamp_min", "clamp_max"):
            return "tensor" if j == 0 or kw == base.removeprefix("clamp_") else None
        which = {0: "min", 1: "max"}.get(j) if j is not None else kw
        if which not in ("min", "max"):
            return None
        other = _clamp_bound(call, off, "max" if which == "min" else "min")
        if other is None or (isinstance(other, cst.Name) and other.value == "None"):
            return "tensor"
        if ctx.is_tensor(other) or name.endswith("_"):
            return "tensor" if ctx.is_tensor(other) else None
        return f"split:{which}"
    if name in ("masked_fill", "masked_fill_"):
        return "tensor" if j == 1 or kw == "value" else None
    if fn == "where":
        return "tensor" if i in (1, 2) or kw in ("input", "other") else None
    if name == "pow":
        return "tensor" if j == 0 or kw == "exponent" else None
    if name in _ARITH:
        return "tensor" if j == 0 or kw == "other" else None
    if fn == "lerp":
        return "tensor" if i == 2 or kw == "weight" else None
    if name in ("full", "full_like", "new_full") and (fn is not None) == (name != "new_full"):
        if any(a.keyword is not None and a.keyword.value == "requires_grad" for a in call.args):
            return None
        # the fill value: second positional in each form (`full(size, v)`,
        # `full_like(x, v)`, `x.new_full(size, v)`) or `fill_value=`
        if not (i == 1 or kw == "fill_value"):
            return None
        if fn == "full":
            has_dtype = any(a.keyword is not None and a.keyword.value == "dtype" for a in call.args)
            return "tensor" if has_dtype else None
        return "fill"
    if fn in ("tensor", "as_tensor") and i == 0:
        # `torch.tensor(v, dtype=..., device=...)`: the same value; only with `dtype=` (a
        # Python float would become the default dtype, a 0-d tensor keeps its own)
        kws = {a.keyword.value for a in call.args if a.keyword is not None}
        if "dtype" in kws:
            return "tensor"
        # without `dtype=`: the dtype a Python number of that kind gets (`new_tensor` below),
        # when the caller knows the number's kind; other keywords (`requires_grad=`) refused
        return "new_tensor" if kws <= {"device"} and len(call.args) - len(kws) == 1 else None
    return None


def new_tensor(ctx: FixContext, call: cst.Call, kind: str) -> cst.BaseExpression:
    """``torch.tensor(v[, device=d])`` of a Python number of ``kind`` (``"float"``/``"int"``)
    with ``v`` now a 0-d tensor -> ``v.detach().to([d, ]<dtype>).clone()``: the dtype
    ``torch.tensor`` gives such a number (the default dtype for a float, int64 for an int), no
    gradient and a fresh tensor, as ``torch.tensor`` makes (slot ``"new_tensor"``). Without
    ``device=`` the tensor stays on the value's device (the original's is the default device,
    the CPU: a 0-d tensor combines with tensors of any device, so the values computed from it
    are the same)."""
    th = ctx.torch()
    dtype = f"{th}.get_default_dtype()" if kind == "float" else f"{th}.int64"
    value = call.args[0].value
    dev = next((a.value for a in call.args if a.keyword is not None), None)
    if dev is None:
        return template(f"__v__.detach().to({dtype}).clone()", v=atom(value))
    return template(f"__v__.detach().to(__d__, {dtype}).clone()", v=atom(value), d=dev)


def python_kind(ctx: FixContext, e: cst.BaseExpression, depth: int = 0) -> str | None:
    """The Python type of the number ``e`` evaluates to where it is read from tensors:
    ``"float"`` (a true division, ``float()``, a float literal in arithmetic, a local name
    assigned once from such), ``"int"`` (``int()``, ``//``/``+``/``-``/``*`` of ints), or None
    when not known."""
    if depth > 6:
        return None
    if isinstance(e, cst.Float):
        return "float"
    if isinstance(e, cst.Integer):
        return "int"
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return python_kind(ctx, e.expression, depth + 1)
    if isinstance(e, cst.BinaryOperation):
        if isinstance(e.operator, cst.Divide):
            return "float"
        kinds = {python_kind(ctx, e.left, depth + 1), python_kind(ctx, e.right, depth + 1)}
        if "float" in kinds and isinstance(
            e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
        ):
            return "float"
        if kinds == {"int"} and isinstance(
            e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)
        ):
            return "int"
        return None
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and len(e.args) >= 1:
        f = e.func.value
        if f in ("float", "int") and len(e.args) == 1:
            return f
        if f in ("max", "min") and all(a.keyword is None and not a.star for a in e.args):
            kinds = {python_kind(ctx, a.value, depth + 1) for a in e.args}
            return kinds.pop() if len(kinds) == 1 else None
        if f == "abs" and len(e.args) == 1:
            return python_kind(ctx, e.args[0].value, depth + 1)
        return None
    if isinstance(e, cst.Name):
        fn = ctx.function(e)
        binders = bound_names(fn).get(e.value, []) if fn is not None else []
        a = ctx.parent(binders[0]) if len(binders) == 1 else None
        if isinstance(a, cst.Assign) and len(a.targets) == 1:
            return python_kind(ctx, a.value, depth + 1)
    return None


def fill_call(ctx: FixContext, call: cst.Call) -> cst.Call:
    """``torch.full_like(x, v, **kw)`` -> ``torch.empty_like(x, **kw).copy_(v)``;
    ``x.new_full(size, v, **kw)`` -> ``x.new_empty(size, **kw).copy_(v)`` (slot ``"fill"``)."""
    fill = next(
        a
        for k, a in enumerate(call.args)
        if (a.keyword is None and k == 1)
        or (a.keyword is not None and a.keyword.value == "fill_value")
    )
    rest = [a for a in call.args if a is not fill]
    if rest:
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    f = call.func
    assert isinstance(f, cst.Attribute)
    empty = "empty_like" if f.attr.value == "full_like" else "new_empty"
    inner = call.with_changes(func=f.with_changes(attr=cst.Name(empty)), args=rest)
    return cst.Call(
        func=cst.Attribute(value=inner, attr=cst.Name("copy_")),
        args=[cst.Arg(fill.value)],
    )


def operand_fill(ctx: FixContext, call: cst.Call) -> bool:
    """Is ``call`` a ``full_like``/``new_full`` (rewritten by :func:`fill_call`)?"""
    f = call.func
    return isinstance(f, cst.Attribute) and f.attr.value in ("full_like", "new_full")


def store_slot(ctx: FixContext, node: cst.BaseExpression) -> bool:
    """Is ``node`` the whole value stored by ``x[i] = node`` or ``x[i] op= node`` (``+ - * /``)
    into a tensor ``x``? (A 0-d tensor stores as the number does; see the module's text.)"""
    p = ctx.parent(node)
    if isinstance(p, cst.Assign) and p.value is node and len(p.targets) == 1:
        t = p.targets[0].target
    elif (
        isinstance(p, cst.AugAssign)
        and p.value is node
        and isinstance(
            p.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
        )
    ):
        t = p.target
    else:
        return False
    return isinstance(t, cst.Subscript) and ctx.is_tensor(t.value)


def _clamp_bound(call: cst.Call, off: int, which: str) -> cst.BaseExpression | None:
    pos = [a for a in call.args if a.keyword is None]
    k = off + (0 if which == "min" else 1)
    if k < len(pos):
        return pos[k].value
    for a in call.args:
        if a.keyword is not None and a.keyword.value == which:
            return a.value
    return None


def split_clamp(torch_: str, call: cst.Call, method: bool) -> cst.Call:
    """``torch.clamp(x, min=a, max=b)`` -> ``torch.clamp(torch.clamp(x, min=a), max=b)``;
    the method form ``x.clamp(a, b)`` -> ``x.clamp(min=a).clamp(max=b)``: ``min`` first,
    as clamp applies them (``min > max`` gives ``max`` both ways)."""
    off = 0 if method else 1
    x = call.func.value if method else call.args[0].value  # type: ignore[attr-defined]
    which, other = "min", "max"
    first = _clamp_bound(call, off, which)
    second = _clamp_bound(call, off, other)
    assert first is not None and second is not None
    eq = cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )
    if method:
        inner = cst.Call(
            func=cst.Attribute(value=x, attr=cst.Name("clamp")),
            args=[cst.Arg(first, keyword=cst.Name(which), equal=eq)],
        )
        return call.with_changes(
            func=cst.Attribute(value=inner, attr=cst.Name("clamp")),
            args=[cst.Arg(second, keyword=cst.Name(other), equal=eq)],
        )
    clamp = cst.parse_expression(f"{torch_}.clamp")
    inner = cst.Call(
        func=clamp,
        args=[
            cst.Arg(x, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(first, keyword=cst.Name(which), equal=eq),
        ],
    )
    return call.with_changes(
        func=clamp,
        args=[
            cst.Arg(inner, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(second, keyword=cst.Name(other), equal=eq),
        ],
    )


def unpacked_elements(ctx: FixContext, call: cst.Call) -> Rewrite | NoFix | None:
    """``lo, hi = t.tolist()`` whose names are each used only where a tensor takes them (an
    operand slot above, arithmetic or a comparison with a tensor) -> ``lo, hi =
    t.detach().unbind(0)``: 0-d tensors with the same results. A list in any such place raises
    (``x + [..]``, ``x.clamp([..])``: TypeError, checked on torch 2.13), so the original only ran
    when the elements are numbers, i.e. ``t`` is 1-d, where ``unbind(0)`` gives one 0-d tensor
    per number. A clamp with such a name beside a number bound is split (see
    :func:`split_clamp`). None when ``call`` is not the value of such a tuple assignment."""
    assign = ctx.parent(call)
    if not (
        isinstance(assign, cst.Assign)
        and assign.value is call
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))
    ):
        return None
    elts = assign.targets[0].target.elements
    if not elts or any(
        not isinstance(e.value, cst.Name) or isinstance(e, cst.StarredElement) for e in elts
    ):
        return None
    names = {e.value.value for e in elts}  # type: ignore[attr-defined]
    fn = ctx.function(assign)
    if fn is None:
        return None
    binders = bound_names(fn)
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    splits: dict[int, cst.Call] = {}
    th = ctx.torch()
    bound = {id(n) for n in name_nodes(assign.targets[0].target)}
    # the element names and the names assigned from arithmetic on them (`gain = c / rms`),
    # to a fixpoint: a failing use may pass once a later name is known
    for _ in range(6):
        splits.clear()
        found = set(names)
        failure: str | None = None
        for nm in sorted(names):
            if len(binders.get(nm, [])) != 1:
                return NoFix(f"`{nm}` is assigned more than once")
            reads = [n for n in name_nodes(fn.body, nm, reads_only=True) if id(n) not in bound]
            for r in reads:
                why = _tensor_use(ctx, r, names, splits)
                if why is not None and why.startswith("="):
                    found.add(why[1:])
                elif why is not None:
                    failure = failure or f"`{nm}` is also {why}, not only where a tensor takes it"
        if found == names:
            if failure is not None:
                return NoFix(failure)
            break
        names = found
    else:
        return NoFix("the elements flow through too many names")
    recv = call.func.value  # type: ignore[attr-defined]
    new = cst.parse_expression("__x__.detach().unbind(0)")
    new = new.deep_replace(new.func.value.func.value, recv)  # type: ignore[attr-defined]
    changes.append((call, new))
    for c in splits.values():
        if operand_fill(ctx, c):
            changes.append((c, fill_call(ctx, c)))
            continue
        method = not (isinstance(c.func, cst.Attribute) and ctx.code(c.func.value).strip() == th)
        changes.append((c, split_clamp(th, c, method)))
    return Rewrite(
        title="keep the elements tensors: `.tolist()` -> `.detach().unbind(0)` (each name is "
        "used only where a tensor takes it, so the original ran only with a 1-d tensor)",
        changes=changes,
        imports=("torch",) if splits else (),
    )


def _tensor_use(
    ctx: FixContext, r: cst.BaseExpression, names: set[str], splits: dict[int, cst.Call]
) -> str | None:
    """None when ``r`` is used where a tensor takes it; else what the use is."""
    # arithmetic with numbers and the other names on the way (a list there would give a
    # list or raise, and the list then meets the tensor below and raises); an operand not
    # known (`wav * gain`, `wav` an argument) only where the result must be a tensor
    unknown = False
    while True:
        p = ctx.parent(r)
        if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus)):
            r = p  # type: ignore[assignment]
            continue
        if isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS):
            other = p.right if p.left is r else p.left
            if ctx.is_tensor(other):
                return None
            if not (ctx.is_number(other) or _over(other, names)):
                unknown = True
            r = p  # type: ignore[assignment]
            continue
        break
    # `torch.clamp(wav * gain, ...)`: the input of a torch function that takes only tensors
    # (a number or a list there raises TypeError), so the value there was a tensor and the
    # element a number
    if isinstance(p, cst.Arg) and p.value is r and p.keyword is None and r is not None:
        call = ctx.parent(p)
        if (
            isinstance(call, cst.Call)
            and call.args[0] is p
            and _torch_func(ctx, call) in _TENSOR_INPUT
            and not isinstance(r, cst.Name)
        ):
            return None
    if unknown:
        stmt = ctx.statement(r)
        what = ctx.code(stmt or r).strip().splitlines()[0][:40]
        return f"used in `{what}`"
    if (
        isinstance(p, cst.Assign)
        and p.value is r
        and len(p.targets) == 1
        and isinstance(p.targets[0].target, cst.Name)
        and r is not None
        and not isinstance(r, cst.Name)
    ):
        # `gain = c / (rms + eps)`: the new name is followed as the elements are
        return "=" + p.targets[0].target.value
    if isinstance(p, cst.ComparisonTarget):
        cmp = ctx.parent(p)
        if (
            isinstance(cmp, cst.Comparison)
            and len(cmp.comparisons) == 1
            and ctx.is_tensor(cmp.left)
        ):
            return None
    if isinstance(p, cst.Comparison) and p.left is r and len(p.comparisons) == 1:
        if ctx.is_tensor(p.comparisons[0].comparator):
            return None
    if store_slot(ctx, r):
        return None
    if isinstance(p, cst.Arg) and p.value is r:
        call = ctx.parent(p)
        if isinstance(call, cst.Call):
            slot = operand_slot(ctx, call, p)
            if slot == "tensor":
                return None
            if slot == "fill":
                splits[id(call)] = call
                return None
            if slot is not None and slot.startswith("split:"):
                bound = _clamp_bound(
                    call,
                    0 if _torch_func(ctx, call) is None else 1,
                    "max" if slot == "split:min" else "min",
                )
                both = bound is not None and _over(bound, names) and not number_expr(bound)
                if not both:
                    splits[id(call)] = call
                return None
    stmt = ctx.statement(r)
    what = ctx.code(stmt or r).strip().splitlines()[0][:40]
    return f"used in `{what}`"


def _over(e: cst.BaseExpression, names: set[str]) -> bool:
    """``e`` is arithmetic over numbers and ``names`` (``-peak * gain``)."""
    if number_expr(e) or (isinstance(e, cst.Name) and e.value in names):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return _over(e.expression, names)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
        return _over(e.left, names) and _over(e.right, names)
    return False
