"""Control flow on tensor values in real code (issue 22, branch fix27b): the forms of the
vendored dev halves (diffusers' Euler scheduler, kornia's MixUp) that the codemods now accept.

- a scheduler's step index read with ``nonzero(...).item()`` and used only to index tensors
  (:mod:`compilelint.fix.codemods.step_index`): kept a 0-d tensor, the ``pos``-th match counted
  with ``cumsum``, the index reads ``T[torch.as_tensor(i, device=T.device).reshape(1)]``;
- an early ``if c: return a`` followed by statements that only bind names and the other
  ``return b`` (CL101): ``return torch.where(c, a, b)`` at their end;
- a chained comparison on a tensor choosing Python numbers (``gamma = min(...) if s_tmin <=
  sigma <= s_tmax else 0.0``, CL101): ``torch.where(torch.logical_and(...), min(...), 0.0)``.

Each VALID case is checked as text and against torch (the original breaks; the fixed model
compiles with ``fullgraph=True`` and gives the original's outputs and gradients, compiled and
uncompiled); each INVALID case for what stays and why.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_text, load_module, load_pair
from .torch_checks import assert_same_as_original

HEAD = textwrap.dedent(
    """\
    import torch
    from torch import nn


    """
)

# diffusers 0.42.1 EulerDiscreteScheduler: index_for_timestep, _init_step_index, step
SCHEDULER = HEAD + textwrap.dedent(
    """\
    class EulerScheduler:
        def __init__(self, num_inference_steps=6):
            self.timesteps = torch.linspace(999.0, 0.0, num_inference_steps)
            self.sigmas = torch.cat([torch.linspace(14.6, 0.03, num_inference_steps), torch.zeros(1)])
            self._step_index = None
            self._begin_index = None

        @property
        def step_index(self):
            return self._step_index

        @property
        def begin_index(self):
            return self._begin_index

        def index_for_timestep(self, timestep, schedule_timesteps=None):
            if schedule_timesteps is None:
                schedule_timesteps = self.timesteps
            indices = (schedule_timesteps == timestep).nonzero()
            pos = 1 if len(indices) > 1 else 0
            return indices[pos].item()

        def _init_step_index(self, timestep):
            if self.begin_index is None:
                self._step_index = self.index_for_timestep(timestep)
            else:
                self._step_index = self._begin_index

        def step(self, model_output, timestep, sample):
            if self.step_index is None:
                self._init_step_index(timestep)
            sigma = self.sigmas[self.step_index]
            pred_original_sample = sample - sigma * model_output
            derivative = (sample - pred_original_sample) / sigma
            dt = self.sigmas[self.step_index + 1] - sigma
            prev_sample = sample + derivative * dt
            self._step_index += 1
            return prev_sample


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.denoiser = nn.Linear(4, 4)
            self.scheduler = EulerScheduler()

        def forward(self, latents, t):
            return self.scheduler.step(self.denoiser(latents), t, latents)
    """
)

# kornia 0.9.0 MixAugmentationBaseV2.transform_class: fast paths before the general where
MIXUP = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 3)

        def apply_transform_class(self, input, lam):
            return self.net(input) * lam[:, None]

        def apply_non_transform_class(self, input, lam):
            return self.net(input)

        def transform_class(self, input, batch_prob, lam):
            to_apply = torch.atleast_1d(batch_prob > 0.5)
            if sum(to_apply) == len(to_apply):
                return self.apply_transform_class(input, lam)
            if sum(to_apply) == 0:
                return self.apply_non_transform_class(input, lam)
            applied = self.apply_transform_class(input, lam)
            non_applied = self.apply_non_transform_class(input, lam)
            return torch.where(to_apply.view(-1, 1), applied, non_applied)

        def forward(self, x, batch_prob, lam):
            return self.transform_class(x, batch_prob, lam)
    """
)

