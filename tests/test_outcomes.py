"""Outcomes of observed breaks, their labels and remedies as data (pure: no torch; the torch
checks of the same are in tests/test_remedies_torch.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.breakkinds import label_break, line_rules
from compilelint.catalog import load_catalog
from compilelint.fix.outcomes import build_outcomes, compile_option_place, config_place
from compilelint.fix.records import ConfigResult, FixCheck, FixRecord, Status
from compilelint.fix.textdiff import LineMap
from compilelint.merge import merge_findings
from compilelint.model import ObservedBreak
from compilelint.remedies import CONFIG_REMEDIES, RECIPES, config_for, recipe_text

CAT = load_catalog()
SKIPPED = "Attempted to call function marked as skipped"
ISSUE = "Please file an issue on GitHub so the PyTorch team can add support for it."


@pytest.mark.parametrize(
    ("gb_type", "gb_id", "line", "rule"),
    [
        (SKIPPED, "GB0007", "self.log.append(t.tolist())", "CL105"),
        (SKIPPED, "GB0007", 'warnings.warn("big")', "CL203"),
        (SKIPPED, "GB0007", "t0 = time.perf_counter()", "CL205"),
        (SKIPPED, "GB0007", "y = helper(x)", "CL002"),
        ("Dynamic shape operator", "GB0036", "y = x[x > 0]", "CL111"),
        ("Dynamic shape operator", "GB0036", "i, j = torch.where(m)", "CL110"),
        ("Dynamic shape operator", "GB0036", "diff = pred[valid] - gt[valid]", "CL111"),
        ("Dynamic shape operator", "GB0036", "edge_index = edge_index[:, keep]", "CL111"),
        # a name index is a mask only where torch saw a dynamic shape
        ("Unsupported Tensor.item() call", "GB0124", "d = pred[valid] - gt[valid]", "CL002"),
        ("Data-dependent branching", "GB0170", "if x.sum() > 0:", "CL101"),
        ("Data-dependent branching", "GB0170", "elif x.max() < 1:", "CL101"),
        ("Skip calling `torch.compiler.disable()`d function", "GB0098", "y = f(x)", "CL210"),
        ("A break from a future torch", "GB9999", "y = copy.deepcopy(x)", "CL002"),
    ],
)
def test_observed_break_is_labelled_by_its_line(
    gb_type: str, gb_id: str, line: str, rule: str
) -> None:
    assert label_break(CAT, gb_type, gb_id, "        " + line) == rule


def test_a_label_is_never_a_rule_the_line_does_not_match() -> None:
    for gb in {g for r in CAT.rules.values() for g in r.gb_ids}:
        for line in ("self.log.append(t.tolist())", "y = helper(x)", "n = len(xs)"):
            code = label_break(CAT, "", gb, line)
            assert code in (*line_rules(line), "CL002", "CL210"), (gb, line, code)


def _break(path: str, line: int, gb_id: str, gb_type: str = SKIPPED) -> ObservedBreak:
    return ObservedBreak(
        gb_type=gb_type,
        gb_id=gb_id,
        reason="",
        explanation="",
        hints=(ISSUE,),
        context="",
        loc_path=path,
        loc_line=line,
        path=path,
        line=line,
        function="forward",
        frames=(),
        package=None,
        count=1,
    )


def test_a_break_inside_a_call_from_the_line_is_not_labelled_by_the_line() -> None:
    """torch 2.11 under NCCL: DDP's logger call breaks (GB0156) inside `compiled(...)`, on a line
    that also calls `.backward()`; torch's hint names the callee, which is not on the line."""
    line = "        compiled(x, scale, rank).sum().backward()"
    ddp = ("Avoid calling `Logger.set_runtime_stats_and_log` in your code.",)
    assert label_break(CAT, "Unsupported method call", "GB0156", line, ddp) == "CL002"
    # a rule that predicts the GB id and whose call is on the line keeps it (json.dumps breaks
    # inside the json module, on `type.__new__`)
    inner = ("Avoid calling `type.__new__` in your code.",)
    dumps = 's = len(json.dumps({"rows": 4}))'
    assert label_break(CAT, "Unsupported method call", "GB0156", dumps, inner) == "CL205"
    # the callee on the line: the line's code is what broke
    timer = ("Avoid calling the function `perf_counter`.",)
    assert label_break(CAT, "", "GB0007", "t0 = time.perf_counter()", timer) == "CL205"


