"""Abstract values: what the static stage knows about a Python value, as a small lattice.

Every expression the walker meets gets a :data:`Value`. The kinds mirror the variable trackers
dynamo itself builds while tracing (``torch/_dynamo/variables/``), kept to what a graph-break
linter needs to decide:

=================  =================================  ===========================================
kind               encoding                           dynamo's counterpart / meaning
=================  =================================  ===========================================
tensor             ``("T",)``                         ``TensorVariable``: branching on it breaks
                   ``("T", "const")``                 one folded from Python constants only
                   ``("T", "m", rank, dtype)``        one whose rank and/or dtype kind is known
                                                      (:func:`tensor`, :func:`tensor_meta`)
scalar             ``("S", type)`` or                 ``ConstantVariable`` / ``SymNodeVariable``:
                   ``("S", type, const)``             int, float, bool or str, with the constant
                                                      when it is known; ``data``: a number read
                                                      from tensor data (``.item()``, ``.tolist()``);
                                                      ``size``: an int read from a tensor's shape
                                                      (or computed from one)
none               ``("N",)``                         ``None``
sequence           ``("Q", kind, elems, elem)``       tuple / list / set (``kind``); ``elems`` is
                                                      the tuple of per-position values when the
                                                      length is known, else None; ``elem`` is the
                                                      join of every element (what iteration yields)
dict               ``("D", items, elem)``             ``items``: ((str key, value), ...) when every
                                                      key is a known string, else None
module             ``("M", cls, elem)``               an ``nn.Module`` instance of class ref
                                                      ``cls`` ("" unknown); ``elem`` is the value
                                                      of its children for containers
                                                      (``ModuleList``/``Sequential``/``ModuleDict``),
                                                      else None. Calling a module gives a tensor.
callable           ``("F", ref)``                     a function of the scanned code (``ref``, see
                                                      :mod:`facts`) or "" when unknown
object             ``("O", cls)``                     an instance of the torch class ``cls``
                                                      (qualified) that dynamo does not trace
                                                      into: a ``torch.optim`` optimizer or LR
                                                      scheduler (:func:`obj`); otherwise as
                                                      unknown (no tensor, no element)
unknown            ``("U",)``                         anything else (a config, a cache, an object)
symbolic           ``("Y", source)``                  decided in phase 2, see below
join               ``("J", frozenset(values))``       may be any of its members (at most
                                                      :data:`MAX_JOIN` members, then unknown parts
                                                      are dropped)
=================  =================================  ===========================================

Symbolic sources are strings (see :mod:`facts`): ``P|<func>|<param>`` (a parameter),
``R|<ref>`` (what a call to a scanned function returns), ``A|<class>|<attr>`` (``self.<attr>``),
each optionally followed by an access path: ``@<i>`` (element ``i`` of a tuple or list),
``@k:<key>`` (the value of a string key) or ``@*`` (any element, what iteration yields), e.g. ``R|Q|helper@1`` is the second element of what
``helper`` returns. Element paths on a tensor stay a tensor (indexing a tensor gives a tensor).

Values are plain tuples (hashable, marshal-friendly), so facts that hold them can be cached and
shipped between processes. Build and inspect them only through the functions here; the encoding
may grow new kinds but the functions below keep their meaning.

Stable API (other analyses build on it):

- constructors: :data:`TENSOR`, :data:`NONE`, :data:`UNKNOWN`, :func:`scalar`, :func:`seq`,
  :func:`dict_of`, :func:`module`, :func:`func`, :func:`obj`, :func:`sym`
- lattice: :func:`join`, :func:`members`
- operations: :func:`element` (``v[i]``; ``i`` an int, a str key or None for "some element"),
  :func:`iter_elem` (what ``for x in v`` binds), :func:`call_result` (what ``v(...)`` gives)
- questions: :func:`sources` (the symbolic sources under which ``v`` *is* a tensor; ``"T"`` means
  it certainly is), :func:`is_tensor`, :func:`kind`, :func:`const`
- function summaries: a function's summary is the join of the values it returns, written in terms
  of its own ``P|`` parameter sources; :func:`instantiate` substitutes the values a caller passes
  for those parameters, so a caller (even in another file) gets a value of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Value = tuple[Any, ...]

TENSOR: Value = ("T",)
# A tensor computed only from Python constants (``torch.div(n, 2, rounding_mode="trunc")`` on
# ints): still a tensor, but dynamo folds it, so reading its value does not break the graph.
CONST_TENSOR: Value = ("T", "const")
NONE: Value = ("N",)
UNKNOWN: Value = ("U",)
MAX_JOIN = 8
MAX_ELEMS = 16  # longer literal tuples keep only their element join


# What is known of a tensor's rank and dtype (``("T", "m", rank, dtype)``, see :func:`tensor`):
# ``rank`` an int (-1: unknown) or ``(token, offset)``, the rank of the tensor a name was first
# bound to in one function (``token``) plus ``offset``, so that a mask computed elementwise from
# a tensor (``m = s > t``) is known to have its rank without knowing the rank itself; ``dtype``
# one of ``"int"``, ``"bool"``, ``"float"`` or ``""`` (unknown). Unknown by default: a plain
# :data:`TENSOR` knows neither.
Rank = int | tuple[str, int]
DTYPES = ("int", "bool", "float")
# the rank an input spec's entry inputs (``Config.spec_inputs``) give a Python number
SPEC_NUMBER_RANK = -2
# ... a list of Python numbers of one type (a collate function's ``lengths``)
SPEC_NUMBERS_RANK = -3


def tensor(rank: Rank = -1, dtype: str = "") -> Value:
    """A tensor of ``rank`` (an int, -1 unknown, or ``(token, offset)``) and dtype kind."""
    if isinstance(rank, int) and rank < 0:
        rank = -1
        if not dtype:
            return TENSOR
    if isinstance(rank, tuple) and rank[1] < -8:
        rank = -1
    return ("T", "m", rank, dtype)


# The placeholder of a dynamic attribute name: ``getattr(self, f"running_{stat}")``,
# ``setattr(self, f"to_{n}", ...)``, ``register_buffer(f"running_{stat}", ...)`` name the
# attribute ``running___dyn__`` (:func:`attr_names_match`; see ``A|<class>|<attr>``).
DYN_ATTR = "__dyn__"


def attr_names_match(pattern: str, name: str) -> bool:
    """Whether attribute ``name`` may be the dynamic name ``pattern`` (holding
    :data:`DYN_ATTR` for each replacement field): each field stands for any text."""
    if DYN_ATTR not in pattern:
        return pattern == name
    parts = pattern.split(DYN_ATTR)
    if not (name.startswith(parts[0]) and name.endswith(parts[-1])):
        return False
    if len(name) < len(parts[0]) + len(parts[-1]):
        return False
    pos = len(parts[0])
    end = len(name) - len(parts[-1])
    for mid in parts[1:-1]:
        i = name.find(mid, pos, end)
        if i < 0:
            return False
        pos = i + len(mid)
    return True


def tensor_meta(v: Value) -> tuple[Rank, str]:
    """(rank, dtype) of a tensor member (``-1``/``""`` when unknown)."""
    if len(v) == 4:
        return v[2], v[3]
    return -1, ""


def rank_add(r: Rank, d: int) -> Rank:
    """``r + d``; unknown stays unknown, an absolute rank below 0 is unknown."""
    if isinstance(r, tuple):
        return (r[0], r[1] + d)
    if r < 0:
        return -1
    return r + d if r + d >= 0 else -1


def rank_diff(a: Rank, b: Rank) -> int | None:
    """``a - b`` when both are known absolutely or relative to one token, else None."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[1] - b[1] if a[0] == b[0] else None
    if isinstance(a, int) and isinstance(b, int) and a >= 0 and b >= 0:
        return a - b
    return None


