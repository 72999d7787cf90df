"""Fixes checked against torch itself, on the installed torch.

For every fixable rule whose pattern torch can observe, the ``Model`` of
``fixtures/fix/CLnnn_before.py`` must misbehave under ``torch.compile`` (break, or recompile)
and the ``Model`` of ``CLnnn_after.py`` must not, while computing the same outputs on the same
inputs and weights. Then ``fix --verify`` end to end: the bundled demo goes from its observed
breaks to none with matching outputs, and a fix that changes the outputs is not applied while
a good one in the same file is.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from compilelint.catalog import load_catalog
from compilelint.cli import main
from compilelint.config import Config
from compilelint.fix import fix_paths

from .conftest import ROOT
from .fix_modules import load_module

torch = pytest.importorskip("torch")

from .torch_oracle import observe  # noqa: E402

pytestmark = pytest.mark.torch
FIXDIR = ROOT / "fixtures" / "fix"
CATALOG = load_catalog()
# rules whose codemod only proposes a patch (never applied): checked on the patch itself
PROPOSED = {"CL113"}
OBSERVABLE = sorted(
    c
    for c, r in CATALOG.rules.items()
    if r.fix != "none" and r.verify in ("breaks", "recompiles") and c not in PROPOSED
)
INPUTS = {
    "CL501": "# inputs: (torch.randn(4, 8),)\n# variants: [(torch.randn(4, 8),), (torch.randn(4, 8),)]\n",
    "CL502": "# inputs: (torch.randn(4, 2),)\n",  # a PINN over (x, t)
}
# rules whose fixture's forward cannot run under this file's generic harness (a model named
# `Model` called on (4, 8) inputs under `torch.no_grad()`): CL502's forward takes gradients
# (`autograd.grad` raises under `no_grad()`, in the original too); its outputs and gradients are
# compared in tests/test_fix_fixflow10.py
OWN_HARNESS = {"CL502"}
# rules whose fix removes the break at the caller while the callee's own break stays (CL118: a
# generator unpacked into a call that breaks inside): the fixed model breaks less, not never
CALLEE_BREAKS = {"CL118"}
DEFAULT_INPUTS = "# inputs: (torch.randn(4, 8),)\n"


def _source(path: Path, code: str) -> str:
    return INPUTS.get(code, DEFAULT_INPUTS) + path.read_text(encoding="utf-8")


def _misbehaviour(obs: Any, kind: str) -> int:
    if kind == "breaks":
        return max(len(obs.breaks), 1 if obs.counter_breaks else 0)
    return len(obs.recompiles)


def _load(path: Path) -> Any:
    return load_module(path, "cl_fix")


def _outputs(path: Path, compiled: bool) -> list[Any]:
    mod = _load(path)
    torch.manual_seed(0)
    model = mod.Model()
    xs = [torch.randn(4, 8) for _ in range(3)]
    fn = torch.compile(model, backend="eager") if compiled else model
    torch._dynamo.reset()
    with torch.no_grad():
        return [fn(x) for x in xs]


def _grads(path: Path, compiled: bool) -> list[Any]:
    """Gradients of the sum of the outputs of 3 calls: the parameters' and the inputs'."""
    mod = _load(path)
    torch.manual_seed(0)
    model = mod.Model()
    xs = [torch.randn(4, 8, requires_grad=True) for _ in range(3)]
    fn = torch.compile(model, backend="eager") if compiled else model
    torch._dynamo.reset()
    for x in xs:
        out = fn(x)
        outs = out if isinstance(out, (tuple, list)) else [out]
        loss = sum(o.float().sum() for o in outs if isinstance(o, torch.Tensor) and o.requires_grad)
        if isinstance(loss, torch.Tensor):
            loss.backward()
    return [x.grad for x in xs] + [p.grad for p in model.parameters()]


@pytest.mark.parametrize("code", OBSERVABLE)
def test_fixed_model_does_not_break(tmp_path: Path, code: str) -> None:
    kind = CATALOG.rules[code].verify
    before = FIXDIR / f"{code}_before.py"
    after = FIXDIR / f"{code}_after.py"
    if code != "CL204":  # the original would stop in the debugger
        obs = observe(_source(before, code), tmp_path)
        assert obs is not None
        assert _misbehaviour(obs, kind) > 0, f"{code}: the original does not misbehave"
    if code in CALLEE_BREAKS:
        fixed = observe(_source(after, code), tmp_path)
        assert fixed is not None and obs is not None
        assert len(fixed.breaks) < len(obs.breaks), f"{code}: {fixed.breaks} vs {obs.breaks}"
        return
    obs = observe(_source(after, code), tmp_path)
    assert obs is not None
    assert _misbehaviour(obs, kind) == 0, f"{code}: the fixed model still misbehaves: {obs}"
    assert not obs.breaks and not obs.counter_breaks, f"{code}: the fix breaks: {obs.breaks}"


@pytest.mark.parametrize("code", [c for c in OBSERVABLE if c != "CL204" and c not in OWN_HARNESS])
def test_fixed_model_computes_the_same(code: str) -> None:
    want = _outputs(FIXDIR / f"{code}_before.py", compiled=False)
    torch.testing.assert_close(_outputs(FIXDIR / f"{code}_after.py", compiled=False), want)
    torch.testing.assert_close(_outputs(FIXDIR / f"{code}_after.py", compiled=True), want)
    if code == "CL206":  # deepcopy of a non-leaf tensor raises with gradients on (the original too)
        return
    grads = _grads(FIXDIR / f"{code}_before.py", compiled=False)
    torch.testing.assert_close(_grads(FIXDIR / f"{code}_after.py", compiled=False), grads)
    torch.testing.assert_close(_grads(FIXDIR / f"{code}_after.py", compiled=True), grads)


def test_counter_buffer_counts(tmp_path: Path) -> None:
    mod = _load(FIXDIR / "CL501_after.py")
    model = mod.Model()
    compiled = torch.compile(model, backend="eager")
    for _ in range(3):
        compiled(torch.randn(4, 8))
    assert int(model.calls) == 3 and int(model.seen) == 12
    assert "calls" not in model.state_dict()


# ---------------------------------------------------------------------------- --verify
def _demo(tmp_path: Path) -> Path:
    dest = tmp_path / "fixtures" / "demo"
    shutil.copytree(ROOT / "fixtures" / "demo", dest)
    return dest


def test_demo_goes_to_zero_breaks_with_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = _demo(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = (demo / "transformer.py").read_text(encoding="utf-8")
    res = CliRunner().invoke(
        main,
        [
            "fix",
            "fixtures/demo",
            "--unsafe-fixes",
            "--input-spec",
            "fixtures/demo/spec.json",
            "--verify",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    ver = data["verification"]
    assert ver["error"] is None
    assert ver["before"]["breaks"] == 2
    assert ver["after"]["breaks"] == 0
    checks = {(c["rule"], c["line"]): c for c in ver["checks"]}
    assert set(checks) == {("CL103", 40), ("CL101", 41)}
    for c in checks.values():
        assert c["accepted"], c
        assert c["breaks_before"] > 0 and c["breaks_after"] == 0
        assert c["outputs"] == "match"
    assert data["written"] == ["fixtures/demo/transformer.py"]
    after = (demo / "transformer.py").read_text(encoding="utf-8")
    assert (
        "peak = h.abs().max().detach()  #" in after and "torch.where(" in after and after != before
    )
    # the static stage agrees: only the advice finding is left
    res = CliRunner().invoke(main, ["check", "fixtures/demo", "--no-cache", "--format", "json"])
    assert [f["rule"] for f in json.loads(res.stdout)["findings"]] == ["CL402"]


BAD_AND_GOOD = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x[:, 0] > 0
        total = x[rows].sum()
        print("total", total.shape)
        return x * total
"""


