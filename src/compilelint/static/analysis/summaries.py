"""Phase 2: function summaries and the symbolic sources they decide.

A *summary* is what phase 1 recorded about a function: the values of its return statements
(joined: a tuple return keeps one value per position) and, at every call site in traced code, the
value of each argument. A symbolic source is decided here, on demand:

- ``P|f|x``: a parameter of a traced function is a tensor when ``f`` is a compiled-region root
  and takes ``x`` as a tensor (annotation, or position and name: see
  :func:`~compilelint.static.analysis.params.root_param_is_tensor`), when it is annotated as a
  tensor, or when a traced caller passes a value that is one (a caller's value, with the path
  applied: ``P|f|xs@0`` is a tensor when a caller passes ``[t, n]`` with ``t`` a tensor);
- ``R|ref``: what a call returns is a tensor when the callee's summary (its joined return value,
  with the path applied) is, in the callee's file, or when the callee is a graph op
  (``allow_in_graph``);
- ``A|C|attr``: ``self.attr`` is a tensor when a value assigned to it in ``C`` or a class of its
  MRO is.

Each question is answered by a depth-first search that treats a source already on the stack as
"not (yet) a tensor": the answer is the least fixpoint, so it does not depend on the order of the
search, and answers that did not lean on an unfinished source are memoised.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from compilelint.static.analysis import values as V
from compilelint.static.analysis.params import root_param_is_tensor

if TYPE_CHECKING:
    from compilelint.static.analysis.facts import CallSite, FunctionFacts, ParamFacts
    from compilelint.static.analysis.values import Value

FKey = tuple[str, str]  # (path, qual)
_MAX_STEPS = 8  # element-path length past which a source is not followed further
_BUDGET = 50_000  # sources visited for one candidate before giving up (pathological projects)


class Summaries:
    """Mixin of :class:`~compilelint.static.analysis.project.Project`: symbolic sources."""

    files: dict
    traced: set[FKey]
    roots: set[FKey]
    default_roots: set[FKey]
    callers: dict[FKey, list[tuple[str, CallSite, int]]]
    object_param: Callable[[FKey, str], bool]  # Project's

    # the compile context's mode (``Config.mode``: "train" makes training-only code certain)
    mode: str | None = None
    # what an input spec says of its entry's tensor inputs (``Config.spec_inputs``)
    spec_inputs: tuple[str, str, tuple[tuple[str, int, str], ...]] | None = None
    _memo: dict[tuple[str, str], bool]

    def set_spec_inputs(
        self, got: tuple[str, str, tuple[tuple[str, int, str], ...]] | None
    ) -> None:
        """Take the spec's entry inputs (their rank and dtype decide the tests, ``!idx`` and
        ``!mask``, of the entry's parameters); what was decided of such tests before is
        dropped."""
        if got == self.spec_inputs:
            return
        self.spec_inputs = got
        self._memo = {
            k: v for k, v in self._memo.items() if "@!" not in k[1] and not k[1].startswith("P|")
        }

    def _spec_input(self, key: FKey, fn: FunctionFacts, prm: ParamFacts) -> Value | None:
        """The spec's tensor for parameter ``prm`` of the entry ``key`` (a tensor of the rank
        and dtype kind the spec gives; a Python number of its type where every call passes a
        number), else None."""
        got = self.spec_inputs
        if got is None:
            return None
        path, name, inputs = got
        if fn.qual not in (name, f"{name}.forward") or os.path.realpath(key[0]) != path:
            return None
        positional = [p.name for p in fn.params if p.index >= 0]
        if fn.qual != name and positional[:1] == ["self"]:
            positional = positional[1:]
        for slot, rank, dtype in inputs:
            if slot == prm.name or (
                slot.isdigit() and positional[int(slot) : int(slot) + 1] == [prm.name]
            ):
                if rank == V.SPEC_NUMBERS_RANK:
                    return V.seq("list", None, V.scalar(dtype))
                return V.scalar(dtype) if rank == V.SPEC_NUMBER_RANK else V.tensor(rank, dtype)
        return None

    def _init_summaries(self) -> None:
        self._memo = {}
        self._active: dict[tuple[str, str], int] = {}
        self._low = 1 << 30
        self._budget = _BUDGET

    # ------------------------------------------------------------------ values
    def return_value(self, key: FKey) -> Value:
        """The summary of a function: the join of what it returns (None if it never does)."""
        fn: FunctionFacts = self.files[key[0]].functions[key[1]]
        return V.join(*fn.returns) if fn.returns else V.NONE

    def argument_values(self, key: FKey, pname: str) -> list[tuple[str, Value]]:
        """(caller path, value) of what every traced caller passes for parameter ``pname``."""
        fn: FunctionFacts = self.files[key[0]].functions[key[1]]
        positional = [p.name for p in fn.params if p.index >= 0]
        out: list[tuple[str, Value]] = []
        for cpath, call, implicit in self.callers.get(key, ()):
            v: Value | None = None
            if pname in positional:
                j = positional.index(pname) - implicit
                if 0 <= j < len(call.args):
                    v = call.args[j]
            if v is None:
                v = call.kwargs.get(pname)
            if v is not None:
                out.append((cpath, v))
        return out

    # ------------------------------------------------------------------ sources
    def resolves(self, path: str, taint: Iterable[str]) -> bool:
        """Whether any source of a taint is a tensor."""
        self._budget = _BUDGET
        return any(self._source(path, s) for s in taint)

    def value_is_tensor(self, path: str, v: Value) -> bool:
        """Whether a value seen in file ``path`` may be a tensor."""
        return self.resolves(path, V.sources(v))

    def _source(self, path: str, s: str) -> bool:
        if s == "T":
            return True
        key = (path, s)
        got = self._memo.get(key)
        if got is not None:
            return got
        depth = self._active.get(key)
        if depth is not None:
            self._low = min(self._low, depth)
            return False
        if self._budget <= 0:
            return False
        self._budget -= 1
        d = len(self._active)
        self._active[key] = d
        saved_low, self._low = self._low, 1 << 30
        try:
            out = self._decide(path, s)
        finally:
            del self._active[key]
        if out or self._low >= d:
            self._memo[key] = out
            self._low = saved_low
        else:
            self._low = min(saved_low, self._low)
        return out

    def _any(self, path: str, v: Value) -> bool:
        return any(self._source(path, s) for s in V.sources(v))

    def _decide(self, path: str, s: str) -> bool:
        base, steps = V.split_source(s)
        if len(steps) > _MAX_STEPS:
            return False  # a recursive walk over nested containers (``f(v) for v in value``)
        kind, _, rest = base.partition("|")
        if kind == "P":
            return self._param(path, rest, steps)
        if kind == "R":
            t = self._target(path, rest)  # type: ignore[attr-defined]
            if t is None:
                return False
            (cp, cq), _ = t
            if (cp, cq) in self.graph_ops and not V.has_test(steps):  # type: ignore[attr-defined]
                return True  # an allow_in_graph op returns tensors (fake-tensor traced)
            fn = self.files[cp].functions[cq]
            if fn.name == "__init__":
                return False
            return self._any(cp, V.apply_steps(self.return_value((cp, cq)), steps))
        if kind == "K":
            # "K|<class>": the class is an nn.Module (for checks on module construction)
            return self.is_module_class(path, rest)  # type: ignore[attr-defined]
        if kind == "A":
            cq, _, attr = rest.rpartition("|")
            dyn = V.DYN_ATTR in attr
            for cp, cqq in self.mro(path, cq):  # type: ignore[attr-defined]
                cf = self.files[cp].classes[cqq]
                # a dynamic name (``getattr(self, f"running_{s}")``): every attribute it may be
                names = [a for a in cf.attrs if V.attr_names_match(attr, a)] if dyn else [attr]
                for a in names:
                    if cf.attrs.get(a):
                        if self._any(cp, V.apply_steps(V.join(*cf.attrs[a]), steps)):
                            return True
            return False
        return False

    def _by_callers(self, key: FKey, prm: ParamFacts, steps: list[str]) -> bool | None:
        """Whether some traced caller passes a tensor for ``prm``; None when there is no caller
        or one hides its arguments (``*args``/``**kwargs``) or leaves out one with no default."""
        sites = self.callers.get(key, ())
        if not sites:
            return None
        fn: FunctionFacts = self.files[key[0]].functions[key[1]]
        positional = [p.name for p in fn.params if p.index >= 0]
        out = False
        for cpath, call, implicit in sites:
            if call.star:
                return None
            v: Value | None = None
            if prm.name in positional:
                j = positional.index(prm.name) - implicit
                if 0 <= j < len(call.args):
                    v = call.args[j]
            if v is None:
                v = call.kwargs.get(prm.name)
            if v is None:
                if prm.default in ("none", "literal"):
                    continue  # the default, a Python value
                return None
            out = out or self._any(cpath, V.apply_steps(v, steps))
        return out

    def _param(self, path: str, rest: str, steps: list[str]) -> bool:
        fq, _, pname = rest.rpartition("|")
        key = (path, fq)
        if key not in self.traced:
            return False
        fn: FunctionFacts = self.files[path].functions[fq]
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None:
            return False
        if "!inp" in steps:
            if steps == ["!inp"] and key in self.roots:
                given = self._spec_input(key, fn, prm)
                if given is not None and given[0] == "T":
                    # the entry's own tensor input as an index (`self.sigmas[step_index]`):
                    # torch 2.13 does not read its value (a computed one, `step_index + 1`,
                    # is read: GB0033)
                    return False
            # elsewhere (a callee's parameter, an entry without the spec's tensor) as any
            # 0-d index
            steps = ["!idx" if st == "!inp" else st for st in steps]
        test = V.has_test(steps)
        if key in self.roots:
            # what the spec passes the entry decides: a tensor (of its rank and dtype kind, for
            # the tests) or a Python number, whatever the parameter's name or default suggests
            given = self._spec_input(key, fn, prm)
            if given is not None:
                return self._any(path, V.apply_steps(given, steps))
        if test and prm.annotation == "tensor" and prm.default != "literal":
            return _unknown_tensor(steps)
        if key in self.roots:
            if (
                key in self.default_roots
                and prm.default == "none"
                and prm.annotation not in ("tensor", "container")
            ):
                # a library-mode entry under its defaults: an unannotated `cache=None` is None
                # (`mask: Optional[Tensor] = None` says a tensor may come: kept)
                return False
            if key in self.default_roots and self.object_param(key, pname):
                # a library-mode entry that reads `sde.noise_type` or builds `torch.zeros(n)`
                # from the parameter: the user passes an object or a size there, not a tensor
                return False
            i = fn.params.index(prm)
            if root_param_is_tensor(fn, i):
                # a submodule's forward called by a traced parent: dynamo inlines it with what
                # the parent passes (a `(height, width)` tuple is not a tensor), so the callers
                # decide when every one of them shows the argument
                # (a rank or dtype test, ``!idx``, holds only where a caller shows the value:
                # an entry's tensor has no known rank)
                by_callers = (
                    None
                    if prm.annotation == "tensor" and not test
                    else self._by_callers(key, prm, steps)
                )
                return _unknown_tensor(steps) if by_callers is None else by_callers
            if steps and (prm.annotation == "container" or prm.index == -2):
                return _unknown_tensor(steps)  # elements of a root's list[Tensor] / *args
        if prm.annotation == "tensor" and prm.default != "literal" and not test:
            return True
        if prm.annotation == "nontensor" and not steps:
            return False
        for cpath, passed in self.argument_values(key, pname):
            if prm.annotation == "object":
                # `transform: Transform` (torch's class): a caller's "tensor" is the value
                # model's guess for a call it cannot see into (`self.transform(c)` of a module
                # whose forward returns a `Transform`); the annotation says otherwise
                others = [m for m in V.members(passed) if m[0] != "T" or m == V.CONST_TENSOR]
                if not others:
                    continue
                passed = V.join(*others)
            if self._any(cpath, V.apply_steps(passed, steps)):
                return True
        return False


def _unknown_tensor(steps: list[str]) -> bool:
    """Whether a tensor of unknown rank and dtype, through ``steps``, is still one: always,
    except through a rank or dtype test (``!idx``) its steps do not decide (``x.argmax()`` is a
    0-d integer tensor whatever ``x`` is)."""
    if not V.has_test(steps):
        return True
    return bool(V.sources(V.apply_steps(V.TENSOR, steps)))
