"""Rebuild dataclasses from ``dataclasses.asdict`` data (the caches store facts and findings as
plain dicts, lists and tuples, through ``marshal``).

One generic function, driven by the classes' type hints, so that a field added to a dataclass
(a list of call sites, a tuple of frames) comes back as the dataclass it was, with no reader to
update by hand: a reader that forgot one field crashed the second, cached, run.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, TypeVar, Union

T = TypeVar("T")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    import sys

    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, vars(module) if module else None)


def from_data(cls: type[T], data: Any) -> T:
    """``cls(**data)`` with every nested dataclass (in lists, tuples, dicts and optionals)
    rebuilt from its dict. Values already of the right class are kept."""
    return typing.cast(T, _convert(cls, data))


def _convert(tp: Any, v: Any) -> Any:
    if v is None or tp is Any:
        return v
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if isinstance(v, tp) or not isinstance(v, dict):
            return v
        hints = _hints(tp)
        return tp(**{k: _convert(hints.get(k, Any), x) for k, x in v.items()})
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        for a in args:
            if a is type(None):
                continue
            if isinstance(a, type) and dataclasses.is_dataclass(a) and isinstance(v, dict):
                return _convert(a, v)
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], v) if len(inner) == 1 else v
    if origin is list and args and isinstance(v, (list, tuple)):
        return [_convert(args[0], x) for x in v]
    if origin is tuple and args and isinstance(v, (list, tuple)):
        if len(args) == 2 and args[1] is Ellipsis and args[0] is Any:
            return v if isinstance(v, tuple) else tuple(v)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], x) for x in v)
        if len(args) == len(v):
            return tuple(_convert(a, x) for a, x in zip(args, v))
        return tuple(v)
    if origin is dict and len(args) == 2 and isinstance(v, dict):
        return {k: _convert(args[1], x) for k, x in v.items()}
    return v


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def to_data(obj: Any) -> Any:
    """``dataclasses.asdict`` for the caches, without its deep copies: dataclasses become dicts
    (recursively, in lists, tuples and dicts); everything else is shared, since what is stored
    is only read back (marshal copies it anyway)."""
    cls = type(obj)
    if dataclasses.is_dataclass(cls):
        return {n: to_data(getattr(obj, n)) for n in _field_names(cls)}
    if cls is list:
        return [to_data(x) for x in obj] if obj and _nested(obj) else list(obj)
    if cls is tuple:
        return tuple(to_data(x) for x in obj) if obj and _nested(obj) else obj
    if cls is dict:
        return {k: to_data(v) for k, v in obj.items()} if obj and _nested(obj.values()) else obj
    return obj


def _nested(xs: Any) -> bool:
    """Whether a container holds what ``to_data`` must convert (dataclasses, or containers of
    them): checked on its elements' types, not their values."""
    for x in xs:
        t = type(x)
        if dataclasses.is_dataclass(t) or t is dict or t is list:
            return True
        if t is tuple and _nested(x):
            return True
    return False
