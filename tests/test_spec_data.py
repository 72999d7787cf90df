"""Specs hold literal data for what random values cannot express, and ``spec init --run`` writes
a factory's small inputs that way (issue 18, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compilelint.dynamic.spec import SpecError, validate

from .cli_invoke import invoke

ROOT = Path(__file__).resolve().parent.parent


def _tensor(v: dict) -> dict:
    return validate({"model": "m.py:f", "inputs": [v]}).inputs[0]


def test_literal_data_flat_or_nested() -> None:
    grid = _tensor({"tensor": [5], "data": [0.0, 0.25, 0.5, 0.75, 1.0]})
    assert grid["init"] == "data" and grid["data"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    idx = _tensor({"tensor": [2, 2], "dtype": "int64", "data": [[0, 3], [1, 2]]})
    assert idx["data"] == [0, 3, 1, 2]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"tensor": [3], "data": [1.0, 2.0]},
            "inputs[0].data: 2 values for shape [3] (3 expected)",
        ),
        (
            {"tensor": [2], "dtype": "int64", "data": [1, 2.5]},
            "inputs[0].data[1]: expected an integer",
        ),
        ({"tensor": [1], "data": ["a"]}, "inputs[0].data[0]: expected a number, got string"),
        ({"tensor": [1], "data": [1.0], "init": "randn"}, 'give either "data" or "init"'),
        ({"tensor": [1], "data": 1.0}, "inputs[0].data: expected an array of values"),
        ({"tensor": [2], "data": [[1.0], [2.0], [3.0]]}, "inputs[0].data"),
    ],
)
def test_bad_literal_data_is_one_line(value: dict, message: str) -> None:
    with pytest.raises(SpecError) as exc:
        _tensor(value)
    assert message in str(exc.value)


@pytest.mark.torch
def test_runner_builds_the_literal_tensor() -> None:
    torch = pytest.importorskip("torch")
    from compilelint.dynamic.runner import make_value

    t = make_value(
        torch, _tensor({"tensor": [2, 2], "dtype": "int64", "data": [0, 3, 1, 2]}), "cpu"
    )
    assert t.dtype == torch.int64 and t.tolist() == [[0, 3], [1, 2]]


@pytest.mark.torch
def test_spec_init_run_writes_a_factorys_small_inputs_literally(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "spec.json"
    code, _, err = invoke(
        ["spec", "init", "fixtures/dynamic/train_factory.py:make", "--run", "-o", str(out)]
    )
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    x, extra = data["inputs"]
    assert x["tensor"] == [2, 8] and len(x["data"]) == 16
    assert extra == {"dict": {"bias": {"tensor": [8], "dtype": "float32", "data": [0.0] * 8}}}
    assert "mode" not in data  # the factory's own mode is kept
    validate(data)