def test_verify_applies_the_row_mask_rewrite(tmp_path: Path) -> None:
    """A row mask (``x[rows]`` with ``rows`` of one dimension fewer): the CL111 rewrite
    broadcasts the mask over the columns (``rows.reshape(rows.shape + (1,) * ...)``), so the
    outputs match and it is applied (before the rank-agnostic broadcast, torch.where broadcast
    the mask the wrong way and verification rejected it); the print guard lands too."""
    (tmp_path / "model.py").write_text(BAD_AND_GOOD, encoding="utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {"model": "model.py:Model", "inputs": [{"tensor": [8, 8]}], "seed": 0, "mode": "train"}
        ),
        encoding="utf-8",
    )
    run = fix_paths(
        [str(tmp_path / "model.py")],
        Config(select=("CL111", "CL201"), cache=False),
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(tmp_path),
    )
    assert run.verification is not None and run.verification.error is None
    status = {r.rule: r for r in run.records}
    assert status["CL201"].status == "applied"
    assert status["CL111"].status == "applied"
    text = (tmp_path / "model.py").read_text(encoding="utf-8")
    assert "x[rows].sum()" not in text and "is_compiling" in text
    assert "rows.reshape(rows.shape + (1,)" in text
    checks = {c.rule: c for c in run.verification.checks}
    assert checks["CL201"].accepted and checks["CL201"].breaks_after == 0
    assert checks["CL111"].accepted and checks["CL111"].breaks_after == 0


