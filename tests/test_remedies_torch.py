"""Config remedies and break labels checked against the installed torch: each config remedy's
INVALID example breaks (or recompiles) without the setting and not with it, with the same
outputs; its VALID example needs no remedy; ``still`` keeps breaking with it (the remedy is not
claimed for those GB ids). Observed breaks are labelled by what their line does."""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.breakkinds import LINE_KINDS, _parse_line, label_break
from compilelint.catalog import load_catalog
from compilelint.remedies import CONFIG_REMEDIES, config_for, recipe_text, useful_hints

pytestmark = pytest.mark.torch
CAT = load_catalog()


@pytest.fixture(autouse=True)
def _need_torch() -> None:
    pytest.importorskip("torch")


def _run(source: str, tmp: Path, settings: dict[str, object], compile_kw: dict[str, object]):
    """(breaks, recompiles, outputs equal eager's) of ``fn`` in ``source`` under torch.compile
    with ``settings`` patched into torch._dynamo.config."""
    from compilelint.dynamic.remedy_probe import run_example

    breaks, graphs, same = run_example(source, settings, compile_kw)
    return breaks, graphs - 1, same


@pytest.mark.parametrize("remedy", CONFIG_REMEDIES, ids=lambda r: r.name)
def test_config_remedy_examples_hold_on_torch(remedy, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    on, kw = dict(remedy.settings), dict(remedy.compile)
    assert remedy.invalid and remedy.valid
    b0, r0, _ = _run(remedy.invalid, tmp_path, {}, {})
    b1, r1, same = _run(remedy.invalid, tmp_path, on, kw)
    assert same
    if remedy.recompiles and remedy.name == "allow_unspec_int_on_nn_module":
        # the first value compiles static (automatic dynamic): one recompile, then one graph
        assert r0 >= 3 and r1 == 1, (r0, r1)
    elif remedy.recompiles:
        assert r0 > 0 and r1 == 0, (r0, r1)
    else:
        assert b0 > 0 and b1 == 0, (b0, b1)
    for settings, compile_kw in (({}, {}), (on, kw)):
        bv, rv, same = _run(remedy.valid, tmp_path, settings, compile_kw)
        assert (bv, rv, same) == (0, 0, True)
    if remedy.still:
        bs, _, _ = _run(remedy.still, tmp_path, on, kw)
        assert bs > 0 and remedy.not_for
    import torch

    have = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    for since, _what, src in remedy.since:
        b0, _, _ = _run(src, tmp_path, {}, {})
        b1, _, same = _run(src, tmp_path, on, kw)
        assert b0 > 0 and same
        wanted = have >= tuple(int(p) for p in since.split("."))
        assert (b1 == 0) == wanted, (since, b1)


def test_still_breaking_ids_get_no_config_remedy() -> None:
    for r in CONFIG_REMEDIES:
        for gb in r.not_for:
            assert config_for(gb) is None


LABELLED = """import random
import time

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.log = []

    def forward(self, x):
        self.log.append(x.mean(0).tolist())
        t = time.time()
        r = random.random()
        idx = torch.nonzero(x > 0)
        return x * 2 + idx.sum()
"""


def test_observed_breaks_are_labelled_by_what_the_line_does(tmp_path: Path) -> None:
    from .torch_oracle import observe

    got = observe(LABELLED, tmp_path)
    assert got is not None
    lines = LABELLED.splitlines()
    seen: dict[int, str] = {}
    for gb, _, line in got.breaks:
        text = lines[line - 1]
        code = label_break(CAT, "", f"GB{gb}", text)
        seen[line] = code
        assert code != "CL203"  # never the warnings.warn rule for a line without one
        if code != "CL002":
            assert any(LINE_KINDS[code](n) for n in _parse_line(text)), (code, text)
    assert seen.get(13) == "CL105"  # the .tolist() read
    assert seen.get(14) == "CL205" and seen.get(16) == "CL110"


def test_file_an_issue_hints_are_never_the_fix() -> None:
    hint = (
        "It may be possible to write Dynamo tracing rules for this code. Please report an "
        "issue to PyTorch if you encounter this graph break often"
    )
    issue = "Please file an issue on GitHub so the PyTorch team can add support for it."
    assert useful_hints([hint, issue, "Use torch.clamp"]) == ("Use torch.clamp",)
    assert "file an issue" not in recipe_text("GB0007", [issue])
    assert "file an issue" not in recipe_text("GB9999", [issue]).lower()


OUTCOMES = """import json

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        x = self.lin(x)
        print(x.shape)
        idx = torch.nonzero(x > 0)
        s = len(json.dumps({"rows": 4}))  # flows into the output: CL205 cannot guard it
        return x * 2 + idx.float().sum() + s
"""


def test_every_observed_break_gets_one_outcome(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from compilelint.config import Config
    from compilelint.fix import fix_paths

    (tmp_path / "m.py").write_text(OUTCOMES, encoding="utf-8")
    (tmp_path / "spec.json").write_text(
        json.dumps({"model": "m.py:M", "inputs": [{"tensor": [3, 4]}], "mode": "eval"}),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    run = fix_paths(
        ["m.py"],
        Config(cache=False),
        unsafe=True,
        write=False,
        spec="spec.json",
        verify=True,
        root=str(tmp_path),
        timeout=300,
    )
    ver = run.verification
    assert ver is not None and ver.error is None
    by_line = {o.line: o for o in run.outcomes}
    assert ver.observed == len(run.outcomes) == 3
    assert by_line[13].outcome == "fixed" and "CL201" in by_line[13].by
    # no place to write the setting: proposed, with the line to add, verified by torch
    assert by_line[14].outcome == "proposed" and by_line[14].rule == "CL110"
    assert by_line[14].config == ("torch._dynamo.config.capture_dynamic_output_shape_ops = True",)
    assert by_line[15].outcome == "no remedy" and by_line[15].rule == "CL205"
    assert "CL205" in by_line[15].reason and "compiled region" in by_line[15].recipe
