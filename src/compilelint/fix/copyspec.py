"""Point an input spec at a copy of the project (``fix --verify``, ``bench --fix``).

A spec names its model as ``path/to/file.py:Name`` (relative to the project root or to the
spec's folder, or absolute) or as ``package.module:Name``. A run of the fixed copy must import
the copy's files, whatever the form:

- a file inside the project (relative or absolute) becomes the absolute path of its copy;
- a module is looked up without importing anything: in the folders given (``bases``), the
  project root, ``<root>/src`` and the spec's folder, then where Python would find its
  top-level package (``sys.path``, an editable install's finder). When it lives under the
  project root, the copy of the folder that holds it goes first on ``sys.path`` of the run
  (``CopySpec.pythonpath``);
- a model that lives outside the project cannot be verified in a copy: :class:`OutsideProject`
  says where it is.

Only the ``model`` key of a spec names a file; the rewritten spec can be written in any folder,
since a file model's path in it is absolute.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class OutsideProject(ValueError):
    """The spec's model lives outside the project: a copy of the project cannot run it."""


@dataclass(frozen=True)
class Located:
    kind: str  # "file" | "module" | "unknown"
    path: str  # the real path of the file or package ("" when unknown)
    base: str  # the sys.path folder that holds a module ("" for files)


@dataclass(frozen=True)
class CopySpec:
    spec: str  # the spec file to run
    pythonpath: tuple[str, ...] = ()  # folders to put first on the run's sys.path


def _real(p: str) -> str:
    return os.path.realpath(p)


def under(path: str, root: str) -> bool:
    real, root = _real(path), _real(root)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _read(spec_path: str) -> dict[str, Any]:
    with open(spec_path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict) or not isinstance(data.get("model"), str):
        raise ValueError(f"{spec_path}: no model")
    return data


def _is_file_target(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def _module_at(base: str, dotted: str) -> str | None:
    parts = dotted.split(".")
    stem = os.path.join(base, *parts)
    for cand in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(cand):
            return cand
    if len(parts) > 1 and os.path.isdir(stem) and os.path.isdir(os.path.join(base, parts[0])):
        return stem  # a namespace package
    return None


def locate(spec_path: str, root: str, bases: Sequence[str] = ()) -> Located:
    """Where the spec's model lives (nothing is imported)."""
    data = _read(spec_path)
    target = str(data["model"]).rsplit(":", 1)[0]
    spec_dir = os.path.dirname(os.path.abspath(spec_path))
    if _is_file_target(target):
        for base in (root, spec_dir):
            cand = target if os.path.isabs(target) else os.path.join(base, target)
            if os.path.isfile(cand):
                return Located("file", _real(cand), "")
        return Located("unknown", "", "")
    env_path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for base in (*bases, root, os.path.join(root, "src"), spec_dir, *env_path):
        if os.path.isdir(base):
            found = _module_at(base, target)
            if found is not None:
                return Located("module", _real(found), _real(base))
    top = target.split(".")[0]
    try:
        found_spec = importlib.util.find_spec(top)  # a top-level name: nothing is executed
    except (ImportError, ValueError):
        found_spec = None
    if found_spec is None:
        return Located("unknown", "", "")
    locs = list(found_spec.submodule_search_locations or [])
    where = locs[0] if locs else (found_spec.origin or "")
    if not where or not os.path.isabs(where):
        return Located("module", where, "")  # built in / frozen
    return Located("module", _real(where), _real(os.path.dirname(where)))


def spec_for_copy(
    spec_path: str,
    root: str,
    copy: str,
    out_path: str,
    bases: Sequence[str] = (),
    min_calls: int = 1,
) -> CopySpec:
    """A spec that runs the copy ``copy`` of the project ``root``; written to ``out_path``.
    ``min_calls``: call the model at least this many times (a recompile caused by state that
    changes between calls, such as a counter, shows from the second call on).

    Raises :class:`OutsideProject` when the model lives outside ``root``. A model that cannot
    be found is left as it is (the run then says why it cannot import it)."""
    root = _real(root)
    loc = locate(spec_path, root, bases)
    data = _read(spec_path)
    model = str(data["model"])
    name = model.rsplit(":", 1)[1]
    pythonpath: tuple[str, ...] = ()
    if loc.kind == "file":
        if not under(loc.path, root):
            raise OutsideProject(
                f"the model {loc.path} is outside the project root {root}: its fixed copy "
                "cannot be run (run from a folder that contains it)"
            )
        data["model"] = os.path.join(copy, os.path.relpath(loc.path, root)) + ":" + name
    elif loc.kind == "module":
        if not loc.base or not under(loc.base, root):
            where = loc.path or "a built-in module"
            raise OutsideProject(
                f"the model {model.rsplit(':', 1)[0]} is imported from {where}, outside the "
                f"project root {root}: its fixed copy cannot be run (run from the project "
                "that contains it)"
            )
        pythonpath = (os.path.join(copy, os.path.relpath(loc.base, root)),)
    calls = data.get("calls", 1)
    if isinstance(calls, int) and calls < min_calls:
        data["calls"] = min_calls
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
    return CopySpec(out_path, pythonpath)
