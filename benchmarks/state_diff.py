"""What an edit changes in the walk's state that the statements after it could read: for each edit
site of ``ab_server.py`` (a ``.item()`` line inserted at the first line of a ``forward``), walk
the file and the edited file to just after the edited top-level statement and compare the
state there (the walker's attributes, ``GuardUses``', and each check's), attribute by
attribute, in a canonical pickle: a libcst node is written as its place (the index of its
top-level statement, its pre-order index in it, its type), a table keyed by ``id()`` of nodes
is keyed by their places, the walker, the guard uses and the checks by name, compilelint's
module constants by name. An attribute that differs is one the edit changed (or, for tables
keyed by objects the edited statement made, one that holds entries of its own). Skipping the
walk of the statements after an edit needs every differing attribute to be an output (never
read by the walk) or to hold only entries no later statement reaches.

    python benchmarks/state_diff.py [--model wav2vec2]
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import io
import pickle
import sys
from pathlib import Path
from typing import Any

import libcst as cst
from ab_server import _sites  # benchmarks/ is the script's folder
from libcst.metadata import MetadataWrapper, PositionProvider

Place = tuple[Any, ...]


def _places(module: cst.Module) -> dict[int, Place]:
    """id of each node -> (top-level statement index, pre-order index in it, type name)."""
    out: dict[int, Place] = {id(module): ("module",)}
    for si, stmt in enumerate(module.body):
        k = 0
        stack: list[cst.CSTNode] = [stmt]
        while stack:
            n = stack.pop()
            out[id(n)] = (si, k, type(n).__name__)
            k += 1
            stack.extend(reversed(n.children))
    return out


class _Canonical(pickle.Pickler):
    def __init__(self, buf: io.BytesIO, places: dict[int, Place], roots: dict[int, str]) -> None:
        from compilelint.static.analysis.resume import _module_constants

        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self.places, self.roots = places, roots
        self.consts = list(_module_constants().items())

    def reducer_override(self, obj: Any) -> Any:
        from compilelint.static.analysis.resume import ByIdentity

        if id(obj) in self.roots:
            return (str, (self.roots[id(obj)],))
        owner = getattr(obj, "__self__", None)
        if type(obj).__name__ == "method" and id(owner) in self.roots:
            return (str, (f"{self.roots[id(owner)]}.{obj.__func__.__name__}",))
        if isinstance(obj, cst.CSTNode):
            return (tuple, (("node", *self.places.get(id(obj), ("?",))),))
        for i, (cid, c) in enumerate(self.consts):
            if cid == id(obj) and c is obj:
                return (str, (f"constant {i}",))
        if isinstance(obj, ByIdentity):
            return (list, ([(k, v) for k, v in zip(obj.held.values(), obj.values())],))
        return NotImplemented


def _canonical(value: Any, places: dict[int, Place], roots: dict[int, str]) -> bytes | str:
    if isinstance(value, dict) and value and all(type(k) is int for k in value):
        value = sorted(((places.get(k, ("id",)), v) for k, v in value.items()), key=repr)
    elif isinstance(value, (set, frozenset)) and value and all(type(k) is int for k in value):
        value = sorted((places.get(k, ("id",)) for k in value), key=repr)
    buf = io.BytesIO()
    try:
        _Canonical(buf, places, roots).dump(value)
    except Exception as exc:
        return f"cannot pickle: {type(exc).__name__}"
    return buf.getvalue()


def _state(module: cst.Module, path: str, upto: int) -> dict[str, bytes | str]:
    """The walk's state after the top-level statements before ``upto``, per attribute."""
    from compilelint.static.analysis import walker as W
    from compilelint.static.analysis.guards import GuardUses
    from compilelint.static.checks.base import build_hooks
    from compilelint.static.engine import all_checks

    w = W.FileWalker(module, path, "m", False, {})
    w.hooks = build_hooks(w, list(all_checks().values()))
    uses = GuardUses(w)
    for t, hs in uses.hooks().items():
        w.hooks[t] = [*w.hooks.get(t, ()), *hs]
    w.declare()
    w.fire(module)
    w.walk_top(0, upto)
    roots: dict[int, str] = {id(w): "walker", id(uses): "guards"}
    owners: list[Any] = []
    for hs in w.hooks.values():
        for h in hs:
            o = getattr(h, "__self__", None)
            if o is not None and id(o) not in roots:
                roots[id(o)] = type(o).__name__
                owners.append(o)
    places = _places(module)
    out: dict[str, bytes | str] = {}
    for name, obj in (("walker", w), ("guards", uses), *((type(o).__name__, o) for o in owners)):
        for k, v in vars(obj).items():
            if k in ("w", "hooks", "_dotted", "module"):
                continue  # the walker itself, its hooks, a memo of the node alone, the module
            out[f"{name}.{k}"] = _canonical(v, places, roots)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="wav2vec2")
    args = ap.parse_args()
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("state_diff: needs transformers installed")
    sys.setrecursionlimit(20_000)
    path = Path(spec.origin).parent / "models" / args.model / f"modeling_{args.model}.py"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    module = cst.parse_module(text)
    pos = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    counts: collections.Counter[str] = collections.Counter()
    sites = _sites(lines)
    for k, indent in sites:
        e = max(i for i, s in enumerate(module.body) if pos[s].start.line <= k + 1)
        new = [*lines[:k], f"{indent}_probe = torch.zeros(1).item()", *lines[k:]]
        before = _state(module, str(path), e + 1)
        after = _state(cst.parse_module("\n".join(new)), str(path), e + 1)
        differ = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
        counts.update(differ)
        print(f"edit at line {k + 1} (statement {e}): {len(differ)} attributes differ")
    print(f"over {len(sites)} edits, the attributes that differ after the edited statement:")
    for name, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {c:3d}  {name}")


if __name__ == "__main__":
    main()
