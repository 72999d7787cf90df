"""``dynamic=True`` is offered for recompiles on a Python number argument (guard ``step == 3``),
not only for input sizes (remedies.dynamic_recompile). VALID: the setting removes the
recompile of an int index and a float scale (checked against torch); INVALID: a number that a
``range()`` needs as a constant still recompiles with it, and a value a graph break produced
(``___stack0``) is not offered the setting."""

from __future__ import annotations

import pytest

from compilelint.remedies import dynamic_recompile


@pytest.mark.parametrize(
    "guard",
    ["timestep == 9", "L['temperature'] == 0.7", "guidance_scale == 7.5", "step == -1"],
)
def test_a_number_argument_guard_is_offered_dynamic(guard: str) -> None:
    assert dynamic_recompile({"input": None, "guard": guard})


@pytest.mark.parametrize(
    "guard", ["___stack0 == 3", "len(L['self'].cache) == 2", "x.size()[1] == 8", "mode == 'a'"]
)
def test_other_guards_are_not(guard: str) -> None:
    assert not dynamic_recompile({"input": None, "guard": guard})


def test_a_size_recompile_still_is() -> None:
    assert dynamic_recompile({"input": "x", "guard": "tensor 'x' size mismatch at index 1"})


def _frames(fn, calls, dynamic):  # type: ignore[no-untyped-def]
    import torch
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    cnt = CompileCounter()
    run = torch.compile(fn, backend=cnt, dynamic=dynamic)
    outs = [run(*a) for a in calls]
    torch._dynamo.reset()
    return cnt.frame_count, outs


@pytest.mark.torch
def test_valid_dynamic_removes_number_argument_recompiles() -> None:
    import torch

    table = torch.linspace(0.1, 1.0, 10)

    def step(x, t, scale):  # a scheduler index and a guidance scale from the sampling loop
        return x * table[t] + scale * x.sin()

    x = torch.randn(4, 8)
    calls = [(x, 9, 7.5), (x, 8, 5.0), (x, 7, 3.0), (x, 6, 1.0)]
    before, out_b = _frames(step, calls, None)
    after, out_a = _frames(step, calls, True)
    assert before > 1 and after == 1, (before, after)
    for a, b, c in zip(out_b, out_a, calls, strict=True):
        torch.testing.assert_close(a, step(*c))
        torch.testing.assert_close(b, step(*c))


@pytest.mark.torch
def test_invalid_range_bound_still_recompiles_with_dynamic() -> None:
    import torch

    def euler(x, n):
        for _ in range(n):
            x = x + 0.1 * x.tanh()
        return x

    x = torch.randn(3, 6)
    after, _ = _frames(euler, [(x, 4), (x, 6), (x, 3)], True)
    assert after > 1
