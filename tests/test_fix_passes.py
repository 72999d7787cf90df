"""Fixes to a fixpoint, and fixes for the breaks torch observed but no static rule predicted.

CL103 is left out of the static selection (``ONLY_PRINT``), so its fixes can only come from
what torch observed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix.engine import decode, run_fixes
from compilelint.fix.observed import GB_RULES, observed_findings

ONLY_PRINT = Config(select=("CL201",), cache=False)

UNPREDICTED = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        stats = {"scale": x.abs().mean()}
        s = stats["scale"].item()
        y = self.lin(x) * s
        return y
"""


def _observed(tmp_path: Path, breaks: list[dict[str, object]]) -> list:
    return observed_findings(
        breaks, str(tmp_path), {}, lambda real: real, set(), ["CL103", "CL201", "CL202"]
    )


def test_observed_break_becomes_a_finding_of_its_rule(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(UNPREDICTED, encoding="utf-8")
    (f,) = _observed(tmp_path, [{"path": "m.py", "line": 12, "gb_id": "GB0124"}])
    assert (f.rule, f.line, f.col, f.end_line, f.end_col) == ("CL103", 12, 13, 12, 34)
    assert f.stage == "dynamic" and f.gb_id == "GB0124"
    # the static stage misses it; the engine fixes it once offered
    assert not run_fixes([str(tmp_path / "m.py")], ONLY_PRINT, unsafe=True).changes
    res = run_fixes([str(tmp_path / "m.py")], ONLY_PRINT, unsafe=True, extra=[f])
    assert '        s = stats["scale"].detach()\n' in decode(res.changes[0].after)


UNPREDICTED_MATH = """import math

import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        stats = {"var": x.var(), "peak": x.abs().max()}
        std = math.sqrt(stats["var"])
        return x / std * float(stats["peak"])
"""


def test_observed_math_and_cast_breaks_get_their_codemods(tmp_path: Path) -> None:
    """GB0033 at `math.sqrt(...)` offers CL112, GB0124 at `float(...)` offers CL102."""
    (tmp_path / "m.py").write_text(UNPREDICTED_MATH, encoding="utf-8")
    found = observed_findings(
        [
            {"path": "m.py", "line": 10, "gb_id": "GB0033"},
            {"path": "m.py", "line": 11, "gb_id": "GB0124"},
        ],
        str(tmp_path),
        {},
        lambda real: real,
        set(),
        ["CL102", "CL103", "CL112"],
    )
    assert [(f.rule, f.line) for f in found] == [("CL112", 10), ("CL102", 11)]
    none = Config(select=("CL201",), cache=False)
    res = run_fixes([str(tmp_path / "m.py")], none, unsafe=True, extra=found)
    fixed = decode(res.changes[0].after)
    assert '        std = torch.sqrt(stats["var"].detach())\n' in fixed
    assert '        return x / std * stats["peak"].detach()\n' in fixed


def test_numpy_values_are_not_kept_as_tensors(tmp_path: Path) -> None:
    """`float(np...)` breaks under dynamo (which traces NumPy as tensors) but is NumPy in
    eager: dropping the `float()` would pass a NumPy value to `torch.clamp` there."""
    (tmp_path / "m.py").write_text(
        "import numpy as np\nimport torch\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, h):\n"
        "        peak = float(np.abs(h.detach().numpy()).max())\n"
        "        return h / max(peak, 1.0)\n",
        encoding="utf-8",
    )
    found = observed_findings(
        [{"path": "m.py", "line": 7, "gb_id": "GB0124"}],
        str(tmp_path),
        {},
        lambda real: real,
        set(),
        ["CL102"],
    )
    assert [f.rule for f in found] == ["CL102"]
    res = run_fixes(
        [str(tmp_path / "m.py")], Config(select=("CL201",), cache=False), unsafe=True, extra=found
    )
    assert not res.changes
    assert [r.status for r in res.records] == ["no-fix"]
    assert "NumPy" in res.records[0].reason


def test_observed_breaks_without_a_codemod_give_nothing(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(UNPREDICTED, encoding="utf-8")
    assert _observed(tmp_path, [{"path": "m.py", "line": 13, "gb_id": "GB0124"}]) == []
    assert _observed(tmp_path, [{"path": "m.py", "line": 12, "gb_id": "GB9999"}]) == []
    assert _observed(tmp_path, [{"path": "/abs/m.py", "line": 12, "gb_id": "GB0124"}]) == []
    assert len(GB_RULES) >= 5


@pytest.mark.torch
@pytest.mark.slow
def test_verify_fixes_a_break_only_torch_saw(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from compilelint.fix import fix_paths

    model = tmp_path / "m.py"
    model.write_text(UNPREDICTED, encoding="utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"model": "m.py:Net", "inputs": [{"tensor": [4, 8]}]}))
    run = fix_paths(
        [str(model)],
        ONLY_PRINT,
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(tmp_path),
    )
    assert run.verification is not None and run.verification.error is None
    (chk,) = run.verification.checks
    assert chk.rule == "CL103" and chk.accepted and chk.breaks_before == 1, chk
    assert run.verification.after["breaks"] == 0
    assert '        s = stats["scale"].detach()\n' in model.read_text(encoding="utf-8")


@pytest.mark.torch
@pytest.mark.slow
def test_passes_are_bounded_and_each_verified(tmp_path: Path) -> None:
    """Pass 1 guards the print (the `.item()` is also printed, so it waits); pass 2 offers
    the `.item()` that torch still observes, now that its other use is guarded."""
    pytest.importorskip("torch")
    from compilelint.fix import fix_paths
    from compilelint.fix import verify as verify_mod

    model = tmp_path / "m.py"
    model.write_text(
        UNPREDICTED.replace(
            "        y = self.lin(x) * s\n", '        y = self.lin(x) * s\n        print("s", s)\n'
        ),
        encoding="utf-8",
    )
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"model": "m.py:Net", "inputs": [{"tensor": [4, 8]}]}))
    run = fix_paths(
        [str(model)],
        ONLY_PRINT,
        unsafe=True,
        spec=str(spec),
        verify=True,
        root=str(tmp_path),
    )
    ver = run.verification
    assert ver is not None and ver.error is None
    assert {c.rule for c in ver.checks if c.accepted} == {"CL103", "CL201"}, ver.checks
    assert run.iterations == 2 and run.iterations <= verify_mod.MAX_PASSES
    assert ver.runs <= verify_mod.MAX_ATTEMPTS
    text = model.read_text(encoding="utf-8")
    assert '        s = stats["scale"].detach()\n' in text
    assert 'print("s", s.item())' in text
    assert ver.after["breaks"] == 0


def test_observed_gb_ids_reach_the_rewrites_of_issue_22(tmp_path: Path) -> None:
    """Breaks only torch saw get the codemods for their kind: a skipped standard-library call
    (GB0007) and a `with` it cannot enter (GB0142) CL205, a sort by tensor keys (GB0207)
    CL114, a `.tolist()` that only feeds a list log (GB0033) CL501."""
    from compilelint.fix.observed import observed_findings

    src = (
        "import hashlib\nimport threading\n\nimport torch\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self._lock = threading.Lock()\n"
        "        self.log = []\n\n"
        "    def forward(self, x):\n"
        "        key = hashlib.sha1(b'm').hexdigest()\n"  # 14
        "        with self._lock:\n"  # 15
        "            x = x * 2\n"
        "        parts = sorted(x.split(1), key=lambda t: t.sum())\n"  # 17
        "        v = x.mean().tolist()\n"  # 18
        "        self.log.append((key, v))\n"
        "        return torch.cat(parts)\n"
    )
    (tmp_path / "m.py").write_text(src, encoding="utf-8")
    breaks = [
        {"path": "m.py", "line": 14, "gb_id": "GB0007"},
        {"path": "m.py", "line": 15, "gb_id": "GB0142"},
        {"path": "m.py", "line": 17, "gb_id": "GB0207"},
        {"path": "m.py", "line": 18, "gb_id": "GB0033"},
    ]
    got = observed_findings(
        breaks, str(tmp_path), {}, lambda r: r, set(), ["CL205", "CL114", "CL501"]
    )
    assert {(f.rule, f.line) for f in got} == {
        ("CL205", 14),
        ("CL205", 15),
        ("CL114", 17),
        ("CL501", 18),
    }
    res = run_fixes(
        [str(tmp_path / "m.py")],
        Config(select=("CL000",), cache=False),
        unsafe=True,
        extra=got,
    )
    fixed = decode(res.changes[0].after)
    assert "torch.argsort(torch.stack([t.sum() for t in x.split(1)]), stable=True)" in fixed
    assert "contextlib.nullcontext()" in fixed and "import contextlib" in fixed
    assert "            v = x.mean().tolist()\n            self.log.append((key, v))\n" in fixed


MASK_UNPREDICTED = """import torch
from torch import nn


class Net(nn.Module):
    def forward(self, obs, hx, done):
        (done_idx,) = torch.where(done)
        hx = hx.clone()
        hx[done_idx] = 0.0
        keep = self.pick(obs)
        picked = obs[keep]
        return hx, picked.sum() / picked.shape[0] + obs.shape[0]

    def pick(self, obs):
        return obs > 0
"""


def test_observed_dynamic_shapes_get_the_mask_codemods(tmp_path: Path) -> None:
    """GB0036 at a one-argument `where` offers CL110 (the indices become the mask), at `x[m]`
    CL111 (the mask comes from a helper the static stage does not follow); a subscript on
    the line that is not a mask (`obs.shape[0]`) gets nothing made up for it."""
    (tmp_path / "m.py").write_text(MASK_UNPREDICTED, encoding="utf-8")
    found = observed_findings(
        [
            {"path": "m.py", "line": 7, "gb_id": "GB0036"},
            {"path": "m.py", "line": 11, "gb_id": "GB0036"},
            {"path": "m.py", "line": 12, "gb_id": "GB0036"},
        ],
        str(tmp_path),
        {},
        lambda real: real,
        set(),
        ["CL110", "CL111"],
    )
    assert ("CL110", 7) in [(f.rule, f.line) for f in found]
    res = run_fixes(
        [str(tmp_path / "m.py")], Config(select=("CL201",), cache=False), unsafe=True, extra=found
    )
    fixed = decode(res.changes[0].after)
    assert "        hx[done] = 0.0\n" in fixed and "torch.where(done)" not in fixed
    # `keep` comes from a helper: its rank is not known, so the mask is broadcast to `obs`'s
    assert (
        "        keep_b = keep.reshape(keep.shape + (1,) * (obs.dim() - keep.dim()))\n"
        "        picked = torch.where(keep_b, obs, 0)\n" in fixed
    )
    assert "picked.sum() / keep.sum() + obs.shape[0]" in fixed
    reasons = [r.reason for r in res.records if r.status == "no-fix"]
    assert all("internal error" not in r for r in reasons), reasons