def test_verify_accepts_a_layer_built_lazily_in_init(tmp_path: Path) -> None:
    """CL508: the lazy module's parameters have no values before the first call; verification
    leaves them out of the weight snapshot (the original has no such layer yet), and the
    weights drawn at the first call match the original's."""
    shutil.copy(FIXDIR / "CL508_before.py", tmp_path / "model.py")
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps({"model": "model.py:Model", "inputs": [{"tensor": [4, 8]}], "seed": 0}),
        encoding="utf-8",
    )
    run = fix_paths(
        [str(tmp_path / "model.py")],
        Config(select=("CL508",), cache=False),
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(tmp_path),
    )
    assert run.verification is not None and run.verification.error is None
    checks = [c for c in run.verification.checks if c.rule == "CL508"]
    assert checks and checks[0].accepted, checks
    assert checks[0].breaks_after == 0 and checks[0].outputs == "match"
    assert "nn.LazyLinear" in (tmp_path / "model.py").read_text(encoding="utf-8")


def test_verify_counter_buffer_removes_recompiles(tmp_path: Path) -> None:
    for name in ("int_counter.py", "int_counter.json"):
        shutil.copy(ROOT / "fixtures" / "dynamic" / name, tmp_path / name)
    run = fix_paths(
        [str(tmp_path / "int_counter.py")],
        Config(cache=False),
        unsafe=True,
        spec=str(tmp_path / "int_counter.json"),
        verify=True,
        root=str(tmp_path),
    )
    assert run.verification is not None
    (chk,) = run.verification.checks
    assert chk.rule == "CL501" and chk.accepted, chk
    assert chk.recompiles_before >= 7 and chk.recompiles_after == 0
    assert chk.outputs == "match"
    assert "register_buffer" in (tmp_path / "int_counter.py").read_text(encoding="utf-8")


def test_a_fix_that_fails_eagerly_does_not_match(tmp_path: Path) -> None:
    """Verification also calls the fixed model uncompiled once: a fix that only works while
    dynamo traces it (NumPy handed to a torch function, say) is not a match."""
    from compilelint.dynamic.outputs import Recorder, compare, save

    model = torch.nn.Linear(4, 4)
    x = torch.randn(2, 4)
    ref = Recorder()
    ref.model_built(torch, model)
    ref.called(torch, model(x))
    ref.eager_called(torch, model, [x], {})
    save(torch, str(tmp_path / "ref.pt"), ref)

    def broken(_: Any) -> Any:
        return torch.clamp(x.numpy().max(), min=1.0)  # TypeError in eager

    mine = Recorder()
    mine.model_built(torch, model)
    mine.called(torch, model(x))
    mine.eager_called(torch, broken, [x], {})
    got = compare(torch, str(tmp_path / "ref.pt"), mine)
    assert not got["ok"]
    assert got["eager"].startswith("differ: run eagerly, it raises TypeError")
    good = Recorder()
    good.model_built(torch, model)
    good.called(torch, model(x))
    good.eager_called(torch, model, [x], {})
    assert compare(torch, str(tmp_path / "ref.pt"), good)["ok"]


