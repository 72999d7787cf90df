"""Numbers read from tensors that sit in a tuple, list or dict (issue 22, branch fixscal11):
the climb of CL102/CL103 (``cl103_tensor_item._held``, ``_from_container``, ``_container``)
follows a value through the display that holds it, to where it is read back: unpacked into
names (``lo, hi = a.item(), b.item()``), read by a literal key from a local container
(``stats["mean"]``, ``bounds[1]``), unpacked or indexed at the calls of a helper that returns
the display (``m, s = stats(h)``, ``moments(h)["mean"]``); there the value is followed as any
other. A container returned (or stored on ``self``) whole gives the caller a tensor: a
proposal that names the entry.

Each VALID case is rewritten (static, fast) and, marked ``torch``, checked against the
original on the installed torch: the original breaks, the fixed model is one graph without a
break (``explain`` first, :mod:`tests.torch_checks`), outputs, their dtype and parameter
gradients equal, compiled (``fullgraph=True``) and uncompiled, over three input scales. Each
INVALID case is refused with its reason.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import load_module
from .torch_checks import assert_no_graph_break

HEAD = "import json\n\nimport torch\nfrom torch import nn\n\n\n"
SELECT = ("CL102", "CL103")


def _model(body: str, helpers: str = "") -> str:
    return (
        HEAD
        + textwrap.dedent(helpers)
        + textwrap.dedent(
            """\
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)

                def forward(self, x):
            {body}
            """
        ).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    )


VALID: dict[str, tuple[str, str]] = {
    # a min-max normaliser: two reads unpacked from one tuple display
    "unpack_tuple": (
        _model(
            """\
            h = self.lin(x)
            lo, hi = h.min().item(), h.max().item()
            return (h - lo) / (hi - lo + 1e-6)
            """
        ),
        "lo, hi = h.min().detach(), h.max().detach()",
    ),
    # a list display of `int()` reads unpacked; one read meets `max` (a clamp)
    "unpack_list_int": (
        _model(
            """\
            h = self.lin(x)
            [n_pos, n_neg] = [int((h > 0).sum()), int((h <= 0).sum())]
            return h * n_pos / max(n_neg, 1)
            """
        ),
        "torch.clamp(n_neg, min=1)",
    ),
    # a dict of statistics read back by literal keys
    "dict_local": (
        _model(
            """\
            h = self.lin(x)
            stats = {"mean": h.mean().item(), "std": h.std().item()}
            return (h - stats["mean"]) / (stats["std"] + 1e-6)
            """
        ),
        'stats = {"mean": h.mean().detach(), "std": h.std().detach()}',
    ),
    # a list of bounds read by position, then bound to a name and used again
    "list_local_index": (
        _model(
            """\
            h = self.lin(x)
            bounds = [h.abs().max().item(), 0.5]
            peak = bounds[0]
            return h / (peak + bounds[1]) + h.sum() * bounds[0]
            """
        ),
        "bounds = [h.abs().max().detach(), 0.5]",
    ),
    # a tuple unpacked from a local name (`a, b = pair`)
    "unpack_local_name": (
        _model(
            """\
            h = self.lin(x)
            pair = (h.mean().item(), 2.0)
            m, k = pair
            return h * k - m
            """
        ),
        "pair = (h.mean().detach(), 2.0)",
    ),
    # a helper returning a tuple of two reads, unpacked at its call
    "helper_tuple": (
        _model(
            """\
            h = self.lin(x)
            m, s = moments(h)
            return (h - m) / (s + 1e-6)
            """,
            """\
            def moments(h):
                return h.mean().item(), h.std().item()


            """,
        ),
        "return h.mean().detach(), h.std().detach()",
    ),
    # a helper returning a dict, indexed at its call
    "helper_dict_key": (
        _model(
            """\
            h = self.lin(x)
            scale = summary(h)["peak"]
            return h / (scale + 1e-6)
            """,
            """\
            def summary(h):
                out = {"peak": h.abs().max().item(), "n": h.numel()}
                return out


            """,
        ),
        'out = {"peak": h.abs().max().detach(), "n": h.numel()}',
    ),
    # a dict nested in a dict, read back through both keys, and a `get` of the outer
    "nested_dict": (
        _model(
            """\
            h = self.lin(x)
            out = {"stats": {"m": h.mean().item(), "s": 2.0}, "tag": "a"}
            inner = out.get("stats")
            return (h - out["stats"]["m"]) * inner["s"] + inner["m"]
            """
        ),
        '"m": h.mean().detach()',
    ),
}

INVALID: dict[str, tuple[str, str]] = {
    # the container is changed after the value is put in it
    "container_changed": (
        _model(
            """\
            h = self.lin(x)
            stats = {"mean": h.mean().item()}
            stats["mean"] = 0.0
            return h - stats["mean"]
            """
        ),
        'the container holding the value is changed in `stats["mean"] = 0.0`',
    ),
    # the container is formatted (a string of a tensor differs from one of a number)
    "container_formatted": (
        _model(
            """\
            h = self.lin(x)
            stats = {"mean": h.mean().item()}
            record = json.dumps(stats)
            return h - stats["mean"], record
            """
        ),
        "`stats`, which holds the value, is used in `record = json.dumps(stats)`",
    ),
    # read by a key that is not a literal
    "computed_key": (
        _model(
            """\
            h = self.lin(x)
            vals = [h.mean().item(), h.std().item()]
            out = h
            for i in range(2):
                out = out + vals[i]
            return out
            """
        ),
        "read by the index `out = out + vals[i]`, not a literal key",
    ),
    # read from the end: the length is not followed
    "negative_position": (
        _model(
            """\
            h = self.lin(x)
            vals = (h.mean().item(), 2.0)
            return h * vals[-2]
            """
        ),
        "read from its end (`[-2]`)",
    ),
    # a starred target
    "starred_target": (
        _model(
            """\
            h = self.lin(x)
            m, *rest = (h.mean().item(), 2.0, 3.0)
            return h * m + len(rest)
            """
        ),
        "into a starred target or one of another length",
    ),
    # `**` in the dict display: a later key may override the value's
    "dict_spread": (
        _model(
            """\
            h = self.lin(x)
            base = {"m": 0.0}
            stats = {"m": h.mean().item(), **base}
            return h - stats["m"]
            """
        ),
        "whose entries are not all at literal positions or keys",
    ),
    # the inner dict is also passed on whole (formatted): a string of a tensor differs
    "nested_formatted": (
        _model(
            """\
            h = self.lin(x)
            out = {"stats": {"m": h.mean().item()}}
            tag = str(out["stats"])
            return h - out["stats"]["m"], tag
            """
        ),
        'the value is held in `out["stats"]`, which is used in `tag = str(out["stats"])`',
    ),
    # an unpacked read used as a size: shape, not arithmetic
    "unpacked_then_size": (
        _model(
            """\
            h = self.lin(x)
            n, m = int((h > 0).sum()), 2.0
            return h * m + torch.zeros(n).sum()
            """
        ),
        "`n` is also",
    ),
}


def _run(tmp_path: Path, code: str) -> tuple[str, list[str], list[Any]]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=SELECT, cache=False), unsafe=True)
    after = next((c.after.decode() for c in res.changes), code)
    return after, [r.reason for r in res.records if r.reason], list(res.records)


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_is_rewritten(tmp_path: Path, case: str) -> None:
    code, want = VALID[case]
    fixed, _, _ = _run(tmp_path, code)
    assert want in fixed, fixed
    assert ".item()" not in fixed and "int((" not in fixed, fixed


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    fixed, reasons, _ = _run(tmp_path, code)
    assert fixed == code, fixed
    assert any(why in r for r in reasons), reasons


PROPOSED: dict[str, tuple[str, str]] = {
    # metrics returned in a dict held by a local name
    "returned_dict": (
        _model(
            """\
            h = self.lin(x)
            loss = h.pow(2).mean()
            metrics = {"loss": loss.item()}
            return loss, metrics
            """
        ),
        "the value is returned inside `return loss, metrics` (at `[1]['loss']`)",
    ),
    # a tuple display returned directly beside the output
    "returned_tuple": (
        _model(
            """\
            h = self.lin(x)
            return h, (h.max().item(), 1)
            """
        ),
        "(at `[1][0]`)",
    ),
}


@pytest.mark.parametrize("case", sorted(PROPOSED))
def test_container_returned_is_a_proposal_naming_the_entry(tmp_path: Path, case: str) -> None:
    code, why = PROPOSED[case]
    fixed, reasons, _ = _run(tmp_path, code)
    assert fixed == code, fixed  # not applied: the caller would see a tensor
    assert any(
        why in r and "read it with `.item()` after the compiled call" in r for r in reasons
    ), reasons


def _breaks(torch: Any, model: Any, x: Any) -> bool:
    torch._dynamo.reset()
    ex = torch._dynamo.explain(model)(x)
    torch._dynamo.reset()
    return ex.graph_break_count > 0 or ex.graph_count != 1 or bool(ex.break_reasons)


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = VALID[case][0]
    fixed, _, _ = _run(tmp_path, code)
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "fs11"), load_module(tmp_path / "b.py", "fs11")
    torch.manual_seed(0)
    assert _breaks(torch, a.Model(), torch.randn(4, 8))  # the original breaks

    def run(mod: Any, compiled: bool, x: Any) -> tuple[Any, list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        if compiled:
            fn = torch.compile(model, backend="eager", fullgraph=True)
            assert_no_graph_break(model, (x,))
        else:
            fn = model
        torch._dynamo.reset()
        out = fn(x)
        out.float().sum().backward()
        return out.detach(), [p.grad for p in model.parameters()]

    for seed, shift in ((1, -1.0), (2, 0.0), (3, 0.6)):
        torch.manual_seed(100 + seed)
        x = torch.randn(4, 8) * 0.3 + shift
        want = run(a, False, x)
        for compiled in (False, True):
            got = run(b, compiled, x)
            torch.testing.assert_close(got[0], want[0])
            assert got[0].dtype == want[0].dtype
            torch.testing.assert_close(got[1], want[1])


TOLIST_RETURNED: dict[str, tuple[str, str]] = {
    # the list beside the output in a returned tuple
    "tuple": (
        _model(
            """\
            h = self.lin(x)
            return h, (h > 0).sum(1).tolist()
            """
        ),
        "return h, (h > 0).sum(1).detach()",
    ),
    # through a local name into a returned dict
    "dict_by_name": (
        _model(
            """\
            h = self.lin(x)
            lengths = (h > 0).sum(1).tolist()
            return h, {"lengths": lengths}
            """
        ),
        "lengths = (h > 0).sum(1).detach()",
    ),
}

TOLIST_KEPT: dict[str, tuple[str, str]] = {
    # the list is also read by model code: returning the tensor would not remove the read
    "also_read": (
        _model(
            """\
            h = self.lin(x)
            lengths = (h > 0).sum(1).tolist()
            return h * len(lengths), lengths
            """
        ),
        "flows into",
    ),
    # a helper returns the list to `forward`, which uses it as a list
    "helper": (
        _model(
            """\
            h = self.lin(x)
            return h, counts(h)
            """,
            """\
            def counts(h):
                return (h > 0).sum(1).tolist()


            """,
        ),
        "leaves the function",
    ),
}


def _run105(tmp_path: Path, code: str) -> tuple[str, list[Any]]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL105",), cache=False), unsafe=True)
    after = next((c.after.decode() for c in res.changes), code)
    return after, list(res.records)


@pytest.mark.parametrize("case", sorted(TOLIST_RETURNED))
def test_a_list_returned_by_forward_is_a_proposal_to_return_the_tensor(
    tmp_path: Path, case: str
) -> None:
    code, want = TOLIST_RETURNED[case]
    fixed, records = _run105(tmp_path, code)
    assert fixed == code  # never applied: the caller would get a tensor for its list
    props = [r for r in records if r.status == "proposed"]
    assert props, records
    assert "call `.tolist()` on it after the compiled call" in props[0].title
    assert want in (props[0].patch or ""), props[0].patch


@pytest.mark.parametrize("case", sorted(TOLIST_KEPT))
def test_a_list_used_otherwise_gets_no_proposal(tmp_path: Path, case: str) -> None:
    code, why = TOLIST_KEPT[case]
    fixed, records = _run105(tmp_path, code)
    assert fixed == code
    assert not [r for r in records if r.status == "proposed"], records
    assert any(why in (r.reason or "") for r in records), [r.reason for r in records]


@pytest.mark.torch
def test_a_returned_list_breaks_and_the_detached_tensor_does_not() -> None:
    """The proposal's premise on torch: a ``.tolist()`` returned from the compiled region is
    a graph break, the detached tensor returned is one graph, and ``.tolist()`` of it after
    the call is the original list."""
    torch = pytest.importorskip("torch")

    def listed(h: Any) -> Any:
        return h * 2, (h > 0).sum(1).tolist()

    def tensor(h: Any) -> Any:
        return h * 2, (h > 0).sum(1).detach()

    h = torch.randn(4, 8)
    torch._dynamo.reset()
    ex = torch._dynamo.explain(listed)(h)
    # torch 2.13 may count 0 breaks and still list the reason ("Data-dependent ...")
    assert ex.graph_break_count >= 1 or ex.break_reasons
    torch._dynamo.reset()
    assert_no_graph_break(tensor, (h,))
    torch._dynamo.reset()
    got = torch.compile(tensor, backend="eager", fullgraph=True)(h)[1].tolist()
    assert got == listed(h)[1]
    torch._dynamo.reset()
