"""The shared analyses: tensor inference and compiled-region reachability."""

from __future__ import annotations

import textwrap
from pathlib import Path

from compilelint.api import check
from compilelint.config import Config


def lint(
    tmp_path: Path, files: dict[str, str], select: tuple[str, ...] = ("ALL",)
) -> list[tuple[str, int, str]]:
    for name, src in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(src), encoding="utf-8")
    rep = check([str(tmp_path)], Config(select=select, cache=False, root=str(tmp_path)))
    return [(Path(f.path).name, f.line, f.rule) for f in rep.findings]


def test_not_tensor_dependent_branches(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x, mask=None, flag=False, n: int = 2):
            if x.shape[0] > 1:
                x = x + 1
            if self.training:
                x = x * 2
            if isinstance(x, torch.Tensor) and mask is None:
                x = x - 1
            if x.dim() == 3 or x.size(0) == 2 or len(x) > 3:
                x = x / 2
            if flag or n > 1:
                x = x * 3
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101", "CL102")) == []


def test_tensor_dependent_forms(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x + 1
            while (x > 10).any():
                x = x / 2
            y = x if x.max() > 0 else -x
            b = bool(x.mean())
            i = int(x[0, 0])
            return y, b, i
    """
    got = lint(tmp_path, {"m.py": src}, ("CL101", "CL102"))
    assert got == [
        ("m.py", 7, "CL101"),
        ("m.py", 9, "CL101"),
        ("m.py", 11, "CL101"),
        ("m.py", 12, "CL102"),
        ("m.py", 13, "CL102"),
    ]


def test_flow_through_tuples_helpers_and_attributes(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    def stats(t):
        return t.mean(), t.std()

    def plain(v):
        return v + 1

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("thr", torch.zeros(()))
            self.limit = 3

        def forward(self, x):
            mu, sd = stats(x)
            if mu > sd:
                x = x - mu
            k = plain(self.limit)
            if k > 2:
                x = x * 2
            if self.thr > 0:
                x = x + 1
            return x
    """
    got = lint(tmp_path, {"m.py": src}, ("CL101",))
    assert got == [("m.py", 19, "CL101"), ("m.py", 24, "CL101")]


def test_untraced_code_is_not_reported(tmp_path: Path) -> None:
    src = """
    import torch

    def train(model, data):
        for x in data:
            loss = model(x).sum()
            if loss > 0:
                print(loss.item())

    class NotAModule:
        def forward(self, x):
            return x.sum().item()
    """
    assert lint(tmp_path, {"m.py": src}) == []


def test_compiled_functions_and_disable(tmp_path: Path) -> None:
    src = """
    import torch

    @torch.compile
    def a(x):
        return x.sum().item()

    def b(x):
        return x.max().item()

    def c(x):
        return x.min().item()

    fast_b = torch.compile(b)

    @torch.compiler.disable
    def d(x):
        return x.mean().item()
    """
    got = lint(tmp_path, {"m.py": src}, ("CL103",))
    assert got == [("m.py", 6, "CL103"), ("m.py", 9, "CL103")]


def test_is_compiling_guard(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            if not torch.compiler.is_compiling():
                x = x * x.sum().item()
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL103",)) == []


def test_code_torch_compile_never_evaluates_is_not_traced(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn
    from torch.compiler import is_compiling

    def fast_path(x, n):
        if n <= 1 or x.numel() == 0 or is_compiling():
            return False
        return x.max().item() > 1

    class M(nn.Module):
        def forward(self, x):
            if not is_compiling() and not bool(x.any()):
                raise ValueError("empty")
            if x.sum().item() > 0 or is_compiling():
                x = x + 1
            if fast_path(x, 3):
                return x
            return x
    """
    got = lint(tmp_path, {"m.py": src}, ("CL102", "CL103"))
    # the rest of a block after `if ... or is_compiling(): return` and the right operand of
    # `not is_compiling() and ...` never run under torch.compile; a left operand still does
    assert [line for _, line, _ in got] == [15]


def test_cross_file_base_class_and_helpers(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import torch.nn as nn

            class Base(nn.Module):
                pass
        """,
        "pkg/ops.py": """
            import torch

            def squash(t):
                return t / t.norm().item()
        """,
        "pkg/net.py": """
            from .base import Base
            from pkg.ops import squash

            class Net(Base):
                def forward(self, x):
                    return squash(x)
        """,
    }
    assert lint(tmp_path, files, ("CL103",)) == [("ops.py", 5, "CL103")]


def test_super_forward_and_unknown_external_base(tmp_path: Path) -> None:
    src = """
    import torch
    from transformers import PreTrainedModel

    class Model(PreTrainedModel):
        def forward(self, input_ids):
            return self.helper(input_ids)

        def helper(self, ids):
            return ids.sum().item()

    class Child(Model):
        def forward(self, input_ids):
            return super().forward(input_ids)
    """
    assert lint(tmp_path, {"m.py": src}, ("CL103",)) == [("m.py", 10, "CL103")]


def test_loop_targets_follow_the_iterable(tmp_path: Path) -> None:
    """enumerate counts, range values, zip partners, dict keys are Python values; the
    elements of a tensor sequence stay tensors (checked against torch: `i == 0` on an
    enumerate count does not break, `c.sum() > 0` on a chunk does)."""
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            chunks = torch.chunk(x, 4, dim=0)
            out = []
            for i, c in enumerate(chunks):
                if i == 0:
                    out.append(c)
                if c.sum() > 0:
                    out.append(c)
            for a, j in zip(chunks, range(4)):
                if j == 1 or a.mean() > 0:
                    out.append(a)
            for k, v in {"a": x}.items():
                if k == "a":
                    out.append(v)
            return [t for n, t in enumerate(out) if n > 0]
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [
        ("m.py", 12, "CL101"),
        ("m.py", 15, "CL101"),
    ]


def test_string_keys_and_string_comparisons_are_not_tensor_values(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, cfg, cache, x):
            n = cfg["frames"]
            if n > 2:
                x = x * 2
            if cache[0] == "Rep":
                x = x + 1
            out = self.inner(x)
            if out["logits"].sum() > 0:
                x = x - 1
            return x

        def inner(self, x):
            return {"logits": x * 2}
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 13, "CL101")]


