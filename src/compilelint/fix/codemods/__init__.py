"""One codemod module per fixable rule; :func:`all_codemods` finds them by code."""

from __future__ import annotations

import importlib
import pkgutil

from compilelint.fix.codemods.base import Codemod

_REGISTRY: dict[str, Codemod] = {}


def all_codemods() -> dict[str, Codemod]:
    """An instance of every codemod in this package, by rule code."""
    if not _REGISTRY:
        import compilelint.fix.codemods as pkg

        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            if not info.name.startswith("cl"):
                continue
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for obj in vars(mod).values():
                if (
                    isinstance(obj, type)
                    and issubclass(obj, Codemod)
                    and obj.CODE
                    and obj.__module__ == mod.__name__
                ):
                    if obj.CODE in _REGISTRY:
                        raise RuntimeError(f"two codemods claim {obj.CODE}")
                    _REGISTRY[obj.CODE] = obj()
    return dict(_REGISTRY)
