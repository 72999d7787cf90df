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
    return typing.cast(T, _converter(cls)(data))


# One converter per type hint, made once from the hint and then only called: the caches read
# thousands of values per file, and looking at a hint's origin and arguments for each value
# cost more than the conversion itself.
_CONVERTERS: dict[Any, Any] = {}


def _converter(tp: Any) -> Any:
    got = _CONVERTERS.get(tp)
    if got is None:
        got = _CONVERTERS[tp] = _make_converter(tp)
    return got


def _same(v: Any) -> Any:
    return v


def _make_converter(tp: Any) -> Any:
    if tp is Any:
        return _same
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        cls = tp
        table: dict[str, Any] = {}  # the fields' converters, made on first use (types may nest)

        def dataclass_(v: Any) -> Any:
            if v is None or isinstance(v, cls) or not isinstance(v, dict):
                return v
            if not table:
                table.update((k, _converter(h)) for k, h in _hints(cls).items())
            get = table.get
            return cls(**{k: (c(x) if (c := get(k)) is not None else x) for k, x in v.items()})

        return dataclass_
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        dcs = [
            a
            for a in args
            if a is not type(None) and isinstance(a, type) and dataclasses.is_dataclass(a)
        ]
        inner = [a for a in args if a is not type(None)]
        first_dc = _converter(dcs[0]) if dcs else None
        single = _converter(inner[0]) if len(inner) == 1 else None

        def union(v: Any) -> Any:
            if v is None:
                return v
            if first_dc is not None and isinstance(v, dict):
                return first_dc(v)
            return single(v) if single is not None else v

        return union
    if origin is list and args:
        item = _converter(args[0])
        if item is _same:
            return lambda v: list(v) if isinstance(v, (list, tuple)) else v
        return lambda v: [item(x) for x in v] if isinstance(v, (list, tuple)) else v
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] is Any:
                return lambda v: (
                    (v if isinstance(v, tuple) else tuple(v)) if isinstance(v, list | tuple) else v
                )
            each = _converter(args[0])
            return lambda v: tuple(each(x) for x in v) if isinstance(v, list | tuple) else v
        parts = [_converter(a) for a in args]

        def fixed(v: Any) -> Any:
            if not isinstance(v, (list, tuple)):
                return v
            if len(parts) == len(v):
                return tuple(c(x) for c, x in zip(parts, v))
            return tuple(v)

        return fixed
    if origin is dict and len(args) == 2:
        value = _converter(args[1])
        if value is _same:
            return lambda v: dict(v) if isinstance(v, dict) else v
        return lambda v: {k: value(x) for k, x in v.items()} if isinstance(v, dict) else v
    return _same


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


# the field names of each dataclass met by ``to_data``, None for any other type: looked up by
# exact type once per value, instead of ``dataclasses.is_dataclass`` (an ``isinstance`` and a
# ``hasattr``) and a cached call per value, on the tens of thousands of values of a file's facts
_DATA_FIELDS: dict[type, tuple[str, ...] | None] = {
    t: None for t in (str, int, float, bool, bytes, type(None), list, tuple, dict)
}


_UNSEEN = ("",)  # no dataclass has a field named ""


def _fields_of(cls: type) -> tuple[str, ...] | None:
    got = _DATA_FIELDS.get(cls, _UNSEEN)
    if got is _UNSEEN:
        got = _DATA_FIELDS[cls] = _field_names(cls) if dataclasses.is_dataclass(cls) else None
    return got


def to_data(obj: Any) -> Any:
    """``dataclasses.asdict`` for the caches, without its deep copies: dataclasses become dicts
    (recursively, in lists, tuples and dicts); everything else is shared, since what is stored
    is only read back (marshal copies it anyway)."""
    cls = type(obj)
    names = _fields_of(cls)
    if names is not None:
        return {n: to_data(getattr(obj, n)) for n in names}
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
        if t is dict or t is list or _fields_of(t) is not None:
            return True
        if t is tuple and _nested(x):
            return True
    return False
