"""Baselines: `baseline create`, `check --baseline`, matching that survives edits, fixed entries."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from compilelint.baseline import (
    BaselineError,
    Entry,
    build_baseline,
    dumps,
    load_baseline,
    loads,
    match,
)
from compilelint.model import Finding

from .cli_invoke import invoke

MODEL = textwrap.dedent(
    """
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            peak = x.max().item()
            return x / peak


    def helper(n):
        return n + 1
    """
).lstrip()


def check_json(cwd: Path, *extra: str) -> tuple[int, dict]:
    code, out, err = invoke(["check", ".", "--format", "json", "--no-cache", *extra], cwd)
    assert code in (0, 1), err
    return code, json.loads(out)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "net.py").write_text(MODEL, encoding="utf-8")
    code, out, err = invoke(["baseline", "create", ".", "--no-cache"], tmp_path)
    assert code == 0, err
    assert "Wrote 2 findings (2 entries) to .compilelint-baseline.json" in out
    return tmp_path


def edit(project: Path, old: str, new: str) -> None:
    p = project / "net.py"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_create_writes_sorted_relative_versioned_file(project: Path) -> None:
    data = json.loads((project / ".compilelint-baseline.json").read_text(encoding="utf-8"))
    assert data["compilelint_baseline"] == 1
    rows = [(e["rule"], e["path"], e["function"], e["code"], e["count"]) for e in data["findings"]]
    assert rows == [
        ("CL101", "net.py", "Net.forward", "if x.sum() > 0:", 1),
        ("CL103", "net.py", "Net.forward", "peak = x.max().item()", 1),
    ]
    assert all(len(e["hash"]) == 16 for e in data["findings"])
    assert "line" not in data["findings"][0]  # line numbers would break on every edit


def test_create_is_deterministic(project: Path) -> None:
    first = (project / ".compilelint-baseline.json").read_bytes()
    code, _, _ = invoke(["baseline", "create", "--no-cache", "-o", "again.json"], project)
    assert code == 0
    assert (project / "again.json").read_bytes() == first


def test_check_with_baseline_hides_known_findings(project: Path) -> None:
    code, data = check_json(project)
    assert code == 1 and len(data["findings"]) == 2
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 0
    assert data["findings"] == []
    assert data["baseline"] == {
        "file": ".compilelint-baseline.json",
        "matched": 2,
        "new": 0,
        "fixed": [],
    }
    assert data["summary"]["findings"] == 0


def test_edits_elsewhere_and_moved_lines_keep_matching(project: Path) -> None:
    # lines inserted above, another function changed, the finding's own line re-indented by
    # an added block and with a different trailing comment: same identity.
    edit(project, "import torch\n", "import os\nimport torch\n\nSCALE = 3\n")
    edit(project, "return n + 1", "return n + 2 * SCALE")
    edit(project, "            x = x * 2\n", "            x = x * 2\n            x = x - 1\n")
    edit(project, "peak = x.max().item()", "peak   =  x.max().item()  # known, fix later")
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 0, data["findings"]
    assert data["baseline"]["matched"] == 2


def test_moved_lines_keep_matching(project: Path) -> None:
    edit(
        project,
        "        if x.sum() > 0:\n            x = x * 2\n        peak = x.max().item()\n",
        "        peak = x.max().item()\n        if x.sum() > 0:\n            x = x * 2\n",
    )
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 0
    assert data["baseline"]["matched"] == 2


def test_new_break_is_reported(project: Path) -> None:
    edit(
        project,
        "        return x / peak\n",
        "        low = x.min().item()\n        return x / peak\n",
    )
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("CL103", 9)]
    assert data["baseline"]["new"] == 1 and data["baseline"]["matched"] == 2


def test_identical_findings_are_counted(project: Path) -> None:
    # the same line twice in the same function: one is known, the second is new
    edit(
        project,
        "        return x / peak\n",
        "        peak = x.max().item()\n        return x / peak\n",
    )
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("CL103", 9)]
    # the same line in another function is a different identity
    edit(
        project,
        "    return n + 1\n",
        "    return n + 1\n\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n"
        "        peak = x.max().item()\n        return x / peak\n",
    )
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert len(data["findings"]) == 2
    assert {f["function"] for f in data["findings"]} == {"Net.forward", "Other.forward"}


def test_removed_finding_is_fixed(project: Path) -> None:
    edit(project, "        if x.sum() > 0:\n            x = x * 2\n", "")
    code, data = check_json(project, "--baseline", ".compilelint-baseline.json")
    assert code == 0
    assert data["baseline"]["fixed"] == [
        {
            "rule": "CL101",
            "path": "net.py",
            "function": "Net.forward",
            "code": "if x.sum() > 0:",
            "count": 1,
        }
    ]
    code, out, _ = invoke(["check", ".", "--baseline", ".compilelint-baseline.json"], project)
    assert code == 0
    assert (
        "Baseline .compilelint-baseline.json: 1 known finding hidden, 0 new, 1 fixed "
        "(re-create the baseline to drop them)." in out
    )


def test_baseline_paths_are_relative_to_the_file_not_the_cwd(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "models"
    pkg.mkdir(parents=True)
    (pkg / "net.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "ci").mkdir()
    code, _, err = invoke(
        ["baseline", "create", "src", "--no-cache", "-o", "ci/known.json"], tmp_path
    )
    assert code == 0, err
    data = json.loads((tmp_path / "ci" / "known.json").read_text(encoding="utf-8"))
    assert {e["path"] for e in data["findings"]} == {"../src/models/net.py"}
    # run from another folder: the report's paths change, the identities do not
    code, out, err = invoke(
        ["check", ".", "--no-cache", "--format", "json", "--baseline", "../../ci/known.json"],
        pkg,
    )
    assert code == 0, out + err
    assert json.loads(out)["baseline"]["matched"] == 2


def test_baseline_from_pyproject(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.compilelint]\nbaseline = ".compilelint-baseline.json"\n', encoding="utf-8"
    )
    # found from a subfolder: the path is relative to the pyproject, not the cwd
    code, out, err = invoke(["check", "..", "--no-cache", "--format", "json"], project / "sub")
    assert code == 0, out + err
    assert json.loads(out)["baseline"]["matched"] == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            None,
            "baseline file not found: missing.json (create it with `compilelint baseline create`)",
        ),
        ("{not json", "missing.json: not a valid baseline file: invalid JSON (line 1)"),
        ('{"findings": []}', "missing.json: not a compilelint baseline (no 'compilelint_baseline'"),
        (
            '{"compilelint_baseline": 7, "findings": []}',
            "missing.json: baseline version 7 is not supported (this compilelint reads version 1)",
        ),
        (
            '{"compilelint_baseline": 1, "findings": [{"rule": "CL101", "path": "a.py"}]}',
            "missing.json: findings[0].hash must be a non-empty string",
        ),
        (
            '{"compilelint_baseline": 1, "findings": [{"rule": "CL1", "path": "a", "hash": "h", '
            '"count": 0}]}',
            "missing.json: findings[0].count must be a positive integer",
        ),
    ],
)
def test_bad_baseline_is_one_line_error(project: Path, content: str | None, message: str) -> None:
    if content is not None:
        (project / "missing.json").write_text(content, encoding="utf-8")
    code, out, err = invoke(["check", ".", "--baseline", "missing.json"], project)
    assert code == 2
    assert out == ""
    assert err.startswith("compilelint: error: " + message)
    assert len(err.strip().splitlines()) == 1


def test_create_refuses_incomplete_runs_and_bad_output(project: Path) -> None:
    code, _, err = invoke(["baseline", "create", "-o", "no/such/dir/b.json"], project)
    assert code == 2
    assert "folder" in err and "does not exist" in err
    code, _, err = invoke(["baseline", "create", "--select", "CL9"], project)
    assert code == 2 and "unknown rule code 'CL9'" in err


def finding(rule: str, path: str, function: str, text: str, line: int = 1) -> Finding:
    return Finding(
        rule=rule,
        name="x",
        path=path,
        line=line,
        col=1,
        end_line=line,
        end_col=2,
        severity="error",
        message="m",
        fix="",
        function=function,
        line_text=text,
    )


def test_match_unit(tmp_path: Path) -> None:
    cwd = str(tmp_path)
    a = finding("CL103", "m.py", "f", "    y = x.item()", 3)
    b = finding("CL103", "m.py", "f", "y = x.item()  # moved", 30)
    c = finding("CL101", "m.py", "f", "if x:", 4)
    bl = build_baseline([a, c], cwd, cwd)
    assert [e.count for e in bl.entries] == [1, 1]
    m = match([b, a, c], bl, cwd)
    assert m.matched == 2 and m.new == (a,)  # the first in report order matches
    m = match([], bl, cwd)
    assert [e.rule for e in m.fixed] == ["CL101", "CL103"]
    # round trip through the file format
    again = loads(dumps(bl), cwd)
    assert again.entries == bl.entries
    assert match([a, c], again, cwd).matched == 2
    # the path is part of the identity
    assert match([finding("CL103", "other.py", "f", "y = x.item()")], bl, cwd).matched == 0
    assert Entry("CL1", "a", "h").key == ("CL1", "a", "h")


def test_load_errors_are_baseline_errors(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="not found"):
        load_baseline(str(tmp_path / "nope.json"))
