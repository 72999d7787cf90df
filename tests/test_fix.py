"""The fix stage: before/after fixture pairs per fixable rule (golden files, updated with
``pytest --update-goldens``), idempotence, a truthful catalogue, and the API and CLI around it.

Fixtures: ``fixtures/fix/CLnnn_before.py`` holds cases the rule's codemod rewrites (class
``Model``, the first module, compiled by the torch checks) and cases it must leave alone
(``NoFix``); ``CLnnn_after.py`` is the expected result of fixing it with only that rule selected
and unsafe fixes allowed.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.api import check
from compilelint.catalog import load_catalog
from compilelint.cli import main
from compilelint.config import Config
from compilelint.fix import attach_edits, fix_copy, fix_paths
from compilelint.fix.codemods import all_codemods
from compilelint.fix.engine import decode, run_fixes
from compilelint.fix.textdiff import apply_edits

from .conftest import ROOT

FIXDIR = ROOT / "fixtures" / "fix"
CATALOG = load_catalog()
FIXABLE = sorted(c for c, r in CATALOG.rules.items() if r.fix != "none")
# rules whose codemod only proposes a patch, never applied
PROPOSED = {"CL113"}
# unused suppressions are only reported for enabled codes
SELECT = {"CL001": ("CL001", "CL1", "CL2")}


def fix_file(path: Path, code: str, *, unsafe: bool = True) -> bytes:
    cfg = Config(select=SELECT.get(code, (code,)), cache=False)
    res = run_fixes([str(path)], cfg, unsafe=unsafe)
    for c in res.changes:
        assert c.real == os.path.realpath(path)
        return c.after
    return path.read_bytes()


def test_catalogue_is_truthful() -> None:
    """A rule says safe/unsafe exactly when a codemod exists for it, and every fix has a why."""
    assert set(FIXABLE) == set(all_codemods())
    assert len(FIXABLE) >= 8
    for r in CATALOG.rules.values():
        assert r.fix_reason, r.code


@pytest.mark.parametrize("code", FIXABLE)
def test_fixture_pair(tmp_path: Path, code: str, update_goldens: bool) -> None:
    before = FIXDIR / f"{code}_before.py"
    after = FIXDIR / f"{code}_after.py"
    work = tmp_path / before.name
    shutil.copy(before, work)
    got = fix_file(work, code)
    assert work.read_bytes() == before.read_bytes(), "the engine must not write"
    if update_goldens:
        after.write_bytes(got)
    if code in PROPOSED:  # a proposal is never applied (its patch is checked on torch)
        assert got == before.read_bytes() == after.read_bytes()
        res = run_fixes([str(work)], Config(select=(code,), cache=False), unsafe=True)
        assert any(r.status == "proposed" and r.patch for r in res.records), code
        return
    assert got != before.read_bytes(), f"{code}: nothing was fixed"
    assert got == after.read_bytes(), f"{code}: differs from {after.name}"


@pytest.mark.parametrize("code", FIXABLE)
def test_fix_is_idempotent(tmp_path: Path, code: str) -> None:
    after = FIXDIR / f"{code}_after.py"
    work = tmp_path / after.name
    shutil.copy(after, work)
    assert fix_file(work, code) == after.read_bytes()


@pytest.mark.parametrize("code", FIXABLE)
def test_no_fix_cases_are_reported(tmp_path: Path, code: str) -> None:
    """What a codemod declines is reported with a reason, and left untouched."""
    before = FIXDIR / f"{code}_before.py"
    work = tmp_path / before.name
    shutil.copy(before, work)
    res = run_fixes([str(work)], Config(select=SELECT.get(code, (code,)), cache=False), unsafe=True)
    text = before.read_text(encoding="utf-8")
    if "class NoFix" not in text and "def per_item" not in text:
        return
    left = [r for r in res.records if r.status == "no-fix"]
    assert left, f"{code}: the NoFix cases got no record"
    assert all(r.reason for r in left)
    fixed = decode(res.changes[0].after) if res.changes else text
    tail = text[text.index("class NoFix") :] if "class NoFix" in text else ""
    assert tail in fixed


def test_safe_fixes_only_without_unsafe_flag(tmp_path: Path) -> None:
    src = (FIXDIR / "CL101_before.py").read_text(encoding="utf-8")
    work = tmp_path / "m.py"
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL101", "CL201"), cache=False))
    # an uncapped `while` gets a proposal (a cap), shown and never applied
    assert {r.status for r in res.records if r.rule == "CL101"} <= {"unsafe", "no-fix", "proposed"}
    assert any(r.status == "unsafe" for r in res.records)
    fixed = decode(res.changes[0].after)
    assert "torch.where(" not in fixed  # CL101 is unsafe
    assert "if not torch.compiler.is_compiling():\n                print" in fixed  # CL201 is safe


def test_overlapping_fixes_land_in_later_rounds(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    work.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        y = x * 2 if x.sum() > 0 else x * max(x.max().item(), 1.0)\n"
        "        return y\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL101", "CL103"), cache=False), unsafe=True)
    fixed = decode(res.changes[0].after)
    assert res.rounds >= 2
    assert "torch.where(x.sum() > 0, x * 2, x * torch.clamp(x.max().detach(), min=1.0))" in fixed
    assert {r.status for r in res.records} == {"applied"}


def test_import_torch_added_when_missing(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    work.write_text(
        '"""doc"""\nfrom __future__ import annotations\n\nfrom torch import nn\n\n\n'
        "class M(nn.Module):\n    def forward(self, x):\n        print(x.shape)\n"
        "        return x\n",
        encoding="utf-8",
    )
    fixed = decode(fix_file(work, "CL201"))
    assert fixed.startswith(
        '"""doc"""\nfrom __future__ import annotations\n\nfrom torch import nn\nimport torch\n'
    )
    assert "if not torch.compiler.is_compiling():" in fixed
    compile(fixed, "m.py", "exec")


def test_encoding_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    src = (
        "# -*- coding: latin-1 -*-\r\nimport torch\r\n\r\n\r\nclass M(torch.nn.Module):\r\n"
        "    def forward(self, x):\r\n        print('caf\xe9', x.shape)\r\n        return x\r\n"
    )
    latin = tmp_path / "latin.py"
    latin.write_bytes(src.encode("latin-1"))
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + src.replace("# -*- coding: latin-1 -*-\r\n", "").encode())
    os.chmod(latin, 0o640)
    run = fix_paths([str(latin), str(bom)], Config(select=("CL201",), cache=False))
    assert sorted(run.written) == sorted([str(latin), str(bom)])
    got = latin.read_bytes()
    assert got.decode("latin-1").count("\r\n") == got.decode("latin-1").count("\n")
    assert "print('caf\xe9'".encode("latin-1") in got
    assert b"if not torch.compiler.is_compiling():\r\n" in got
    assert os.stat(latin).st_mode & 0o777 == 0o640
    got = bom.read_bytes()
    assert got.startswith(b"\xef\xbb\xbfimport torch\r\n")
    assert b"\n" not in got.replace(b"\r\n", b"")


def test_diff_writes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    shutil.copy(FIXDIR / "CL201_before.py", work)
    before = work.read_bytes()
    mtime = os.stat(work).st_mtime_ns
    res = CliRunner().invoke(main, ["fix", str(work), "--diff"])
    assert res.exit_code == 1, res.output
    assert "+        if not torch.compiler.is_compiling():" in res.stdout
    assert work.read_bytes() == before and os.stat(work).st_mtime_ns == mtime
    assert not [p for p in tmp_path.iterdir() if p.name != "m.py"]


def test_fix_cli_applies_and_is_idempotent(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    shutil.copy(FIXDIR / "CL201_before.py", work)
    res = CliRunner().invoke(main, ["fix", str(work), "--select", "CL201"])
    assert res.exit_code == 0, res.output
    assert "CL201 fixed" in res.output and "Fixed 8 findings in 1 file." in res.output
    assert work.read_bytes() == (FIXDIR / "CL201_after.py").read_bytes()
    res = CliRunner().invoke(main, ["fix", str(work), "--select", "CL201", "--diff"])
    assert res.exit_code == 0, res.output


def test_fix_cli_errors(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fix", str(tmp_path / "nope.py")])
    assert r.exit_code == 2 and "compilelint: error: path not found" in r.output
    r = CliRunner().invoke(main, ["fix", str(tmp_path), "--verify"])
    assert r.exit_code == 2 and "--verify needs --input-spec" in r.output
    spec = tmp_path / "spec.json"
    spec.write_text('{"model": "m.py:M", "inputs": [{"tensor": [2], "dtype": "flaot32"}]}')
    r = CliRunner().invoke(main, ["fix", str(tmp_path), "--verify", "--input-spec", str(spec)])
    assert r.exit_code == 2 and "dtype" in r.output and "Traceback" not in r.output


def test_check_fix_applies_safe_fixes_and_reports_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(FIXDIR / "CL101_before.py", tmp_path / "m.py")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["check", "m.py", "--fix", "--no-cache", "--format", "json"])
    assert res.exit_code == 1
    text = (tmp_path / "m.py").read_text(encoding="utf-8")
    assert "if not torch.compiler.is_compiling():\n                print" in text
    assert "torch.where(" not in text
    import json

    data = json.loads(res.stdout)
    rules = {f["rule"] for f in data["findings"]}
    assert "CL201" not in rules and "CL101" in rules
    res = CliRunner().invoke(main, ["check", "m.py", "--fix", "--unsafe-fixes", "--no-cache"])
    assert "torch.where(" in (tmp_path / "m.py").read_text(encoding="utf-8")


def test_attach_edits_match_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(ROOT / "fixtures" / "demo" / "transformer.py", tmp_path / "t.py")
    monkeypatch.chdir(tmp_path)
    cfg = Config(cache=False)
    report = attach_edits(check(["t.py"], cfg), ["t.py"], cfg)
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["CL402"].edits == ()
    text = (tmp_path / "t.py").read_text(encoding="utf-8")
    item = by_rule["CL103"]
    assert [(e.line, e.col, e.end_line, e.end_col, e.content) for e in item.edits] == [
        (40, 30, 40, 34, "detach"),
        (44, 24, 44, 34, "torch.clamp(peak, min="),
    ]
    fixed = apply_edits(text, item.edits)
    assert "peak = h.abs().max().detach()  #" in fixed
    assert "return x + h / torch.clamp(peak, min=1.0)" in fixed
    branch = by_rule["CL101"]
    assert branch.edits and branch.edits[0].line == 41
    safe_only = attach_edits(check(["t.py"], cfg), ["t.py"], cfg, unsafe=False)
    assert all(not f.edits for f in safe_only.findings)


def test_fix_copy_leaves_the_source_alone(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    (src / "pkg").mkdir(parents=True)
    shutil.copy(FIXDIR / "CL201_before.py", src / "pkg" / "m.py")
    before = (src / "pkg" / "m.py").read_bytes()
    run = fix_copy(str(src), str(tmp_path / "copy"))
    assert (src / "pkg" / "m.py").read_bytes() == before
    assert [r.rule for r in run.records if r.status == "applied"] == ["CL201"] * 8
    assert "is_compiling" in (tmp_path / "copy" / "pkg" / "m.py").read_text(encoding="utf-8")
    with pytest.raises(FileExistsError):
        fix_copy(str(src), str(tmp_path / "copy"))


def test_records_are_plain_data() -> None:
    run = fix_paths([str(FIXDIR / "CL104_before.py")], Config(select=("CL104",)), write=False)
    assert [dataclasses.asdict(r)["status"] for r in run.records] == [
        "applied",
        "applied",
        "applied",
        "no-fix",
    ]
    assert (FIXDIR / "CL104_before.py").read_bytes() == run.changes[0].before


def test_docs_fix_table_is_generated_from_the_catalogue() -> None:
    from compilelint.docs import GENERATED, render_generated

    page = (ROOT / "docs" / "autofix.md").read_text(encoding="utf-8")
    marker = GENERATED.format(name="fix-table")
    assert marker in page
    table = render_generated(marker, CATALOG)
    for code in FIXABLE:
        assert f"`{code}`" in table and CATALOG.rules[code].fix_reason in table


def _corpus() -> list[tuple[str, str]]:
    out = [
        (f"{r.code}_{ex.kind}_{i}.py", ex.code)
        for r in CATALOG.rules.values()
        for i, ex in enumerate(r.examples)
    ]
    for p in sorted((ROOT / "fixtures").rglob("*.py")):
        if "fix" not in p.relative_to(ROOT / "fixtures").parts[:1]:
            rel = p.relative_to(ROOT).as_posix().replace("/", "_")
            out.append((rel, p.read_text(encoding="utf-8")))
    return out


def test_every_example_and_fixture_fixes_cleanly(tmp_path: Path) -> None:
    """Over every rule example and fixture: no codemod crashes, the fixed code compiles, and
    fixing it again changes nothing."""
    applied = 0
    for name, src in _corpus():
        p = tmp_path / name
        p.write_text(src, encoding="utf-8")
        cfg = Config(cache=False, select=("ALL",))
        res = run_fixes([str(p)], cfg, unsafe=True)
        assert not [r for r in res.records if "internal error" in r.reason], name
        for c in res.changes:
            compile(decode(c.after), name, "exec")
            p.write_bytes(c.after)
            assert not run_fixes([str(p)], cfg, unsafe=True).changes, f"{name}: not idempotent"
        applied += sum(r.status == "applied" for r in res.records)
    assert applied >= 30


def test_item_whose_other_use_was_guarded_is_fixed_next_round(tmp_path: Path) -> None:
    """The logging guard lands first; the `.item()` whose value the log line also read is
    fixed in the next round, the guarded (eager-only) use reading `.item()` itself."""
    work = tmp_path / "m.py"
    work.write_text(
        "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        spread = x.std().item()\n"
        '        logger.debug("spread %.3f", spread)\n'
        "        return x / max(spread, 1.0)\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL103", "CL202"), cache=False), unsafe=True)
    fixed = decode(res.changes[0].after)
    assert res.rounds >= 2
    assert "        spread = x.std().detach()\n" in fixed
    assert (
        "        if not torch.compiler.is_compiling():\n"
        '            logger.debug("spread %.3f", spread.item())\n'
    ) in fixed
    assert "return x / torch.clamp(spread, min=1.0)" in fixed
    assert {r.status for r in res.records} == {"applied"}
    # a use outside a guard still blocks the fix
    work.write_text(
        fixed.replace("x.std()", "x.std().item()").replace(
            "return x /", "y = [spread]\n        return x /"
        )
    )
    res = run_fixes([str(work)], Config(select=("CL103",), cache=False), unsafe=True)
    assert not res.changes
    assert [r.status for r in res.records] == ["no-fix"]


def test_cast_whose_only_use_is_logged_stays_a_tensor(tmp_path: Path) -> None:
    """`n = int(t)` read only by a log line: the log line is guarded, then `n` stays a 0-d
    tensor and the guarded use converts it back with `int(n)`."""
    work = tmp_path / "m.py"
    work.write_text(
        "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        n = int((x > 0).sum())\n"
        '        logger.info("active %d", n)\n'
        "        lam = x.mean().item()\n"
        "        lam = max(lam, 1 - lam)\n"
        "        return x * lam / max(abs(n), 1)\n",
        encoding="utf-8",
    )
    cfg = Config(select=("CL102", "CL103", "CL202"), cache=False)
    res = run_fixes([str(work)], cfg, unsafe=True)
    fixed = decode(res.changes[0].after)
    assert "        n = torch.trunc((x > 0).sum().detach())\n" in fixed
    assert '            logger.info("active %d", int(n))\n' in fixed
    assert "        lam = torch.maximum(lam, 1 - lam)\n" in fixed
    assert "return x * lam / torch.clamp(torch.abs(n), min=1)" in fixed
    assert {r.status for r in res.records} == {"applied"}
    # a second binding that is not from the tensor value blocks the fix
    work.write_text(
        fixed.replace("lam = torch.maximum(lam, 1 - lam)", "lam = 0.5").replace(
            "lam = x.mean()", "lam = x.mean().item()"
        ),
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL103",), cache=False), unsafe=True)
    assert [r.status for r in res.records] == ["no-fix"]
    # math of the value follows it (torch.exp), and Python-number expressions are numbers
    work.write_text(
        "import math\n\nimport torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        h = 0.5 * math.log(2 * math.pi) + x.mean().item()\n"
        "        return x * math.exp(-h)\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL103",), cache=False), unsafe=True)
    fixed = decode(res.changes[0].after)
    assert "        h = 0.5 * math.log(2 * math.pi) + x.mean().detach()\n" in fixed
    assert "        return x * torch.exp(-h)\n" in fixed


def test_number_only_read_by_a_report_only_if_runs_in_eager(tmp_path: Path) -> None:
    """`if loss.item() > 100: print(...)`: the whole `if` goes under the eager-only guard."""
    work = tmp_path / "m.py"
    work.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.abs().max().item() > 100:\n"
        '            print("large input")\n'
        "        return x * 2\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL103",), cache=False), unsafe=True)
    fixed = decode(res.changes[0].after)
    assert (
        "        if not torch.compiler.is_compiling():\n"
        "            if x.abs().max().item() > 100:\n"
        '                print("large input")\n'
    ) in fixed
    assert [r.status for r in res.records] == ["applied"]


def test_a_proposal_is_rendered_as_a_diff_and_never_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compilelint.fix.records import Proposal

    work = tmp_path / "m.py"
    src = (
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        print(x.shape)\n"
        "        return x\n"
    )
    work.write_text(src, encoding="utf-8")
    mod = all_codemods()["CL201"]
    real_fix = mod.fix

    def propose(ctx, finding):  # type: ignore[no-untyped-def]
        got = real_fix(ctx, finding)
        assert not isinstance(got, Proposal)
        return Proposal(title=got.title, changes=got.changes, reason="cannot show it is equivalent")

    monkeypatch.setattr(mod, "fix", propose)
    res = run_fixes([str(work)], Config(select=("CL201",), cache=False), unsafe=True)
    assert res.changes == []  # never applied
    (rec,) = res.records
    assert rec.status == "proposed" and rec.reason == "cannot show it is equivalent"
    assert rec.patch.startswith("--- ") and "+        if not torch.compiler.is_compiling():" in (
        rec.patch
    )
    assert work.read_text(encoding="utf-8") == src
    out = CliRunner().invoke(main, ["fix", "--select", "CL201", str(work)])
    assert "CL201 proposed (not applied)" in out.output and "cannot show it" in out.output
    assert "+        if not torch.compiler.is_compiling():" in out.output
    assert work.read_text(encoding="utf-8") == src


SCALAR_KEPT = """\
import math

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.last_ppl = None
        self.seen = None

    def forward(self, x):
        loss = x.pow(2).mean()
        self.last_ppl = math.exp(loss.item())
        self.seen = float(x.sum())
        return x, {"loss": loss.item()}

    def report(self):
        return f"{self.seen:.1f}"