def test_merge_labels_by_the_line_and_never_gives_file_an_issue_as_the_fix(
    tmp_path: Path,
) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "def forward(self, t):\n    self.log.append(t.tolist())\n    return helper(t)\n",
        encoding="utf-8",
    )
    out = merge_findings(
        [],
        [_break(str(src), 2, "GB0007"), _break(str(src), 3, "GB0007")],
        (),
        CAT,
        root=str(tmp_path),
    )
    by_line = {f.line: f for f in out}
    assert by_line[2].rule == "CL105" and by_line[3].rule == "CL002"
    for f in out:
        assert "file an issue" not in f.fix.lower() and f.fix
    assert "compiled region" in by_line[3].fix  # the GB0007 recipe


def test_recipes_cover_the_break_kinds_users_meet() -> None:
    have = {g for r in RECIPES for g in r.gb_ids}
    for gb in (
        "GB0007",
        "GB0033",
        "GB0036",
        "GB0124",
        "GB0170",
        "GB0035",
        "GB0142",
        "GB0207",
        "GB0264",
        "GB0098",
        "GB0083",
        "GB0059",
        "GB0291",
        "GB4841",
    ):
        assert gb in have
    assert "file an issue" not in recipe_text("GB0098", [ISSUE]).lower()
    assert config_for("GB0109") is None and config_for("GB0036") is not None
    assert all(c.invalid and c.valid and c.checked for c in CONFIG_REMEDIES)


def _rec(line: int, status: Status, rule: str = "CL103", reason: str = "", patch: str = ""):
    return FixRecord(
        rule=rule,
        path="m.py",
        line=line,
        col=5,
        message="",
        safety="unsafe",
        status=status,
        title=f"{rule} title",
        reason=reason,
        key=str(line),
        end_line=line,
        patch=patch,
    )  # type: ignore[arg-type]


def _chk(line: int, accepted: bool, rule: str = "CL103", reason: str = "") -> FixCheck:
    return FixCheck(
        rule=rule,
        path="m.py",
        line=line,
        title=f"{rule} title",
        breaks_before=1,
        breaks_after=0 if accepted else 1,
        recompiles_before=0,
        recompiles_after=0,
        new_breaks=(),
        outputs="match",
        accepted=accepted,
        reason=reason,
    )


