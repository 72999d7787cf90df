"""Spec validation (one-line errors naming the JSON path), the JSON Schema, and `spec init`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.dynamic.cli import spec as spec_group
from compilelint.dynamic.spec import SpecError, init_spec, load_spec, schema_path, validate

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_SPECS = sorted((ROOT / "fixtures" / "dynamic").rglob("*.json"))
FIXTURE_SPECS = [p for p in FIXTURE_SPECS if "recorded" not in p.parts]
BASE = {"model": "m.py:Net", "inputs": [{"tensor": [2, 8]}]}


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        (
            {"inputs": [{"tensor": [2]}, {"tensor": [2], "dtype": "flaot32"}]},
            'inputs[1].dtype: unknown dtype "flaot32"; expected one of float32, float64',
        ),
        ({"model": "m.py"}, 'model: expected "path/to/file.py:Name"'),
        ({"inputs": [{"tensor": [2, -1]}]}, "inputs[0].tensor[1]: expected a non-negative integer"),
        (
            {"inputs": [{"tensor": [2], "dtype": "int64", "init": "randint"}]},
            "inputs[0].high: randint needs",
        ),
        ({"mode": "training"}, 'mode: unknown mode "training"; expected one of eval, train'),
        ({"device": "tpu"}, 'device: unknown device "tpu"'),
        (
            {"compile": {"fullgrpah": True}},
            'compile.fullgrpah: unknown key "fullgrpah"; did you mean "fullgraph"?',
        ),
        ({"variants": [{"name": "b4"}]}, 'variants[0]: a variant needs "inputs" and/or "kwargs"'),
        (
            {"variants": [{"inputs": [{"tensor": [1], "dtype": "f"}]}]},
            'variants[0].inputs[0].dtype: unknown dtype "f"',
        ),
        ({"kwargs": {"mask": {"shape": [2]}}}, "kwargs.mask: expected a tagged object"),
        ({"dynamic": [{"input": 3, "dims": [0]}]}, "dynamic[0].input: no positional input 3"),
        (
            {"config": {"capture_scalar_outputs": {"a": 1}}},
            "config.capture_scalar_outputs: expected a JSON scalar",
        ),
        ({"inputs": {"x": 1}}, "inputs: expected an array of positional values, got object"),
    ],
)
def test_bad_spec_gives_one_line_naming_the_path(patch: dict, expected: str) -> None:
    with pytest.raises(SpecError) as err:
        validate({**BASE, **patch})
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(expected), msg


def test_missing_model() -> None:
    with pytest.raises(SpecError, match=r"^model: missing"):
        validate({"inputs": []})


def test_invalid_json_names_line(tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text('{"model": "m.py:Net",\n "inputs": [}')
    with pytest.raises(SpecError, match=r"s.json:2:\d+: invalid JSON"):
        load_spec(str(p))


def test_dtype_aliases_normalised() -> None:
    s = validate({**BASE, "inputs": [{"tensor": [2], "dtype": "torch.long", "high": 10}]})
    assert s.inputs[0]["dtype"] == "int64"
    assert s.inputs[0]["init"] == "randint"


@pytest.mark.parametrize("path", FIXTURE_SPECS, ids=lambda p: p.stem)
def test_fixture_specs_valid_and_match_schema(path: Path) -> None:
    load_spec(str(path))
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(Path(schema_path()).read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))


def test_schema_is_a_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(json.loads(Path(schema_path()).read_text()))


def test_init_spec_from_signature_without_importing(tmp_path: Path) -> None:
    src = tmp_path / "model.py"
    src.write_text(
        "import does_not_exist\n"
        "class Net(does_not_exist.Module):\n"
        "    def __init__(self, vocab: int, dim: int = 8):\n"
        "        pass\n"
        "    def forward(self, input_ids, attention_mask, x: 'torch.Tensor', scale: float,\n"
        "                flag: bool = False, *, temperature: float):\n"
        "        pass\n"
    )
    s = init_spec(f"{src}:Net")
    assert s["init"] == {"args": [], "kwargs": {"vocab": 1}}
    ids, mask, x, scale = s["inputs"]
    assert ids["dtype"] == "int64" and ids["init"] == "randint"
    assert mask["dtype"] == "bool"
    assert x == {"tensor": [2, 16], "dtype": "float32"}
    assert scale == 1.0
    assert s["kwargs"] == {"temperature": 1.0}
    validate(s)


def test_cli_spec_validate_and_init(tmp_path: Path) -> None:
    runner = CliRunner()
    good = ROOT / "fixtures" / "dynamic" / "tensor_if.json"
    res = runner.invoke(spec_group, ["validate", str(good)])
    assert res.exit_code == 0 and "ok" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**BASE, "inputs": [{"tensor": [2], "dtype": "flaot32"}]}))
    res = runner.invoke(spec_group, ["validate", str(bad)])
    assert res.exit_code == 2
    assert 'inputs[0].dtype: unknown dtype "flaot32"' in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(
        spec_group, ["init", str(ROOT / "fixtures" / "dynamic" / "tensor_if.py") + ":Net"]
    )
    assert res.exit_code == 0
    assert json.loads(res.output)["inputs"][0]["tensor"] == [2, 16]
