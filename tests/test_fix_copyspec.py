"""Every form of a spec's ``model`` runs the fixed copy (``fix --verify``, ``bench --fix``).

Unit tests of :mod:`compilelint.fix.copyspec` (nothing imported, no torch), then each form end
to end with torch: a print in forward is fixed only if the verifying runs import the copy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix.copyspec import OutsideProject, locate, spec_for_copy

MODEL = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        print("y", y.shape)
        return torch.relu(y)
"""


def _spec(path: Path, model: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"model": model, "inputs": [{"tensor": [4, 8]}], "seed": 0}), encoding="utf-8"
    )
    return path


def _project(tmp_path: Path, form: str) -> tuple[Path, Path, Path]:
    """(root, model file, spec) for one form of spec."""
    root = tmp_path / "proj"
    if form == "module":
        model = root / "src" / "mypkg" / "models.py"
        model.parent.mkdir(parents=True)
        (model.parent / "__init__.py").write_text("", encoding="utf-8")
        model.write_text(MODEL, encoding="utf-8")
        return root, model, _spec(root / "configs" / "spec.json", "mypkg.models:Net")
    model = root / "models" / "net.py"
    model.parent.mkdir(parents=True)
    model.write_text(MODEL, encoding="utf-8")
    target = str(model) if form == "absolute" else "models/net.py"
    return root, model, _spec(root / "spec.json", f"{target}:Net")


@pytest.mark.parametrize("form", ["relative", "absolute", "module"])
def test_spec_points_at_the_copy(tmp_path: Path, form: str) -> None:
    root, model, spec = _project(tmp_path, form)
    copy = tmp_path / "copy"
    cs = spec_for_copy(str(spec), str(root), str(copy), str(tmp_path / "out.json"))
    data = json.loads(Path(cs.spec).read_text(encoding="utf-8"))
    if form == "module":
        assert data["model"] == "mypkg.models:Net"
        assert cs.pythonpath == (os.path.join(str(copy), "src"),)
    else:
        assert data["model"] == os.path.join(str(copy), "models", "net.py") + ":Net"
        assert cs.pythonpath == ()
    assert data["inputs"] == [{"tensor": [4, 8]}]


def test_relative_to_the_spec_folder(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "exp").mkdir(parents=True)
    (root / "exp" / "net.py").write_text(MODEL, encoding="utf-8")
    spec = _spec(root / "exp" / "spec.json", "net.py:Net")
    cs = spec_for_copy(str(spec), str(root), str(tmp_path / "c"), str(tmp_path / "o.json"))
    model = json.loads(Path(cs.spec).read_text(encoding="utf-8"))["model"]
    assert model == os.path.join(str(tmp_path / "c"), "exp", "net.py") + ":Net"


def test_module_found_through_the_bases_given(tmp_path: Path) -> None:
    root, _, spec = _project(tmp_path, "module")
    lib = root / "lib"
    (root / "src").rename(lib)
    assert locate(str(spec), str(root)).kind == "unknown"
    loc = locate(str(spec), str(root), bases=[str(lib)])
    assert loc.kind == "module" and loc.base == os.path.realpath(lib)


def test_file_outside_the_project_is_refused(tmp_path: Path) -> None:
    root, model, _ = _project(tmp_path, "absolute")
    other = tmp_path / "elsewhere"
    other.mkdir()
    spec = _spec(other / "spec.json", f"{model}:Net")
    with pytest.raises(OutsideProject, match="outside the project root"):
        spec_for_copy(str(spec), str(other), str(tmp_path / "c"), str(tmp_path / "o.json"))


def test_installed_module_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    spec = _spec(root / "spec.json", "json.decoder:JSONDecoder")
    with pytest.raises(OutsideProject, match=r"json\.decoder is imported from .*outside"):
        spec_for_copy(str(spec), str(root), str(tmp_path / "c"), str(tmp_path / "o.json"))


def test_unknown_model_is_left_for_the_run_to_report(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    spec = _spec(root / "spec.json", "no_such_pkg_xyz.models:Net")
    cs = spec_for_copy(str(spec), str(root), str(tmp_path / "c"), str(tmp_path / "o.json"))
    assert json.loads(Path(cs.spec).read_text(encoding="utf-8"))["model"].startswith("no_such")


# ---------------------------------------------------------------- end to end, with torch


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.parametrize("form", ["relative", "absolute", "module"])
def test_verify_runs_the_copy_for_every_form(
    tmp_path: Path, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    from compilelint.fix import fix_paths

    root, model, spec = _project(tmp_path, form)
    monkeypatch.chdir(root)
    run = fix_paths(
        [str(model)],
        Config(select=("CL201",), cache=False),
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(root),
    )
    assert run.verification is not None and run.verification.error is None
    (chk,) = run.verification.checks
    assert chk.accepted, chk
    assert chk.breaks_before >= 1 and chk.breaks_after == 0
    assert "is_compiling" in model.read_text(encoding="utf-8")


@pytest.mark.torch
@pytest.mark.slow
def test_fix_copy_with_a_module_spec(tmp_path: Path) -> None:
    """``bench --fix``'s path: the project is copied, then verified in copies of the copy."""
    pytest.importorskip("torch")
    from compilelint.fix import fix_copy

    root, model, spec = _project(tmp_path, "module")
    run = fix_copy(str(root), str(tmp_path / "dest"), ["src"], spec=str(spec), verify=True)
    assert run.verification is not None and run.verification.error is None, run.verification
    assert [r.status for r in run.records] == ["applied"]
    assert run.copy_spec is not None
    assert run.copy_spec.pythonpath == (os.path.join(os.path.realpath(tmp_path / "dest"), "src"),)
    assert "is_compiling" not in model.read_text(encoding="utf-8")  # the original is untouched


def test_verify_refuses_a_model_outside_the_project(tmp_path: Path) -> None:
    from compilelint.fix import fix_paths

    root, model, _ = _project(tmp_path, "absolute")
    outside = tmp_path / "other" / "net.py"
    outside.parent.mkdir()
    outside.write_text(MODEL, encoding="utf-8")
    spec = _spec(root / "spec.json", f"{outside}:Net")
    run = fix_paths(
        [str(model)],
        Config(select=("CL201",), cache=False),
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(root),
        write=False,
    )
    assert run.verification is not None
    assert run.verification.error is not None and "outside the project root" in (
        run.verification.error
    )
    assert [r.status for r in run.records] == ["rejected"]


def test_verifying_runs_call_the_model_at_least_min_calls(tmp_path: Path) -> None:
    root, _, spec = _project(tmp_path, "relative")
    cs = spec_for_copy(
        str(spec), str(root), str(tmp_path / "c"), str(tmp_path / "o.json"), min_calls=3
    )
    assert json.loads(Path(cs.spec).read_text(encoding="utf-8"))["calls"] == 3
    data = json.loads(spec.read_text(encoding="utf-8"))
    spec.write_text(json.dumps({**data, "calls": 5}), encoding="utf-8")
    cs = spec_for_copy(
        str(spec), str(root), str(tmp_path / "c"), str(tmp_path / "o.json"), min_calls=3
    )
    assert json.loads(Path(cs.spec).read_text(encoding="utf-8"))["calls"] == 5