def scalar(typ: str, const: object = ...) -> Value:
    """A Python int/float/bool/str (``typ``), with its constant when known."""
    return ("S", typ) if const is ... else ("S", typ, const)


def seq(kind: str, elems: Iterable[Value] | None, elem: Value | None = None) -> Value:
    """A tuple/list/set; ``elems`` per position when known, else ``elem`` for every element."""
    if elems is not None:
        t = tuple(elems)
        if len(t) > MAX_ELEMS:
            return ("Q", kind, None, join(*t))
        return ("Q", kind, t, join(*t) if t else UNKNOWN)
    return ("Q", kind, None, elem if elem is not None else UNKNOWN)


def dict_of(items: Iterable[tuple[str, Value]] | None, elem: Value | None = None) -> Value:
    if items is not None:
        t = tuple(items)
        return ("D", t, join(*(v for _, v in t)) if t else UNKNOWN)
    return ("D", None, elem if elem is not None else UNKNOWN)


def module(cls: str = "", elem: Value | None = None) -> Value:
    return ("M", cls, elem)


def func(ref: str = "") -> Value:
    return ("F", ref)


def obj(cls: str) -> Value:
    """An instance of the torch class ``cls`` (``"torch.optim.AdamW"``): a ``torch.optim``
    optimizer or LR scheduler, dynamo's ``OptimizerVariable`` / a user-defined object whose
    methods it refuses to trace."""
    return ("O", cls)


