"""Spec fuzzing: every invalid spec is one line naming the JSON path, never a traceback."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compilelint.cli import main
from compilelint.dynamic.spec import Spec, SpecError, load_spec, validate

pytestmark = pytest.mark.slow

BASE: dict[str, Any] = {
    "model": "models/net.py:Net",
    "init": {"args": [1, 2.5], "kwargs": {"hidden": 8}},
    "inputs": [
        {"tensor": [2, 8]},
        {"tensor": [2, 16], "dtype": "int64", "init": "randint", "low": 0, "high": 100},
        {"tuple": [1, {"dict": {"a": {"tensor": [1]}}}]},
    ],
    "kwargs": {"mask": {"tensor": [2, 16], "dtype": "bool", "p": 0.5}},
    "variants": [{"name": "bigger", "inputs": [{"tensor": [4, 8]}], "calls": 2}],
    "compile": {"backend": "eager", "mode": None, "dynamic": None, "fullgraph": False},
    "config": {"capture_scalar_outputs": True},
    "mode": "eval",
    "device": "cpu",
    "seed": 0,
    "calls": 1,
    "memory_mb": 0,
}

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["float32", "randint", "cpu", "cuda:0", "train", "x.py:Net", "tensor"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["tensor", "dtype", "init", "tuple", "dict", "low", "high", "p", "x"])
            | st.text(max_size=6),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def paths(v: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here] if here else []
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths(x, (*here, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths(x, (*here, i))
    return out


ALL_PATHS = paths(BASE)


def dotted(p: tuple[Any, ...]) -> str:
    s = ""
    for k in p:
        s += f"[{k}]" if isinstance(k, int) else (f".{k}" if s else str(k))  # BASE: plain keys
    return s


def check_error(exc: SpecError) -> None:
    msg = str(exc)
    assert "\n" not in msg and "Traceback" not in msg and len(msg) < 1000, msg
    if exc.path:
        assert msg.startswith(exc.path + ": "), msg
        seg = r'(\.[\w$-]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])'
        assert re.match(rf"^([\w$-]+|\[\"(?:[^\"\\]|\\.)*\"\]){seg}*$", exc.path), exc.path


def test_base_spec_is_valid() -> None:
    assert isinstance(validate(copy.deepcopy(BASE)), Spec)


@settings(max_examples=600, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(ALL_PATHS), JSON, st.sampled_from(["replace", "delete", "add"]))
def test_mutated_spec_names_the_json_path(path: tuple[Any, ...], value: Any, how: str) -> None:
    data = copy.deepcopy(BASE)
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if how == "replace":
        parent[key] = value
    elif how == "delete":
        del parent[key]
    elif isinstance(parent, dict):
        parent[f"{key}_extra"] = value
    else:
        parent.append(value)
    try:
        validate(data)
    except SpecError as exc:
        check_error(exc)
        # The problem is where we changed the spec (or in the object that holds it).
        where = dotted(path[:-1])
        assert exc.path.startswith(where) or exc.path == "model", (exc.path, path, how)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(JSON)
def test_random_json_never_raises_anything_else(value: Any) -> None:
    try:
        validate(value)
    except SpecError as exc:
        check_error(exc)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_spec_files_of_any_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    p = tmp_path_factory.mktemp("spec") / "spec.json"
    p.write_bytes(data)
    try:
        load_spec(str(p))
    except SpecError as exc:
        check_error(exc)


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (
            b'{"model": "a.py:N", "inputs": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
            "nested too deep",
        ),
        (b'{"model": "a.py:N", "seed": 1e400}', "seed: expected an integer"),
        (b'{"model": "a.py:N", "inputs": [{"tensor": [2], "p": NaN}]}', "inputs[0].p"),
        (b'{"model": "a.py:N", "inputs": [{"tensor": [2], "low": Infinity}]}', "inputs[0].low"),
        (b"", "invalid JSON"),
    ],
    ids=["not-utf8", "deep-json", "deep-input", "huge-seed", "nan-p", "inf-low", "empty"],
)
def test_awkward_spec_files(tmp_path: Path, content: bytes, text: str) -> None:
    p = tmp_path / "spec.json"
    p.write_bytes(content)
    with pytest.raises(SpecError) as info:
        load_spec(str(p))
    check_error(info.value)
    assert text in str(info.value)


def test_spec_that_is_a_folder_or_missing(tmp_path: Path) -> None:
    for target in (tmp_path, tmp_path / "missing.json"):
        with pytest.raises(SpecError) as info:
            load_spec(str(target))
        check_error(info.value)
    res = CliRunner().invoke(main, ["spec", "validate", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "Traceback" not in res.output