def test_every_observed_break_gets_exactly_one_outcome(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    lines = [f"    line{i} = x.sum().item()" for i in range(1, 9)]
    (tmp_path / "m.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    item = "Unsupported Tensor.item() call with capture_scalar_outputs=False"

    def b(line: int, gb: str = "GB0124", kind: str = item) -> dict:
        return {"path": "m.py", "line": line, "gb_id": gb, "gb_type": kind, "count": 1}

    before = {
        "breaks": [
            b(1),
            b(3),
            b(5),
            b(6),
            b(7, "GB0036", "Dynamic shape operator"),
            {"path": "/lib/site.py", "line": 9, "gb_id": "GB0124", "gb_type": item},
        ],
        "recompiles": [
            {"path": "m.py", "line": 8, "guard": "len(self.log) == 2", "input": None, "count": 2}
        ],
    }
    # line 1 fixed at its line; line 3 gone by a fix elsewhere; 5 proposed; 6 refused;
    # 7 removed by a config run that is not written (proposed); 8 recompile left
    after = {
        "breaks": [b(5), b(6), b(7, "GB0036", "Dynamic shape operator")],
        "recompiles": [{"path": "m.py", "line": 8, "guard": "len(self.log) == 2", "count": 2}],
    }
    records = [
        _rec(1, "applied"),
        _rec(2, "applied", "CL201"),
        _rec(5, "proposed", reason="cannot show equivalence", patch="--- a\n+++ b\n"),
        _rec(6, "no-fix", reason="the value is used in `ctx.peak = peak`"),
    ]
    checks = [_chk(1, True), _chk(2, True, "CL201")]
    cfg = ConfigResult(
        name="capture_dynamic_output_shape_ops",
        lines=("torch._dynamo.config.capture_dynamic_output_shape_ops = True",),
        settings={"capture_dynamic_output_shape_ops": True},
        compile={},
        accepted=True,
        reason="ok",
        breaks_before=1,
        breaks_after=0,
        recompiles_before=0,
        recompiles_after=0,
    )
    text = (tmp_path / "m.py").read_text().splitlines()
    out = build_outcomes(
        before,
        after,
        records,
        checks,
        [cfg],
        root=str(tmp_path),
        catalog=CAT,
        maps={str((tmp_path / "m.py").resolve()): LineMap("\n".join(text), "\n".join(text))},
        texts={},
        display=lambda p: "m.py",
        config_block={"breaks": [b(5), b(6)], "recompiles": after["recompiles"]},
    )
    got = {(o.what, o.line): o for o in out}
    assert len(out) == 6  # the library's break is attributed to a user line, not repeated
    assert got[("break", 1)].outcome == "fixed" and "CL103 at m.py:1" in got[("break", 1)].by
    assert got[("break", 3)].outcome == "fixed" and "a fix elsewhere" in got[("break", 3)].by
    assert got[("break", 5)].outcome == "proposed" and got[("break", 5)].patch
    six = got[("break", 6)]
    assert six.outcome == "no remedy" and "ctx.peak" in six.reason and six.recipe
    assert "config capture_scalar_outputs: not tried" in six.reason
    seven = got[("break", 7)]
    assert seven.outcome == "proposed" and seven.config == cfg.lines
    rec = got[("recompile", 8)]
    assert rec.outcome == "no remedy" and rec.rule == "CL003" and rec.recipe


def test_config_lines_go_where_the_user_compiles() -> None:
    text = "import torch\n\ntorch._dynamo.config.cache_size_limit = 8\nm = torch.compile(f)\n"
    new, line = config_place(text, ["torch._dynamo.config.capture_scalar_outputs = True"]) or (
        "",
        0,
    )
    assert line == 3 and new.splitlines()[2] == "torch._dynamo.config.capture_scalar_outputs = True"
    assert config_place(new, ["torch._dynamo.config.capture_scalar_outputs = True"]) is None
    assert config_place("import torch\n", ["x = 1"]) is None
    got = compile_option_place(
        "import torch\nm = torch.compile(N(), mode='x')\n", {"dynamic": True}
    )
    assert got == ("import torch\nm = torch.compile(N(), mode='x', dynamic=True)\n", 2)
    assert (
        compile_option_place("m = torch.compile(N(), dynamic=False)\n", {"dynamic": True}) is None
    )


def test_accepted_config_remedies_go_into_the_copy_spec(tmp_path: Path) -> None:
    import json

    from compilelint.fix.api import _config_into_spec
    from compilelint.fix.records import FixRun

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"model": "m.py:M", "config": {"cache_size_limit": 8}}))

    def cfg(name: str, accepted: bool, settings: dict, compile_: dict) -> ConfigResult:
        return ConfigResult(
            name=name,
            lines=(),
            settings=settings,
            compile=compile_,
            accepted=accepted,
            reason="",
            breaks_before=1,
            breaks_after=0,
            recompiles_before=0,
            recompiles_after=0,
        )

    run = FixRun(
        records=[],
        changes=[],
        configs=[
            cfg("capture_scalar_outputs", True, {"capture_scalar_outputs": True}, {}),
            cfg(
                "capture_dynamic_output_shape_ops",
                False,
                {"capture_dynamic_output_shape_ops": True},
                {},
            ),
            cfg("dynamic", True, {}, {"dynamic": True}),
        ],
    )
    _config_into_spec(str(spec), run)
    data = json.loads(spec.read_text())
    assert data["config"] == {"cache_size_limit": 8, "capture_scalar_outputs": True}
    assert data["compile"] == {"dynamic": True}


def test_a_recompile_inside_a_library_gets_an_outcome_named_by_the_library_line(
    tmp_path: Path,
) -> None:
    """A library's frame that recompiles (einops' backend registry filled on its first call)
    is named by the library's file and line, with a reason and the warm-up recipe; a library's
    break is attributed to the user's line by the dynamic stage and is not repeated here."""
    lib = tmp_path / "site-packages" / "einops"
    lib.mkdir(parents=True)
    (lib / "einops.py").write_text("\n" * 4 + "def repeat(tensor, pattern):\n", encoding="utf-8")
    (tmp_path / "m.py").write_text("y = 1\n", encoding="utf-8")
    guard = "len(G['__import_einops_dot__backends']._type2backend) != 1"
    before = {
        "breaks": [{"path": str(lib / "einops.py"), "line": 5, "gb_id": "GB0124", "gb_type": "x"}],
        "recompiles": [{"path": str(lib / "einops.py"), "line": 5, "guard": guard, "count": 1}],
    }
    out = build_outcomes(
        before,
        before,
        [],
        [],
        [],
        root=str(tmp_path),
        catalog=CAT,
        maps={},
        texts={},
        display=lambda p: "m.py",
    )
    assert len(out) == 1
    (o,) = out
    assert (o.what, o.path, o.line, o.outcome) == ("recompile", "einops/einops.py", 5, "no remedy")
    assert o.code.startswith("def repeat") and "installed library" in o.reason
    assert "warm-up" in o.recipe
