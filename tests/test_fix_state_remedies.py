"""Recompiles from Python state (issue 22, branch fixstate): which remedy a recompile record
gets, and library calls whose arguments call a module too.

- an int attribute of a module guarded per value (``self.pos == 0``, torch's hint naming
  ``allow_unspec_int_on_nn_module``) -> the ``allow_unspec_int_on_nn_module`` config remedy
  (its VALID/INVALID pair is checked against torch in ``tests/test_remedies_torch.py``);
- a string or Enum deciding a path (``pooling == 'cls'``) -> no setting, the per-mode recipe;
- a Python number argument (``step == 3``) -> ``dynamic=True`` as before.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes
from compilelint.remedies import (
    int_attr_recompile,
    recompile_configs,
    string_mode_recompile,
)


@pytest.mark.parametrize(
    "guard",
    ["self.pos == 0", "self.cache_len == 3", "L['self']._modules['attn'].offset == 2"],
)
def test_int_attribute_guards_get_the_unspec_int_setting(guard: str) -> None:
    rec: dict[str, object] = {"guard": guard, "input": None}
    assert int_attr_recompile(rec)
    assert [c.name for c in recompile_configs(rec)] == ["allow_unspec_int_on_nn_module"]
    assert string_mode_recompile(rec) is None


def test_torchs_hint_alone_names_the_setting() -> None:
    rec: dict[str, object] = {
        "guard": "___check_obj_id(x)",
        "hint": "use allow_unspec_int_on_nn_module = True",
    }
    assert int_attr_recompile(rec)


@pytest.mark.parametrize(
    ("guard", "what"),
    [("pooling == 'cls'", "pooling"), ("L['mode'] == 'denorm'", "L['mode']")],
)
def test_string_modes_get_no_setting_but_their_recipe(guard: str, what: str) -> None:
    rec: dict[str, object] = {"guard": guard, "input": None}
    assert string_mode_recompile(rec) == what
    assert recompile_configs(rec) == []


@pytest.mark.parametrize("guard", ["step == 3", "L['temperature'] == 0.7"])
def test_number_arguments_keep_the_dynamic_remedy(guard: str) -> None:
    rec: dict[str, object] = {"guard": guard, "input": None}
    assert [c.name for c in recompile_configs(rec)] == ["dynamic"]
    assert not int_attr_recompile(rec) and string_mode_recompile(rec) is None


# VALID: a library call whose argument calls another library module on self (gpytorch's
# `self.likelihood(self.gp(x))`): the whole expression runs eagerly
NESTED = textwrap.dedent(
    """\
    import gpytorch
    import torch
    from torch import nn


    class ExactGPModel(gpytorch.models.ExactGP):
        def __init__(self, train_x, train_y, likelihood):
            super().__init__(train_x, train_y, likelihood)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.RBFKernel()

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(
                self.mean_module(x), self.covar_module(x)
            )


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            train_x = torch.linspace(0, 1, 10)[:, None]
            self.likelihood = gpytorch.likelihoods.GaussianLikelihood()
            self.gp = ExactGPModel(train_x, train_x[:, 0].sin(), self.likelihood)
            self.gp.eval()
            self.likelihood.eval()

        def forward(self, x):
            pred = self.likelihood(self.gp(x))
            return pred.mean
    """
)
# INVALID for the lambda form: the argument's module is the project's own (`self.net`): only
# the metric runs eagerly, the network stays compiled
OWN = textwrap.dedent(
    """\
    import torch
    from torch import nn
    from torchmetrics.functional.classification import binary_auroc


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 1)

        def forward(self, x, target):
            return binary_auroc(self.net(x).squeeze(-1).sigmoid(), target)
    """
)


def _fixed(tmp_path: Path, code: str) -> str:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(cache=False), unsafe=True)
    return next((c.after.decode() for c in res.changes), code)


def test_a_library_module_in_the_arguments_goes_into_the_lambda(tmp_path: Path) -> None:
    pytest.importorskip("gpytorch")
    out = _fixed(tmp_path, NESTED)
    assert "pred = _run_eager(lambda: self.likelihood(self.gp(x)))" in out, out


def test_the_projects_own_module_stays_compiled(tmp_path: Path) -> None:
    pytest.importorskip("torchmetrics")
    out = _fixed(tmp_path, OWN)
    assert "return _run_eager(binary_auroc, self.net(x).squeeze(-1).sigmoid(), target)" in out, out