"""


def test_scalar_kept_for_observation(tmp_path: Path) -> None:
    """Kept on `self` and read by nobody in the class: a detached tensor (applied); read back
    by another method, or returned: the same patch proposed, never applied."""
    work = tmp_path / "m.py"
    work.write_text(SCALAR_KEPT, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL102", "CL103"), cache=False), unsafe=True)
    by_line = {r.line: r for r in res.records}
    assert by_line[14].status == "applied" and "self.last_ppl" in by_line[14].title
    assert by_line[15].status == "proposed" and "report()" in by_line[15].reason
    assert by_line[16].status == "proposed" and "change type" in by_line[16].reason
    fixed = decode(res.changes[0].after)
    assert "self.last_ppl = torch.exp(loss.detach())" in fixed
    assert "self.seen = float(x.sum())" in fixed and '{"loss": loss.item()}' in fixed


HASH_KEY = """\
import hashlib

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def forward(self, x):
        key = hashlib.md5(f"n-{x.shape[0]}".encode()).hexdigest()
        if key not in self._cache:
            self._cache[key] = torch.ones(x.shape[0])
        return x + self._cache[key][:, None]
"""


def test_hash_used_only_as_a_cache_key(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    work.write_text(HASH_KEY, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL205",), cache=False), unsafe=True)
    assert decode(res.changes[0].after).count('key = f"n-{x.shape[0]}"') == 1
    # the dict's keys are seen elsewhere: the digest is kept
    work.write_text(HASH_KEY + "\n    def keys(self):\n        return list(self._cache)\n")
    res = run_fixes([str(work)], Config(select=("CL205",), cache=False), unsafe=True)
    assert not res.changes and res.records[0].status == "no-fix"


def test_random_branch_keeps_pythons_draw(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    src = (
        "import random\n\nimport torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if self.training and random.random() < 0.5:\n"
        "            x = torch.flip(x, dims=[-1])\n"
        "        return x\n"
    )
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL205",), cache=False), unsafe=True)
    (rec,) = res.records
    assert rec.status == "applied", rec
    after = decode(res.changes[0].after)
    assert "        if self.training:\n" in after
    assert "keep = torch.as_tensor(random.uniform(0.0, 1.0), dtype=torch.float64) < 0.5" in after
    assert "x = torch.where(keep, torch.flip(x, dims=[-1]), x)" in after


def test_scalar_read_back_by_other_code_of_the_file_is_proposed(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    src = (
        "import torch\n\n\nclass Block(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        self.spread = x.std().item()\n"
        "        return x\n\n\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.block = Block()\n\n"
        "    def forward(self, x):\n"
        "        x = self.block(x)\n"
        "        return x * self.block.spread\n"
    )
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL103",), cache=False), unsafe=True)
    (rec,) = res.records
    assert rec.status == "proposed" and "`forward()`" in rec.reason and not res.changes


def test_a_statement_that_also_changes_state_is_not_guarded_whole(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    src = (
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        self.cache.clear() or print(x.shape)\n"
        "        return x\n"
    )
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL201",), cache=False), unsafe=True)
    fixed = decode(res.changes[0].after)
    assert "self.cache.clear() or (print(x.shape) if not torch.compiler.is_compiling()" in fixed


def test_a_library_finding_at_the_users_call_is_not_rewritten() -> None:
    """A finding in third-party code is anchored at the user's call of the library (a
    `print` inside `rearrange`): the codemod must not treat that call as the `print`."""
    from compilelint.fix.engine import plan_file
    from compilelint.fix.records import Rewrite
    from compilelint.model import Finding

    src = (
        b"import torch\nfrom lib import rearrange\n\n\nclass M(torch.nn.Module):\n"
        b"    def forward(self, x):\n        return rearrange(x) * 2\n"
    )

    def finding(package: str | None) -> Finding:
        return Finding(
            rule="CL201",
            name="print-in-traced-code",
            path="m.py",
            line=7,
            col=16,
            end_line=7,
            end_col=28,
            severity="error",
            message="`print()` cannot be traced",
            fix="",
            function="M.forward",
            package=package,
        )

    def planned(package: str | None) -> object:
        plan = plan_file("m.py", "/tmp/m.py", src, [finding(package)], CATALOG, None)
        assert plan is not None and len(plan.planned) == 1
        return plan.planned[0].result

    lib = planned("lib==1.0")
    # not the `print` codemod's guard: the user's call goes through a disabled helper
    # (branch fixdev2, `compilelint.fix.library_calls`)
    assert isinstance(lib, Rewrite) and "lib==1.0" in lib.title
    assert "torch.compiler.disable" in lib.title and "is_compiling" not in lib.title
    # the same finding as user code is what the codemod rewrites (the guard above matters)
    assert isinstance(planned(None), Rewrite)


def test_slice_bound_summed_at_once_is_masked_else_proposed(tmp_path: Path) -> None:
    """``x[:, :n].sum(1)`` (every read of ``n``) becomes a masked sum; ``.mean(1)`` (the count
    would change) keeps the proposal, parenthesized so that ``.mean()`` reads the product."""
    work = tmp_path / "m.py"
    head = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, lengths):\n"
    work.write_text(
        head + "        n = int(lengths.max())\n        return x[:, :n].sum(1)\n", encoding="utf-8"
    )
    res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "n = torch.trunc(lengths.max())" in text
    assert "torch.where(n < 0, n + x.shape[1], n), x, 0).sum(1)" in text
    work.write_text(
        head + "        n = int(lengths.max())\n        return x[:, :n].mean(1)\n", encoding="utf-8"
    )
    res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
    (rec,) = res.records
    assert rec.status == "proposed" and not res.changes
    assert ".to(x.dtype)).mean(1)" in rec.patch


def test_trim_reaching_only_sums_is_masked_at_the_sums(tmp_path: Path) -> None:
    """``enc = enc[:, :n]`` whose values only go through position-wise steps to sums over the
    cut dim: the trim goes and the sums are masked; a softmax over a possibly-cut last dim (it
    would mix the cut positions in) or a mean keeps the proposal, which names the use."""
    work = tmp_path / "m.py"
    head = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.proj = torch.nn.Linear(4, 5)\n\n"
        "    def forward(self, enc, lengths):\n        n = int(lengths.max())\n"
        "        enc = enc[:, :n]\n"
    )
    work.write_text(
        head + "        logp = self.proj(enc).log_softmax(-1)\n        return logp.sum(dim=1)\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "enc = enc[:, :n]" not in text
    assert "keep = torch.arange(enc.shape[1], device=enc.device) < " in text
    assert "return torch.where(keep, logp.movedim(1, -1), 0).sum(-1)" in text
    for tail in ("        return enc.softmax(-1).sum(1)\n", "        return enc.max(1).values\n"):
        work.write_text(head + tail, encoding="utf-8")
        res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
        (rec,) = res.records
        assert rec.status == "proposed" and not res.changes
        assert "the trimmed values reach `return enc." in rec.reason
    # a mean over the cut dimension: the masked sum over the number of kept positions
    work.write_text(head + "        return enc.mean(1)\n", encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "return (torch.where(keep, enc.movedim(1, -1), 0).sum(-1) / keep.sum())" in text


def test_branch_targets_other_than_one_name_are_split(tmp_path: Path) -> None:
    """A tuple of numbers, a key and an attribute assigned in both branches are selected one by
    one; a key set in `__init__` may be assigned in one branch; a key that may be missing
    keeps its branch."""
    work = tmp_path / "m.py"
    work.write_text(
        textwrap.dedent(
            """
            import torch


            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.stats = {"kl": torch.zeros(())}
                    self.seen = {}

                def forward(self, x):
                    if x.max() > 1.0:
                        step, w = 0.1, 2.0
                        self.stats["frac"] = (x > 1.0).float().mean()
                    else:
                        step, w = -0.1, 1.0
                        self.stats["frac"] = torch.zeros(())
                    if x.min() < -1.0:
                        self.stats["kl"] = x.mean()
                    if x.sum() > 0:
                        self.seen["pos"] = x.sum()
                    return x * w + step
            """
        ),
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL101",), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "step = torch.where(cond, 0.1, -0.1)" in text
    assert "w = torch.where(cond, 2.0, 1.0)" in text
    assert (
        'self.stats["frac"] = torch.where(cond, (x > 1.0).float().mean(), torch.zeros(()))' in text
    )
    assert 'self.stats["kl"] = torch.where(x.min() < -1.0, x.mean(), self.stats["kl"])' in text
    assert "if x.sum() > 0:" in text
    (left,) = [r for r in res.records if r.status == "no-fix"]
    assert "may hold no value before the branch (a new key or attribute)" in left.reason


def test_nonzero_ends_unique_loops_and_lazy_layers(tmp_path: Path) -> None:
    """CL110: `nonzero()[-1]` becomes argmax of the running count (the mask computed once), a
    loop over `torch.unique` every class with a presence mask; CL508: a layer built on first
    use becomes `nn.LazyLinear` in `__init__`."""
    work = tmp_path / "m.py"
    work.write_text(
        textwrap.dedent(
            """
            import torch
            from torch import nn


            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = None

                def forward(self, ids, probs, target):
                    last = (ids[0] != 0).nonzero()[-1]
                    losses = []
                    for c in torch.unique(target):
                        losses.append(1 - probs[:, c].mean())
                    if self.head is None:
                        self.head = nn.Linear(probs.shape[-1], 2)
                    return last, torch.stack(losses).mean(), self.head(probs)
            """
        ),
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL110", "CL508"), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "mask = ids[0] != 0\n" in text
    assert "torch.unravel_index(mask.flatten().long().cumsum(0).argmax(), mask.shape)" in text
    assert "for c in range(probs.shape[1]):" in text
    assert "present.append((target == c).any())" in text
    assert "torch.where(torch.stack(present), torch.stack(losses), 0).sum()" in text
    assert "self.head = nn.LazyLinear(2)" in text and "if self.head is None" not in text


def test_python_numbers_selected_only_where_tensor_arithmetic_reads_them(tmp_path: Path) -> None:
    work = tmp_path / "m.py"
    work.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        t = 2.0 if x.max() > 1 else 1.0\n"
        "        k = 2 if x.sum() > 0 else 1\n"
        "        return x[:, :k] / t\n",
        encoding="utf-8",
    )
    res = run_fixes([str(work)], Config(select=("CL101",), cache=False), unsafe=True)
    text = decode(res.changes[0].after)
    assert "t = torch.where(x.max() > 1, 2.0, 1.0)" in text
    assert "k = 2 if x.sum() > 0 else 1" in text
