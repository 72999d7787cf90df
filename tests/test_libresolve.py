"""The resolution facts made from CPython's tree (``static/libresolve.py``) equal the libcst
walker's, field by field, on whole installed library packages (issue 24)."""

from __future__ import annotations

import importlib.util
import marshal
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.engine import FileInput, _analyze_source, all_checks
from compilelint.static.libresolve import (
    LightClass,
    LightFunction,
    from_plain,
    light_facts,
    to_plain,
)

PACKAGES = (
    "torchdiffeq",
    "kornia",
    "transformers.utils",
    "x_transformers",
    "einops",
    "zuko",
    "transformers.generation",
    "transformers.models.auto",
    "transformers.integrations",
)


def _files(pkg: str) -> list[tuple[Path, str, bool]]:
    try:
        spec = importlib.util.find_spec(pkg)
    except ModuleNotFoundError:  # `transformers.utils` without transformers installed
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    site = root.parents[len(pkg.split(".")) - 1]
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(site).with_suffix("").parts
        is_pkg = rel[-1] == "__init__"
        mod = ".".join(rel[:-1] if is_pkg else rel)
        out.append((p, mod, is_pkg))
    return out


def compare(path: Path, mod: str, is_pkg: bool) -> tuple[bool, list[str]]:
    data = path.read_bytes()
    light = light_facts(data, str(path), mod, is_pkg)
    if light is None:
        return False, []
    # as the library cache keeps them
    plain: Any = to_plain(light)  # marshal-able data, as to_plain makes it
    light = from_plain(str(path), marshal.loads(marshal.dumps(plain)))
    full = _analyze_source(
        data,
        FileInput(str(path), str(path), mod, is_pkg),
        list(all_checks().values()),
        True,
        None,
        "all",
    )
    if full.error is not None:
        return True, [f"{path}: full analysis failed: {full.error}"]
    bad = []
    for name in (
        "path",
        "module",
        "is_package",
        "lines",
        "imports",
        "compiled_refs",
        "graph_op_refs",
        "script_refs",
        "all_names",
    ):
        if getattr(light, name) != getattr(full, name):
            bad.append(f"{path}: {name}: {getattr(light, name)!r} != {getattr(full, name)!r}")
    if list(light.classes) != list(full.classes):
        bad.append(f"{path}: classes {list(light.classes)} != {list(full.classes)}")
    for q, cf in full.classes.items():
        lc = light.classes.get(q)
        if lc is None:
            continue
        # a LightClass's attribute facts are a demand (never read from it): the rest is equal
        names: tuple[str, ...] = ("qual", "name", "bases", "methods", "line")
        if not isinstance(lc, LightClass):
            names += ("attrs", "attr_classes")
        else:  # the attributes it answers have no facts have none in the walker's tables
            for name in ("attrs", "attr_classes"):
                table = object.__getattribute__(lc, name)
                for key in getattr(cf, name):
                    if table._absent(key):
                        bad.append(f"{path}: class {q}.{name}: {key} said absent")
        for name in names:
            if object.__getattribute__(lc, name) != getattr(cf, name):
                got = object.__getattribute__(lc, name)
                bad.append(f"{path}: class {q}.{name}: {got!r} != {getattr(cf, name)!r}")
    if list(light.functions) != list(full.functions):
        bad.append(f"{path}: functions {list(light.functions)} != {list(full.functions)}")
    for q, fn in full.functions.items():
        lf = light.functions.get(q)
        if lf is None:
            continue
        assert isinstance(lf, LightFunction)
        for name in object.__getattribute__(lf, "_known"):
            if object.__getattribute__(lf, name) != getattr(fn, name):
                bad.append(f"{path}: {q}.{name}")
    return True, bad


@pytest.mark.slow
@pytest.mark.parametrize("pkg", PACKAGES)
def test_light_facts_equal_walker(pkg: str) -> None:
    files = _files(pkg)
    if not files:
        pytest.skip(f"{pkg} not installed")
    bad: list[str] = []
    light = 0
    for p, mod, is_pkg in files:
        ok, diffs = compare(p, mod, is_pkg)
        light += ok
        bad += diffs
    assert not bad, "\n".join(bad[:20])
    assert light > 0


def test_an_item_stored_into_a_base_class_attribute_is_not_said_absent(tmp_path: Path) -> None:
    # transformers 5.24's cache allocators and integrations: ``self.block_table[k] = []`` and
    # ``self.__dict__[k] = v`` in a class whose base binds the attribute; the walker gives the
    # attribute facts, so the light read must not answer that there are none
    path = tmp_path / "alloc.py"
    path.write_text(
        "from .base import Allocator\n\n\n"
        "class Full(Allocator):\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n\n"
        "    def add(self, rid):\n"
        "        self.block_table[rid] = []\n"
        "        self.__dict__[rid] = 1\n"
        "        return self.n\n",
        encoding="utf-8",
    )
    ok, diffs = compare(path, "pkg.alloc", False)
    assert ok and not diffs


if __name__ == "__main__":
    import sys

    for pkg in sys.argv[1:] or PACKAGES:
        n = k = 0
        for p, mod, is_pkg in _files(pkg):
            n += 1
            ok, diffs = compare(p, mod, is_pkg)
            k += ok
            for d in diffs:
                print(d[:400])
        print(pkg, "files", n, "light", k, file=sys.stderr)