# the torch classes an :func:`obj` value may be an instance of
OPTIMIZER_PREFIX = "torch.optim."
SCHEDULER_PREFIX = "torch.optim.lr_scheduler."


def is_scheduler(cls: str) -> bool:
    """An LR scheduler class (``torch.optim.lr_scheduler.*``, ``torch.optim.swa_utils.SWALR``)."""
    return cls.startswith(SCHEDULER_PREFIX) or cls == "torch.optim.swa_utils.SWALR"


def object_classes(v: Value) -> set[str]:
    """The classes of the :func:`obj` members of ``v``."""
    return {m[1] for m in members(v) if m[0] == "O"}


def sym(source: str) -> Value:
    return ("Y", source)


# A Python int read from a tensor's shape (``x.shape[0]``, ``x.size(1)``, an element of an
# unpacked shape) or computed from one (``(w - n % w) % w``): static while the inputs keep their
# sizes, it changes with the batch or the length between calls, and where it becomes an input of
# a frame dynamo compiles (a function that breaks, the resume function after a break) dynamo
# specialises it on its first value. A feature size (``x.shape[-1]``) is a plain int.
SIZE_INT: Value = ("S", "size")
SIZE: Value = ("Q", "tuple", None, SIZE_INT)  # x.shape / x.size(): a tuple of sizes
INT: Value = ("S", "int")
BOOL: Value = ("S", "bool")
STR: Value = ("S", "str")
FLOAT: Value = ("S", "float")
# A Python number read from a tensor's data (``x.item()``, the elements of ``x.tolist()``): the
# read breaks the graph, and where the number becomes an input of a frame dynamo compiles (the
# resume function after the break) it is specialised on its value, which changes with the data
DATA: Value = ("S", "data")
# A Python number drawn by a ``random`` function dynamo traces itself (``random.randint``,
# ``uniform``, ``randrange``): dynamo holds it as a value of the graph, so it mixes with tensors
# freely, but Python arithmetic with another Python number, a comparison, or another draw's
# bound needs its value: torch 2.13 breaks there and cannot resume (GB0213, CL121)
DRAWN: Value = ("S", "drawn")
TRACED_DRAWS = frozenset({"random.randint", "random.uniform", "random.randrange"})


def kind(v: Value) -> str:
    return {
        "T": "tensor",
        "S": "scalar",
        "N": "none",
        "Q": "sequence",
        "D": "dict",
        "M": "module",
        "F": "callable",
        "O": "object",
        "U": "unknown",
        "Y": "symbolic",
        "J": "join",
    }[v[0]]


