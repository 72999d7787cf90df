"""How the dynamic stage builds the model: factory inputs follow the spec's device and dtype,
the factory's or instance's own mode is kept when the spec gives none (issue 14, items 1-2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compilelint.dynamic.spec import mode_text, validate

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "dynamic"


def _factory():  # type: ignore[no-untyped-def]
    from compilelint.dynamic.runner import import_target

    return import_target("train_factory.py:make", str(ROOT), str(FIX))


@pytest.mark.torch
def test_factory_inputs_move_to_the_spec_device_and_dtype_nested() -> None:
    torch = pytest.importorskip("torch")
    from compilelint.dynamic.runner import prepare

    spec = validate({"model": "train_factory.py:make"})
    prep = prepare(torch, _factory(), spec, "meta", dtype=torch.float64)
    x, extra = prep.args
    assert x.device.type == "meta" and x.dtype == torch.float64
    assert extra["bias"].device.type == "meta"
    assert next(prep.model.parameters()).device.type == "meta"
    assert prep.inputs_moved == (
        "moved 2 factory input tensors (cpu -> meta, float32 -> float64) to match the spec"
    )
    same = prepare(torch, _factory(), spec, "cpu")
    assert same.inputs_moved is None  # nothing to move: nothing said


@pytest.mark.torch
def test_mode_is_the_factorys_unless_the_spec_gives_one() -> None:
    torch = pytest.importorskip("torch")
    from compilelint.dynamic.runner import prepare

    kept = prepare(torch, _factory(), validate({"model": "train_factory.py:make"}), "cpu")
    assert (kept.mode, kept.mode_source, kept.model.training) == ("train", "factory", True)
    spec_eval = validate({"model": "train_factory.py:make", "mode": "eval"})
    forced = prepare(torch, _factory(), spec_eval, "cpu")
    assert (forced.mode, forced.mode_source, forced.model.training) == ("eval", "spec", False)
    instance = _factory()()[0].eval()
    inst = prepare(torch, instance, validate({"model": "x.py:m"}), "cpu")
    assert (inst.mode, inst.mode_source) == ("eval", "instance")
    cls = type(instance)
    made = prepare(torch, cls, validate({"model": "x.py:Block"}), "cpu")
    assert (made.mode, made.mode_source, made.model.training) == ("eval", "default", False)


@pytest.mark.torch
def test_training_only_break_is_observed_under_the_factorys_mode() -> None:
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    res = run_dynamic(str(FIX / "train_factory.json"), cwd=str(ROOT), timeout=300)
    assert res.ok, res.error
    assert (res.block["mode"], res.block["mode_source"]) == ("train", "factory")
    lines = {(os.path.basename(b.path or ""), b.line) for b in res.breaks}
    assert ("train_factory.py", 16) in lines


def test_spec_mode_is_optional_and_init_spec_leaves_it_out_for_factories() -> None:
    from compilelint.dynamic.spec import init_spec

    assert validate({"model": "m.py:f"}).mode is None
    assert validate({"model": "m.py:f", "mode": "train"}).mode == "train"
    assert "mode" not in init_spec(f"{FIX}/train_factory.py:make")
    assert init_spec(f"{FIX}/train_factory.py:Block")["mode"] == "eval"
    assert mode_text("train", "factory") == "train mode as the factory returned it"
