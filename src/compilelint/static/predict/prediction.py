"""What the prediction says (issue 23): its types (:class:`Prediction`, :class:`BreakSite`,
:class:`PredictedRecompile`) and the spec's calls as abstract values (:func:`spec_calls`,
:func:`_bind`: a call's values per parameter), which every part of the prediction reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compilelint.static.analysis.facts import FunctionFacts

FKey = tuple[str, str]
RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit (cache_size_limit) default
VALUE_BREAKS = frozenset({"CL102", "CL103"})  # breaks that hand a Python number to the resume
STATE_RULE = "CL501"
_SELF_ATTR = re.compile(r"`self\.(\w+)`")


@dataclass(frozen=True)
class BreakSite:
    path: str
    line: int
    rule: str
    function: str
    in_loop: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "rule": self.rule,
            "function": self.function,
            "in_loop": self.in_loop,
        }


@dataclass(frozen=True)
class PredictedRecompile:
    """One guard that fails, with how often over the spec's calls."""

    path: str
    line: int
    function: str
    subject: str  # what the guard is on, in the user's names: `top_k`, `x`, `self.step`
    guard: str  # the failed guard as torch's recompile reason writes it
    count: int
    reason: str
    fix: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "function": self.function,
            "subject": self.subject,
            "guard": self.guard,
            "count": self.count,
            "reason": self.reason,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Prediction:
    entry: str  # the spec's model (`model.py:Net`)
    function: str  # the predicted-for function (`model.py:Net.forward`), "" when not found
    calls: int
    graph_count: int
    graph_breaks: int
    recompiles: int
    hit_recompile_limit: bool = False
    break_sites: tuple[BreakSite, ...] = ()
    recompile_sites: tuple[PredictedRecompile, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # the files of the functions the entry reaches (not reported): where the prediction, which
    # knows the spec's calls, decides the recompiles the scan without a spec assumed
    files: tuple[str, ...] = ()
    # the (path, line) of each CL304 finding whose int the spec's calls cannot change
    # (:func:`settled_sizes`; not reported): with a spec the prediction decides them
    settled: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "function": self.function,
            "calls": self.calls,
            "graph_count": self.graph_count,
            "graph_breaks": self.graph_breaks,
            "recompiles": self.recompiles,
            "hit_recompile_limit": self.hit_recompile_limit,
            "break_sites": [b.to_json() for b in self.break_sites],
            "recompile_sites": [r.to_json() for r in self.recompile_sites],
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """``predicted: 2 graphs, 1 break, 3 recompiles over the spec's 4 calls``."""
        return (
            f"predicted: {_plural(self.graph_count, 'graph')}, "
            f"{_plural(self.graph_breaks, 'break')}, {_plural(self.recompiles, 'recompile')} "
            f"over the spec's {_plural(self.calls, 'call')}"
            + (" (recompile limit reached: eager from then on)" if self.hit_recompile_limit else "")
        )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


# ---------------------------------------------------------------------------- the spec's calls
Abstract = tuple[
    Any, ...
]  # ("T", shape, dtype, data, grad) | ("N",) | ("I"|"F"|"S"|"B", v) | ("L", items) | ("D", (k, v)...)
DEFAULT: Abstract = ("DEF",)
UNKNOWN: Abstract = ("?",)


def abstract(v: Any) -> Abstract:
    """A spec value as the guards see it (no tensors are made)."""
    if v is None:
        return ("N",)
    if isinstance(v, bool):
        return ("B", v)
    if isinstance(v, int):
        return ("I", v)
    if isinstance(v, float):
        return ("F", v)
    if isinstance(v, str):
        return ("S", v)
    if isinstance(v, list):
        return ("L", tuple(abstract(x) for x in v))
    if isinstance(v, dict):
        if "tensor" in v:
            data = v.get("data")
            grad = bool(v.get("requires_grad", False))
            return ("T", tuple(v["tensor"]), str(v.get("dtype", "float32")), data is not None, grad)
        if "tuple" in v:
            return ("L", tuple(abstract(x) for x in v["tuple"]))
        if "dict" in v:
            return ("D", tuple((str(k), abstract(x)) for k, x in v["dict"].items()))
    return UNKNOWN


def spec_calls(spec: Any) -> list[tuple[list[Abstract], dict[str, Abstract]]]:
    """The calls the dynamic stage makes, in order: the inputs ``calls`` times, then each
    variant (its own inputs, the spec's kwargs updated by its kwargs) its ``calls`` times."""
    base = [abstract(a) for a in spec.inputs] if spec.inputs_given else None
    kw = {k: abstract(v) for k, v in spec.kwargs.items()}
    out: list[tuple[list[Abstract], dict[str, Abstract]]] = []
    first = (list(base) if base is not None else [UNKNOWN], dict(kw))
    out.extend([first] * max(1, spec.calls))
    for var in spec.variants:
        args = [abstract(a) for a in var["inputs"]] if "inputs" in var else first[0]
        vkw = dict(kw)
        vkw.update({k: abstract(v) for k, v in var.get("kwargs", {}).items()})
        out.extend([(args, vkw)] * int(var.get("calls", 1)))
    return out


def _bind(
    fn: FunctionFacts, args: list[Abstract], kwargs: Mapping[str, Abstract]
) -> dict[str, Abstract]:
    """Each parameter's value in one call; a left-out argument takes its default (a literal
    default's value is known from the guard facts; ``None`` defaults are ``None``)."""
    params = [p for p in fn.params if p.name not in ("self", "cls") or p.index != 0]
    if args == [UNKNOWN]:
        return {p.name: UNKNOWN for p in params}
    defaults = {r[0]: abstract(r[4]) for r in fn.guards if r[1] == "default"}
    out: dict[str, Abstract] = {}
    pos = [p for p in params if p.index >= 0]
    for i, p in enumerate(pos):
        if i < len(args):
            out[p.name] = args[i]
    for p in params:
        if p.name in kwargs:
            out[p.name] = kwargs[p.name]
        if p.name not in out:
            if p.index in (-2, -3):
                out[p.name] = DEFAULT
            else:
                out[p.name] = defaults.get(p.name, ("N",) if p.default == "none" else DEFAULT)
    return out


def _distinct_tensor_calls(calls: Sequence[tuple[list[Abstract], dict[str, Abstract]]]) -> int:
    """How many calls bring new tensor data (a variant's random tensors are drawn anew; repeated
    calls reuse the same tensors)."""
    n = 0
    prev: object = None
    for args, _kwargs in calls:
        ident = id(args)
        if ident != prev:
            n += 1
            prev = ident
    return n