def const(v: Value) -> object:
    """The constant of a scalar (or None) value; ``...`` when unknown."""
    if v[0] == "S" and len(v) == 3:
        return v[2]
    if v[0] == "N":
        return None
    return ...


def members(v: Value) -> Iterable[Value]:
    """The values a join may be (the value itself when it is no join)."""
    return v[1] if v[0] == "J" else (v,)


def join(*vals: Value) -> Value:
    """Least upper bound: a value that may be any of ``vals``."""
    out: set[Value] = set()
    for v in vals:
        if v[0] == "J":
            out.update(v[1])
        else:
            out.add(v)
    n = len(out)
    if n < 2:
        if not n:
            return UNKNOWN
        (only,) = out
        return only
    out.discard(UNKNOWN)
    # (one pass that counts, no comprehension unless there is something to merge: a join of
    # two values is made on every branch merge and call)
    n_scalars = n_tensors = 0
    for m in out:
        k = m[0]
        if k == "S":
            if m[2:]:  # a constant
                n_scalars += 1
        elif k == "T" and m != CONST_TENSOR:
            n_tensors += 1
    if n_scalars > 1:
        # scalars of one type with different constants: the type without the constant
        for m in [m for m in out if m[0] == "S" and m[2:]]:
            out.discard(m)
            out.add(("S", m[1]))
    if n_tensors > 1:
        # one tensor member: what every joined tensor shares of rank and dtype
        tensors = [m for m in out if m[0] == "T" and m != CONST_TENSOR]
        metas = [tensor_meta(m) for m in tensors]
        r0, d0 = metas[0]
        r = r0 if all(mr == r0 for mr, _ in metas) else -1
        d = d0 if all(md == d0 for _, md in metas) else ""
        out.difference_update(tensors)
        out.add(tensor(r, d))
    n = len(out)
    if n > MAX_JOIN:
        # keep what matters for tensor-ness: tensors and symbols, the rest is unknown
        out = {m for m in out if m[0] in "TY"} or {UNKNOWN}
        if len(out) > MAX_JOIN:
            out = set(sorted(out)[:MAX_JOIN])
        n = len(out)
    if n == 1:
        (only,) = out
        return only
    return ("J", frozenset(out))


def _path(v: Value, step: str) -> Value:
    return ("Y", v[1] + "@" + step)


def element(v: Value, index: int | str | None) -> Value:
    """``v[index]``: an int position, a str key, or None for an element not known statically
    (a slice keeps the container: use :func:`slice_of`)."""
    t = v[0]
    if t == "T":
        if len(v) == 4:
            r = v[2]
            return tensor(rank_add(r, -1) if r != 0 else -1, v[3])
        return TENSOR
    if t == "Y":
        if isinstance(index, int) and index >= 0:
            return _path(v, str(index))
        if isinstance(index, str):
            # a string key of a parameter: a mapping, so not the tensor it was taken for
            if v[1].startswith("P|"):
                return UNKNOWN
            return _path(v, "k:" + index.replace("@", "")) if len(index) <= 64 else v
        return _path(v, "*")
    if t == "Q":
        if isinstance(index, int) and v[2] is not None:
            if -len(v[2]) <= index < len(v[2]):
                return v[2][index]
            return UNKNOWN
        return v[3]
    if t == "D":
        if isinstance(index, str) and v[1] is not None:
            for k, val in v[1]:
                if k == index:
                    return val
            return UNKNOWN
        return v[2]
    if t == "M":
        return v[2] if v[2] is not None else UNKNOWN
    if t == "J":
        return join(*(element(m, index) for m in v[1]))
    if t == "S" and v[1] == "str":
        return STR
    return UNKNOWN


