"""Remedies of issue 22's remaining kinds, verified by torch end to end (``fix --verify``).

- per-key heads built lazily in other forms (a ``None`` lookup, ``except KeyError``,
  ``hasattr``/``setattr``): CL508's lazy layers in ``__init__``, accepted by torch;
- Python values picked by a tensor condition: a 0-dim tensor when they only reach tensor
  arithmetic, the eager-only guard when only a log line reads them;
- a fix rejected only because gradients differ (zero vs ``None``) becomes a proposal;
- a config remedy is written into the project's own ``train.py`` that calls ``torch.compile``
  when only the model file is fixed, and reported as lines to add when there is no such place.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix import fix_paths

from .conftest import ROOT

pytest.importorskip("torch")

pytestmark = pytest.mark.torch
CORPUS = ROOT / "benchmarks" / "fix_corpus"


def _fix(tmp_path: Path, name: str, select: tuple[str, ...] = ()) -> object:
    """Fix corpus model ``name`` in ``tmp_path`` with verification."""
    shutil.copy(CORPUS / f"{name}.py", tmp_path / f"{name}.py")
    spec = json.loads((CORPUS / f"{name}.py").read_text(encoding="utf-8").splitlines()[0][7:])
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    return fix_paths(
        [str(tmp_path / f"{name}.py")],
        Config(select=select, cache=False) if select else Config(cache=False),
        unsafe=True,
        spec=str(tmp_path / "spec.json"),
        verify=True,
        root=str(tmp_path),
    )


@pytest.mark.parametrize(
    "name", ["multitask_heads_get_none", "multitask_heads_keyerror", "multitask_heads_hasattr"]
)
def test_lazy_heads_in_other_forms_are_verified(tmp_path: Path, name: str) -> None:
    run = _fix(tmp_path, name, ("CL508",))
    assert run.verification is not None and run.verification.error is None  # type: ignore[attr-defined]
    checks = [c for c in run.verification.checks if c.rule == "CL508"]  # type: ignore[attr-defined]
    assert checks and checks[0].accepted, checks
    assert checks[0].breaks_after == 0 and checks[0].outputs == "match"
    assert "nn.LazyLinear" in (tmp_path / f"{name}.py").read_text(encoding="utf-8")


def test_python_number_reaching_tensor_arithmetic_becomes_a_tensor(tmp_path: Path) -> None:
    run = _fix(tmp_path, "rl_ppo_clip_active_coef", ("CL101",))
    checks = [c for c in run.verification.checks if c.rule == "CL101"]  # type: ignore[attr-defined]
    assert checks and checks[0].accepted, checks
    text = (tmp_path / "rl_ppo_clip_active_coef.py").read_text(encoding="utf-8")
    assert "n_clipped = torch.where(" in text


def test_status_string_read_only_by_a_log_runs_only_in_eager(tmp_path: Path) -> None:
    run = _fix(tmp_path, "train_status_string_log", ("CL101",))
    checks = [c for c in run.verification.checks if c.rule == "CL101"]  # type: ignore[attr-defined]
    assert checks and checks[0].accepted, checks
    text = (tmp_path / "train_status_string_log.py").read_text(encoding="utf-8")
    assert "if not torch.compiler.is_compiling():" in text


GRAD_GATE = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8) * 0.1)
        self.lin = nn.Linear(8, 8)
        self.thresh = 1e6

    def forward(self, x):
        if x.norm() > self.thresh:
            y = x @ self.w
        else:
            y = x * 2
        return self.lin(y).sum(-1)
"""


def test_a_fix_rejected_only_on_gradients_is_proposed(tmp_path: Path) -> None:
    """Branchless, ``self.w`` receives zero gradients where eager gave it none: the break is
    gone and the outputs match, so the fix is a proposal (with its patch), not a rejection."""
    (tmp_path / "model.py").write_text(GRAD_GATE, encoding="utf-8")
    spec = {"model": "model.py:Model", "inputs": [{"tensor": [4, 8]}], "mode": "train"}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    run = fix_paths(
        [str(tmp_path / "model.py")],
        Config(select=("CL101",), cache=False),
        unsafe=True,
        spec=str(tmp_path / "spec.json"),
        verify=True,
        root=str(tmp_path),
    )
    rec = next(r for r in run.records if r.rule == "CL101")
    assert rec.status == "proposed", rec
    assert "gradients differ" in rec.reason and "zero gradients" in rec.reason
    assert "+        y = torch.where(" in rec.patch
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == GRAD_GATE
    outs = [o for o in run.verification.outcomes if o.line == 13]  # type: ignore[union-attr]
    assert outs and outs[0].outcome == "proposed"


TRAIN = """\
import torch

from model import TokenKeeper


def main():
    model = TokenKeeper()
    step = torch.compile(model)
    for _ in range(3):
        step(torch.randn(2, 16, 8))


if __name__ == "__main__":
    main()
"""


def _config_project(tmp_path: Path, train: bool) -> object:
    pytest.importorskip("einops")  # the model splits with einops.rearrange (not a dev dependency)
    shutil.copy(CORPUS / "token_merge_split_sizes.py", tmp_path / "model.py")
    if train:
        (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    spec = {"model": "model.py:TokenKeeper", "inputs": [{"tensor": [2, 16, 8], "init": "randn"}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    return fix_paths(
        [str(tmp_path / "model.py")],
        Config(cache=False),
        unsafe=True,
        spec=str(tmp_path / "spec.json"),
        verify=True,
        root=str(tmp_path),
    )


def test_config_remedy_is_written_in_the_projects_train_script(tmp_path: Path) -> None:
    """Only the model file is fixed; the project's train.py calls torch.compile: the
    verified settings go there (before the call), and the outcome says so."""
    run = _config_project(tmp_path, train=True)
    ver = run.verification  # type: ignore[attr-defined]
    ok = [c for c in ver.configs if c.accepted]
    assert ok, ver.configs
    assert all(Path(c.written.rsplit(":", 1)[0]).name == "train.py" for c in ok), ok
    text = (tmp_path / "train.py").read_text(encoding="utf-8")
    for c in ok:
        for ln in c.lines:
            assert f"    {ln}\n" in text
    assert text.index(ok[0].lines[0]) < text.index("torch.compile(model)")
    fixed = [o for o in ver.outcomes if o.outcome == "fixed" and o.by.startswith("config:")]
    assert fixed and all("train.py:" in o.by and "written at" in o.by for o in fixed)


def test_config_remedy_without_a_place_names_the_lines_to_add(tmp_path: Path) -> None:
    run = _config_project(tmp_path, train=False)
    ver = run.verification  # type: ignore[attr-defined]
    ok = [c for c in ver.configs if c.accepted]
    assert ok and not any(c.written for c in ok)
    prop = [o for o in ver.outcomes if o.outcome == "proposed" and o.by.startswith("config:")]
    assert prop
    for o in prop:
        assert all(f"+{ln}\n" in o.patch for ln in o.config)