# diffusers' Euler step: s_churn's gamma chosen by a chained comparison on the 0-d sigma
CHURN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 4)
            self.sigmas = torch.linspace(2.0, 0.0, 11)

        def forward(self, x, idx, s_churn=0.5, s_tmin=0.1, s_tmax=float("inf")):
            sigma = self.sigmas[idx]
            gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if s_tmin <= sigma <= s_tmax else 0.0
            sigma_hat = sigma * (gamma + 1)
            return self.net(x) * sigma_hat
    """
)


def _fix(tmp_path: Path, code: str, select: tuple[str, ...]) -> tuple[str, list[str]]:
    return fix_text(tmp_path, code, select)


# ---------------------------------------------------------------------------- VALID (text)
def test_a_schedulers_nonzero_step_index_stays_a_tensor(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, SCHEDULER, ("CL103",))
    assert "nonzero()" not in out and ".item()" not in out
    assert "matches = (schedule_timesteps == timestep).long()" in out
    assert "pos = torch.where(matches.sum() > 1, 1, 0)" in out
    assert "return (matches.cumsum(0) <= pos).sum()" in out
    assert "torch._assert_async(matches.sum() > pos" in out
    assert (
        "sigma = self.sigmas[torch.as_tensor(self.step_index, device=self.sigmas.device)"
        ".reshape(1)].squeeze(0)"
    ) in out
    assert "self.sigmas[torch.as_tensor(self.step_index + 1, device=" in out


def test_a_list_of_step_indices_read_as_an_index_is_stacked(tmp_path: Path) -> None:
    code = SCHEDULER.replace(
        "    def forward(self, latents, t):\n"
        "        return self.scheduler.step(self.denoiser(latents), t, latents)\n",
        "    def forward(self, latents, t):\n"
        "        return self.scheduler.add_noise(self.denoiser(latents), t)\n",
    ).replace(
        "    def _init_step_index(self, timestep):",
        "    def add_noise(self, samples, timesteps):\n"
        "        step_indices = [self.index_for_timestep(t) for t in timesteps]\n"
        "        sigma = self.sigmas[step_indices].flatten()\n"
        "        return samples * sigma[:, None]\n\n"
        "    def _init_step_index(self, timestep):",
    )
    out, _ = _fix(tmp_path, code, ("CL103",))
    assert "step_indices = torch.stack([self.index_for_timestep(t) for t in timesteps])" in out


def test_an_early_return_before_bindings_selects_at_the_end(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, MIXUP, ("CL101",))
    assert "if sum(to_apply)" not in out
    assert (
        "return torch.where(sum(to_apply) == len(to_apply), self.apply_transform_class(input, "
        "lam), torch.where(sum(to_apply) == 0, self.apply_non_transform_class(input, lam), "
        "torch.where(to_apply.view(-1, 1), applied, non_applied)))"
    ) in out


def test_a_chained_comparison_choosing_numbers_is_a_where(tmp_path: Path) -> None:
    out, _ = _fix(tmp_path, CHURN, ("CL101",))
    assert (
        "gamma = torch.where(torch.logical_and(s_tmin <= sigma, sigma <= s_tmax), "
        "min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1), 0.0)"
    ) in out


# ---------------------------------------------------------------------------- INVALID
def test_a_step_index_read_as_a_python_number_is_not_rewritten(tmp_path: Path) -> None:
    """``self.timesteps[self.step_index:]`` slices by the number: a 0-d tensor there is a
    data-dependent bound (and a different type for the caller)."""
    code = SCHEDULER.replace(
        "        prev_sample = sample + derivative * dt\n",
        "        prev_sample = sample + derivative * dt * len(self.timesteps[self.step_index:])\n",
    )
    out, reasons = _fix(tmp_path, code, ("CL103",))
    assert "indices[pos].item()" in out
    assert any("read at line" in r and "more than a tensor index" in r for r in reasons)


def test_a_step_index_returned_to_another_object_is_not_rewritten(tmp_path: Path) -> None:
    code = SCHEDULER.replace(
        "        return self.scheduler.step(self.denoiser(latents), t, latents)\n",
        "        i = self.scheduler.index_for_timestep(t)\n"
        "        return self.scheduler.step(self.denoiser(latents), t, latents) * i\n",
    )
    out, reasons = _fix(tmp_path, code, ("CL103",))
    assert "indices[pos].item()" in out
    assert any("called on another object" in r for r in reasons)


def test_a_binding_with_a_side_effect_after_the_early_return_stays(tmp_path: Path) -> None:
    code = MIXUP.replace(
        "        applied = self.apply_transform_class(input, lam)\n",
        "        applied = self.apply_transform_class(input, lam).add_(1.0)\n",
    )
    out, reasons = _fix(tmp_path, code, ("CL101",))
    assert "if sum(to_apply) == len(to_apply):" in out
    assert any("after the early return, `self.apply_transform_class" in r for r in reasons)


def test_a_name_the_early_return_reads_rebound_after_it_stays(tmp_path: Path) -> None:
    code = MIXUP.replace(
        "        applied = self.apply_transform_class(input, lam)\n",
        "        lam = lam * 0.5\n        applied = self.apply_transform_class(input, lam)\n",
    )
    out, reasons = _fix(tmp_path, code, ("CL101",))
    assert "if sum(to_apply) == len(to_apply):" in out
    assert any("`lam` is rebound after the early return" in r for r in reasons)


def test_a_chained_comparison_through_a_call_is_not_rewritten(tmp_path: Path) -> None:
    """The shared operand would run twice (``sigma.clamp(...)`` here is pure, but a call is
    not known to be)."""
    code = CHURN.replace("s_tmin <= sigma <= s_tmax", "s_tmin <= sigma.abs() <= s_tmax")
    out, reasons = _fix(tmp_path, code, ("CL101",))
    assert "torch.logical_and" not in out
    assert any("chained comparison" in r for r in reasons)


# ---------------------------------------------------------------------------- torch
def _mixup_inputs(torch: Any, prob: list[float]) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(len(prob))
    return (
        torch.randn(len(prob), 4, generator=g),
        torch.tensor(prob),
        torch.rand(len(prob), generator=g),
    )


@pytest.mark.torch
@pytest.mark.parametrize("prob", [[0.9, 0.2, 0.7, 0.8], [0.9, 0.6, 0.7, 0.8], [0.1, 0.2, 0.3, 0.4]])
def test_mixup_fast_paths_compile_and_compute_the_same(tmp_path: Path, prob: list[float]) -> None:
    """All applied, none applied and mixed: the general `where` equals each fast path."""
    torch = pytest.importorskip("torch")
    fixed, _ = _fix(tmp_path, MIXUP, ("CL101",))
    a, b = load_pair(tmp_path, MIXUP, fixed, "fix27b")
    inputs = _mixup_inputs(torch, prob)
    torch._dynamo.reset()
    assert torch._dynamo.explain(a.Model())(*inputs).graph_break_count > 0
    assert_same_as_original(a, b, inputs)


@pytest.mark.torch
@pytest.mark.parametrize("idx", [3, 10])
def test_churn_gamma_compiles_and_computes_the_same(tmp_path: Path, idx: int) -> None:
    torch = pytest.importorskip("torch")
    fixed, _ = _fix(tmp_path, CHURN, ("CL101",))
    a, b = load_pair(tmp_path, CHURN, fixed, "fix27b")
    inputs = (torch.randn(2, 4), idx)
    torch._dynamo.reset()
    assert torch._dynamo.explain(a.Model())(*inputs).graph_break_count > 0
    assert_same_as_original(a, b, inputs)


@pytest.mark.torch
@pytest.mark.parametrize("start", [0, 2])
def test_scheduler_steps_compile_whole_and_compute_the_same(tmp_path: Path, start: int) -> None:
    """Three steps of the sampling loop from timestep ``start``: the original breaks at
    ``nonzero``/``.item()``; the fixed scheduler compiles each step with ``fullgraph=True``
    and gives the same latents and gradients, step by step, as the original run eagerly."""
    torch = pytest.importorskip("torch")
    fixed, _ = _fix(tmp_path, SCHEDULER, ("CL103",))
    a, b = load_pair(tmp_path, SCHEDULER, fixed, "fix27b")
    torch.manual_seed(0)
    orig = a.Model()
    t0 = orig.scheduler.timesteps[start]
    x = torch.randn(2, 4)
    torch._dynamo.reset()
    assert torch._dynamo.explain(a.Model())(x, t0).graph_break_count > 0
    for compiled in (False, True):
        torch.manual_seed(0)
        want_model = a.Model()
        torch.manual_seed(0)
        got_model = b.Model()
        torch._dynamo.reset()
        run = torch.compile(got_model, backend="eager", fullgraph=True) if compiled else got_model
        for step in range(3):
            t = want_model.scheduler.timesteps[start + step]
            want = want_model(x, t)
            got = run(x, t)
            torch.testing.assert_close(got, want)
            want.sum().backward()
            got.sum().backward()
        for p, q in zip(want_model.parameters(), got_model.parameters()):
            torch.testing.assert_close(q.grad, p.grad)


def test_the_module_loader_is_used(tmp_path: Path) -> None:
    """The fixture texts import: a typo in one would fail every torch test above for the
    wrong reason."""
    pytest.importorskip("torch")
    for i, code in enumerate((SCHEDULER, MIXUP, CHURN)):
        path = tmp_path / f"m{i}.py"
        path.write_text(code, encoding="utf-8")
        assert hasattr(load_module(path, "fix27b"), "Model")


@pytest.mark.torch
def test_torch_cond_gives_the_branch_not_taken_zero_gradients() -> None:
    """What CL101's submodule proposal says of ``torch.cond`` (torch 2.13): the side not
    taken gets zero gradients, not ``None``, eager and compiled; a branch that mutates a buffer
    or sides of different shapes are not traced (``UncapturedHigherOrderOpError``)."""
    torch = pytest.importorskip("torch")
    from torch import nn

    class Two(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            return torch.cond(x.sum() > 0, lambda x: self.a(x), lambda x: self.b(x) * 2, (x,))

    x = torch.ones(2, 4)
    for compiled in (False, True):
        torch.manual_seed(0)
        m = Two()
        torch._dynamo.reset()
        run = torch.compile(m, backend="eager", fullgraph=True) if compiled else m
        run(x).sum().backward()
        assert m.a.weight.grad is not None and m.a.weight.grad.abs().sum() > 0
        assert m.b.weight.grad is not None and m.b.weight.grad.abs().sum() == 0

    class Shapes(nn.Module):
        def forward(self, x: Any) -> Any:
            return torch.cond(x.sum() > 0, lambda x: x[:1], lambda x: x, (x,))

    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"(?i)higher.?order|cond"):
        torch.compile(Shapes(), backend="eager", fullgraph=True)(x)


def test_an_early_bare_return_before_an_initialisation_says_why(tmp_path: Path) -> None:
    """vector-quantize's ``init_embed_``: ``if self.initted: return`` skips code, not a value."""
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("initted", torch.Tensor([False]))
                self.register_buffer("embed", torch.zeros(4, 3))

            def init_embed_(self, data):
                if self.initted:
                    return
                self.embed.data.copy_(data[:4])
                self.initted.data.copy_(torch.Tensor([True]))

            def forward(self, x):
                self.init_embed_(x)
                return x @ self.embed.t()
        """
    )
    out, reasons = _fix(tmp_path, code, ("CL101",))
    assert "if self.initted:" in out
    assert any("the `if` returns nothing" in r for r in reasons)