def slice_of(v: Value) -> Value:
    """``v[a:b]``: a tensor stays a tensor, a sequence keeps its element kind."""
    t = v[0]
    if t in "TY":
        return v
    if t == "Q":
        return ("Q", v[1], None, v[3])
    if t == "M":
        return v
    if t == "J":
        return join(*(slice_of(m) for m in v[1]))
    if t == "S":
        return v if len(v) == 2 else ("S", v[1])
    return UNKNOWN


def iter_elem(v: Value) -> Value:
    """What ``for x in v`` binds to ``x``."""
    t = v[0]
    if t == "D":
        return STR if v[1] is not None else UNKNOWN  # iterating a dict yields its keys
    return element(v, None)


def call_result(v: Value) -> Value:
    """What calling ``v`` gives: a module call gives a tensor; a submodule held in ``self``
    (or an element of one of its module containers) too."""
    t = v[0]
    if t == "M":
        return TENSOR
    if t == "F":
        return sym("R|" + v[1]) if v[1] else UNKNOWN
    if t == "Y" and v[1].startswith("A|"):
        return TENSOR
    if t == "J":
        return join(*(call_result(m) for m in v[1]))
    return UNKNOWN


def sources(v: Value) -> frozenset[str]:
    """The symbolic sources under which ``v`` is a tensor (``"T"``: it certainly may be)."""
    t = v[0]
    if t == "T":
        return _T
    if t == "Y":
        return frozenset((v[1],))
    if t == "J":
        out: set[str] = set()
        for m in v[1]:
            if m[0] == "T":
                out.add("T")
            elif m[0] == "Y":
                out.add(m[1])
        return frozenset(out)
    return _EMPTY


def contained_sources(v: Value) -> frozenset[str]:
    """Sources under which ``v`` is a tensor or holds one (in a sequence or dict)."""
    t = v[0]
    if t in "TYJ":
        out = set(sources(v))
        if t == "J":
            for m in v[1]:
                if m[0] in "QD":
                    out |= contained_sources(m)
        return frozenset(out)
    if t == "Q":
        return contained_sources(v[3])
    if t == "D":
        return contained_sources(v[2])
    return _EMPTY


def data_sources(v: Value) -> frozenset[str]:
    """Like :func:`sources`, but a tensor folded from Python constants does not count: the
    sources under which reading ``v``'s value needs data dynamo does not have."""
    if v[0] == "T":
        return _EMPTY if v == CONST_TENSOR else _T
    if v[0] == "J":
        return sources(join(*(m for m in v[1] if m != CONST_TENSOR)))
    return sources(v)


def is_tensor(v: Value) -> bool:
    """Certainly a tensor (no symbolic part)."""
    return v[0] == "T"


def is_scalar(v: Value) -> bool:
    return all(m[0] in "SN" for m in members(v))


def split_source(source: str) -> tuple[str, list[str]]:
    """``"R|Q|f@0@*"`` -> (``"R|Q|f"``, [``"0"``, ``"*"``])."""
    base, *steps = source.split("@")
    return base, steps


# Path steps of what a tensor op makes of a symbolic value, applied when it is decided (a
# parameter by what its callers pass, a return, an attribute): ``#int``/``#bool``/``#float``
# (the same shape as that dtype: ``x.argsort()``, ``x.long()``, ``x > 0``), ``~0`` (reduced to a
# 0-d tensor: ``x.argmax()``, ``x.sum()``), ``~r`` (one dim less: ``x.sum(1)``), ``?`` (rank
# unknown: ``x.view(...)``, ``x[mask]``), ``~1`` (one dim: ``x.unique()``, ``x.flatten()``) and
# the tests (:data:`TESTS`): ``!idx``, the value if it is a 0-d integer or bool tensor, else
# nothing (a candidate that requires it holds only for such an index); ``!mask``, the value if it
# is a bool tensor of at least one dim (a boolean mask: ``x[mask]`` has a data-dependent size);
# ``!inp``, as ``!idx`` for a parameter used as an index as it came (``table[step]``): where
# the parameter is an entry's own tensor input, torch does not read its value there (an entry's
# ``table[step + 1]`` is a computed index, ``!idx``).
TESTS = ("!idx", "!mask", "!inp")