def test_size_dtype_and_device_parameters_are_not_tensors(tmp_path: Path) -> None:
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x, height, width, device, hidden_size):
            if height * width > hidden_size:
                x = x[:, :1]
            return x.to(str(device))
    """
    assert lint(tmp_path, {"m.py": src}) == []


def test_methods_that_are_not_tensor_methods_return_python_objects(tmp_path: Path) -> None:
    """`cache.get_seq_length()` on an object passed where a tensor could be is not a tensor;
    `x.sum()` is (both checked against torch: only the second branch breaks)."""
    src = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x, cache):
            n = cache.get_seq_length()
            if n == 0:
                x = x + 1
            if x.sum() > 0:
                x = x - 1
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL101",)) == [("m.py", 10, "CL101")]


def test_forward_replaced_by_a_dispatching_class_decorator(tmp_path: Path) -> None:
    """transformers' `@use_experts_implementation` swaps the experts' forward for
    `config._experts_implementation` (grouped_mm by default): its own loop is not traced."""
    src = """
    import torch
    from torch import nn
    from transformers.integrations import use_experts_implementation

    @use_experts_implementation
    class Experts(nn.Module):
        def forward(self, x, sel):
            hit = sel.nonzero()
            return x

    class Plain(nn.Module):
        def forward(self, x, sel):
            hit = sel.nonzero()
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL110",)) == [("m.py", 14, "CL110")]


def test_helpers_of_a_replaced_forward_are_not_reached(tmp_path: Path) -> None:
    """Reachability itself skips the replaced forward: what only it calls is not traced."""
    src = """
    import torch
    from torch import nn
    from transformers.integrations import use_experts_implementation

    @use_experts_implementation
    class Experts(nn.Module):
        def forward(self, x, sel):
            return self._loop(x, sel)

        def _loop(self, x, sel):
            hit = sel.nonzero()
            return x
    """
    assert lint(tmp_path, {"m.py": src}, ("CL110",)) == []