@pytest.mark.parametrize("code", sorted(PROPOSED))
def test_proposed_patch_removes_the_break(tmp_path: Path, code: str) -> None:
    """The proposal, applied by hand, breaks nothing and computes the same on the fixture's
    inputs (chosen so that the proposal's condition holds: nothing is cut)."""
    from compilelint.fix.engine import Proposal, plan_file

    before = FIXDIR / f"{code}_before.py"
    src = before.read_bytes()
    res = check_findings(before, code)
    plan = plan_file(str(before), str(before), src, res, CATALOG, None)
    assert plan is not None
    props = [p.result for p in plan.planned if isinstance(p.result, Proposal)]
    assert props, f"{code}: no proposal"
    from compilelint.fix.engine import _transform

    fixed = tmp_path / "fixed.py"
    fixed.write_text(_transform(plan.module, props[:1], plan.torch_bound).code, encoding="utf-8")
    obs = observe(_source(before, code), tmp_path)
    assert obs is not None and obs.breaks, f"{code}: the original does not break"
    obs = observe(_source(fixed, code), tmp_path)
    assert obs is not None
    assert not obs.breaks, f"{code}: the patch still breaks: {obs.breaks}"
    torch.testing.assert_close(_outputs(fixed, compiled=True), _outputs(before, compiled=False))
    torch.testing.assert_close(_grads(fixed, compiled=True), _grads(before, compiled=False))


def check_findings(path: Path, code: str) -> list[Any]:
    from compilelint.api import check

    report = check([str(path)], Config(select=(code,), cache=False))
    return [f for f in report.findings if f.rule == code]


PRUNE = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 1)

    def forward(self, x):
        keep = self.score(x).squeeze(-1) > 0
        counts = keep.sum(dim=1).tolist()
        print(f"kept {counts}")
        per_image = torch.split(x[keep], counts)
        return torch.stack([t.mean(0) if len(t) else t.new_zeros(8) for t in per_image])
"""


def test_a_guard_that_unmasks_a_compile_failure_is_rejected_with_its_cause(
    tmp_path: Path,
) -> None:
    """With capture_scalar_outputs and capture_dynamic_output_shape_ops set, the print's break
    hands the code after it the counts as Python ints; guarded, they stay unbacked and `len(t)`
    makes torch.compile raise (the call runs uncompiled). The verdict names that, not "0 calls
    made, 3 expected"."""
    (tmp_path / "model.py").write_text(PRUNE, encoding="utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "model": "model.py:Model",
                "inputs": [{"tensor": [2, 6, 8], "init": "randn"}],
                "config": {
                    "capture_scalar_outputs": True,
                    "capture_dynamic_output_shape_ops": True,
                },
            }
        ),
        encoding="utf-8",
    )
    run = fix_paths(
        [str(tmp_path / "model.py")],
        Config(select=("CL201",), cache=False),
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(tmp_path),
    )
    assert run.verification is not None and run.verification.error is None
    (rec,) = [r for r in run.records if r.rule == "CL201"]
    assert rec.status == "rejected"
    assert rec.reason.startswith("torch.compile fails on the fixed model at model.py:15")
    assert "data-dependent" in rec.reason and "calls made" not in rec.reason
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == PRUNE


@pytest.mark.parametrize("compiled", [False, True])
def test_cl502_fixture_computes_the_same_with_gradients(compiled: bool) -> None:
    """CL502's pair (a PINN residual from `autograd.grad`, and `torch.func.vjp`): outputs,
    input and parameter gradients equal, compiled and not; both raise under `no_grad()`."""

    def run(path: Path, comp: bool) -> list[Any]:
        mod = _load(path)
        torch.manual_seed(0)
        model = mod.HeatPINN()
        fn = torch.compile(model, backend="eager") if comp else model
        torch._dynamo.reset()
        got: list[Any] = []
        for _ in range(3):
            x = torch.randn(4, 2, requires_grad=True)
            u, res = fn(x)
            (u.sum() + (res**2).sum()).backward()
            got += [u.detach(), res.detach(), x.grad]
        return got + [p.grad for p in model.parameters()]

    want = run(FIXDIR / "CL502_before.py", False)
    torch.testing.assert_close(run(FIXDIR / "CL502_after.py", compiled), want)
    for name in ("CL502_before.py", "CL502_after.py"):
        with torch.no_grad(), pytest.raises(RuntimeError):
            _load(FIXDIR / name).HeatPINN()(torch.randn(4, 2))