def has_test(steps: Iterable[str]) -> bool:
    """Whether path steps end in a rank or dtype test (:data:`TESTS`)."""
    return any(s in TESTS for s in steps)


def meta_step(v: Value, step: str) -> Value:
    """``v`` through one of the meta steps above."""
    t = v[0]
    if t == "J":
        return join(*(meta_step(m, step) for m in v[1]))
    if t == "Y":
        return _path(v, step)
    if t != "T":
        return UNKNOWN
    r, d = tensor_meta(v)
    if v == CONST_TENSOR:
        return v if step[0] != "!" else UNKNOWN
    if step[0] == "#":
        return tensor(r, step[1:])
    if step == "~0":
        return tensor(0, d)
    if step == "~r":
        return tensor(rank_add(r, -1) if r != 0 else -1, d)
    if step == "?":
        return tensor(-1, d)
    if step == "~1":
        return tensor(1, d)
    if step == "!idx" or step == "!inp":
        return v if r == 0 and d in ("int", "bool") else UNKNOWN
    if step == "!mask":
        return v if r != 0 and d == "bool" else UNKNOWN
    return v


def untokened(v: Value) -> Value:
    """``v`` without ranks relative to a binding of the function it was computed in (what a
    function returns: two calls bind two tensors)."""
    t = v[0]
    if t == "T" and len(v) == 4 and isinstance(v[2], tuple):
        return tensor(-1, v[3])
    if t == "J" and any(m[0] in "TQ" for m in v[1]):
        return join(*(untokened(m) for m in v[1]))
    if t == "Q":
        if v[2] is not None:
            return seq(v[1], (untokened(e) for e in v[2]))
        return seq(v[1], None, untokened(v[3]))
    return v


def scalar_index(v: Value) -> Value:
    """What of ``v`` is a 0-d integer or bool tensor (used as an index, torch reads its value)."""
    return meta_step(v, "!idx")


def input_index(v: Value) -> Value:
    """:func:`scalar_index` of a parameter's own value as an index: an entry's tensor input
    there is no read of data (``!inp``, decided in phase 2)."""
    return meta_step(v, "!inp")


def bool_mask(v: Value) -> Value:
    """What of ``v`` is a bool tensor of at least one dim (as an index, a boolean mask)."""
    return meta_step(v, "!mask")


def apply_steps(v: Value, steps: Iterable[str]) -> Value:
    for s in steps:
        if s[:1] in "#~?!":
            v = meta_step(v, s)
        elif s == "*":
            v = element(v, None)
        elif s.startswith("k:"):
            v = element(v, s[2:])
        else:
            v = element(v, int(s))
    return v


def instantiate(v: Value, subst: Callable[[str], Value | None]) -> Value:
    """Replace symbolic sources: ``subst(base)`` gives the value for a source without its path
    (e.g. the argument a caller passes for ``P|f|x``), or None to keep the source symbolic."""
    t = v[0]
    if t == "Y":
        base, steps = split_source(v[1])
        got = subst(base)
        return v if got is None else apply_steps(got, steps)
    if t == "J":
        return join(*(instantiate(m, subst) for m in v[1]))
    if t == "Q":
        elems = None if v[2] is None else tuple(instantiate(e, subst) for e in v[2])
        return seq(v[1], elems, instantiate(v[3], subst))
    if t == "D":
        if v[1] is None:
            return dict_of(None, instantiate(v[2], subst))
        return dict_of((k, instantiate(x, subst)) for k, x in v[1])
    return v


def bind_params(mapping: Mapping[str, Value]) -> Callable[[str], Value | None]:
    """A :func:`instantiate` substitution from a {source: value} mapping."""
    return mapping.get


_T = frozenset(("T",))
_EMPTY: frozenset[str] = frozenset()
