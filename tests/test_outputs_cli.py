"""Several outputs from one run, the GitHub step summary, and --diff-base against a real git repo."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from compilelint.report.outputs import (
    Output,
    OutputError,
    events_in_order,
    github_changes,
    pair_outputs,
)
from compilelint.vcs import VcsError, changed_lines, parse_unified_diff

from .cli_invoke import invoke

BAD = textwrap.dedent(
    """\
    import torch


    class M(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            return x.max().item()
    """
)


# --------------------------------------------------------------------------- pairing


def ev(*args: str) -> list[tuple[str, str]]:
    """ev("-f", "json", "-o", "a") -> [("format", "json"), ("output", "a")]."""
    pairs = list(zip(args[::2], args[1::2]))
    return [("format" if k == "-f" else "output", v) for k, v in pairs]


def test_pairing_rule() -> None:
    assert pair_outputs([]) == [Output("text", None)]
    assert pair_outputs(ev("-o", "r.txt")) == [Output("text", "r.txt")]
    assert pair_outputs(ev("-f", "github", "-f", "markdown", "-o", "s.md")) == [
        Output("github", None),
        Output("markdown", "s.md"),
    ]
    assert pair_outputs(ev("-f", "json", "-o", "a.json", "-f", "sarif")) == [
        Output("json", "a.json"),
        Output("sarif", None),
    ]
    # an --output before its --format pairs with the next one; "-" is stdout
    assert pair_outputs(ev("-o", "a.sarif", "-f", "sarif", "-f", "html", "-o", "-")) == [
        Output("sarif", "a.sarif"),
        Output("html", None),
    ]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (ev("-f", "json", "-f", "sarif"), "only one --format can write to stdout, got json, sarif"),
        (ev("-f", "json", "-o", "a", "-o", "b"), "--output b has no --format after it"),
        (
            ev("-f", "json", "-o", "a", "-f", "sarif", "-o", "a"),
            "two formats write to the same file",
        ),
        (ev("-o", "a", "-o", "b", "-f", "json"), "--output b has no --format of its own"),
        (ev("-f", "xml"), "unknown format 'xml'"),
    ],
)
def test_pairing_errors(events: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(OutputError, match=message.replace("(", r"\(")):
        pair_outputs(events)


def test_events_keep_command_line_order() -> None:
    order = ["format", "output", "format"]
    assert events_in_order(order, ["json", "sarif"], ["a"]) == ev(
        "-f", "json", "-o", "a", "-f", "sarif"
    )
    assert events_in_order(None, ["json"], ["a"]) == ev("-f", "json", "-o", "a")


def test_cli_writes_every_format(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    args = [
        "check",
        "bad.py",
        "--no-cache",
        "--format",
        "json",
        "-o",
        "r.json",
        "--format",
        "github",
    ]
    args += ["--format", "markdown", "-o", "r.md", "--format", "sarif", "-o", "r.sarif"]
    args += ["--format", "html", "-o", "r.html", "--format", "table", "-o", "r.txt"]
    code, out, err = invoke(args, tmp_path)
    assert code == 1, err
    assert out.startswith("::error file=bad.py,line=6,endLine=6,col=12,endColumn=23,title=CL101")
    assert [f["rule"] for f in json.loads((tmp_path / "r.json").read_text())["findings"]] == [
        "CL101",
        "CL103",
    ]
    assert "[bad.py:6](bad.py#L6)" in (tmp_path / "r.md").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert "<mark>x.sum() &gt; 0</mark>" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "bad.py:8:16" in (tmp_path / "r.txt").read_text(encoding="utf-8")


def test_cli_pairing_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    code, out, err = invoke(["check", "bad.py", "--format", "json", "--format", "sarif"], tmp_path)
    assert code == 2 and out == ""
    assert err == (
        "compilelint: error: only one --format can write to stdout, got json, sarif; "
        "give the others an --output\n"
    )
    code, _, err = invoke(["check", "bad.py", "--format", "json", "-o", "a", "-o", "b"], tmp_path)
    assert code == 2 and err.count("\n") == 1 and "--output b" in err
    code, _, err = invoke(
        ["check", "bad.py", "-o", str(tmp_path / "no" / "such" / "x.txt")], tmp_path
    )
    assert (
        code == 2 and err.startswith("compilelint: error: cannot write ") and err.count("\n") == 1
    )


def test_step_summary_is_appended_never_truncated(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    summary = tmp_path / "step_summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    code, out, _ = invoke(["check", "bad.py", "--no-cache", "--format", "github"], tmp_path, env)
    assert code == 1 and out.startswith("::error ")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n\n## compilelint\n")
    assert "| CL101 `tensor-dependent-branch`" in text
    # a markdown output naming the summary file is appended too, and not written twice
    args = [
        "check",
        "bad.py",
        "--no-cache",
        "--format",
        "github",
        "--format",
        "markdown",
        "-o",
        str(summary),
    ]
    invoke(args, tmp_path, env)
    assert summary.read_text(encoding="utf-8").count("## compilelint") == 2
    assert summary.read_text(encoding="utf-8").startswith("# earlier step\n")
    # no github format: the summary is left alone
    invoke(["check", "bad.py", "--no-cache", "--format", "json"], tmp_path, env)
    assert summary.read_text(encoding="utf-8").count("## compilelint") == 2


# --------------------------------------------------------------------------- git


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: bad.py and old.py. Branch `feature`: bad.py line 8 edited (committed), old.py
    renamed to new.py with line 6 edited (staged), fresh.py untracked."""
    git(tmp_path, "init", "-q")
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "old.py").write_text(
        BAD + "\n\n# a longer file keeps the rename similar\n" * 3, encoding="utf-8"
    )
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    lines = BAD.splitlines(keepends=True)
    lines[7] = "        return x.max().item()  # edited\n"
    (tmp_path / "bad.py").write_text("".join(lines), encoding="utf-8")
    git(tmp_path, "commit", "-qam", "edit")
    git(tmp_path, "mv", "old.py", "new.py")
    text = (
        (tmp_path / "new.py")
        .read_text(encoding="utf-8")
        .replace("if x.sum() > 0:", "if x.mean() > 0:")
    )
    (tmp_path / "new.py").write_text(text, encoding="utf-8")
    git(tmp_path, "add", "new.py")
    (tmp_path / "fresh.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def test_changed_lines(repo: Path) -> None:
    ch = changed_lines("main", [str(repo)])
    assert ch.files[os.path.realpath(repo / "bad.py")] == frozenset({8})
    assert ch.files[os.path.realpath(repo / "new.py")] == frozenset({6})  # rename: edited line only
    assert ch.files[os.path.realpath(repo / "fresh.py")] is None  # untracked: all lines
    assert os.path.realpath(repo / "old.py") not in ch.files
    assert len(ch.merge_base) == 40
    assert ch.touches(str(repo / "bad.py"), 7, 9) and not ch.touches(str(repo / "bad.py"), 6)


def test_diff_base_restricts_findings(repo: Path) -> None:
    code, out, err = invoke(
        ["check", ".", "--no-cache", "--format", "json", "--diff-base", "main"], repo
    )
    assert code == 1, err
    data = json.loads(out)
    got = sorted((f["path"], f["line"], f["rule"]) for f in data["findings"])
    assert got == [
        ("bad.py", 8, "CL103"),
        ("fresh.py", 6, "CL101"),
        ("fresh.py", 8, "CL103"),
        ("new.py", 6, "CL101"),
    ]
    assert data["summary"]["findings"] == 4
    assert data["diff_base"]["ref"] == "main" and data["diff_base"]["dropped_findings"] == 2
    # from a subfolder path, against HEAD (nothing committed changed): only the worktree edits
    code, out, _ = invoke(
        ["check", "new.py", "--no-cache", "--format", "json", "--diff-base", "HEAD"], repo
    )
    assert [(f["path"], f["line"]) for f in json.loads(out)["findings"]] == [("new.py", 6)]


def test_diff_base_errors_are_one_line(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    code, _, err = invoke(["check", ".", "--diff-base", "no-such-branch"], repo)
    assert code == 2 and err.startswith(
        "compilelint: error: --diff-base: unknown git ref 'no-such-branch'"
    )
    assert err.count("\n") == 1
    plain = tmp_path_factory.mktemp("plain")
    (plain / "bad.py").write_text(BAD, encoding="utf-8")
    code, _, err = invoke(["check", "bad.py", "--diff-base", "main"], plain)
    assert (
        code == 2
        and err == "compilelint: error: --diff-base: bad.py is not inside a git repository\n"
    )
    empty = tmp_path_factory.mktemp("nogit")
    code, _, err = invoke(["check", ".", "--diff-base", "main"], repo, env={"PATH": str(empty)})
    assert code == 2 and err == (
        "compilelint: error: --diff-base: git was not found on PATH (needed to compute changed lines)\n"
    )


def test_github_base_ref_narrows_annotations(repo: Path) -> None:
    changes, warning = github_changes([str(repo)], {"GITHUB_BASE_REF": "main"})
    assert warning is None and changes is not None and changes.ref == "main"
    changes, warning = github_changes([str(repo)], {"GITHUB_BASE_REF": "gone"})
    assert changes is None and warning is not None and "unknown git ref 'gone'" in warning
    code, out, err = invoke(
        ["check", ".", "--no-cache", "--format", "github"], repo, {"GITHUB_BASE_REF": "gone"}
    )
    assert "compilelint: warning: cannot find the lines changed against gone" in err
    assert out.count("::error ") == 6


def test_parse_unified_diff_quoting_and_deletions() -> None:
    diff = textwrap.dedent(
        """\
        diff --git a/x.py b/x.py
        --- a/x.py
        +++ b/x.py
        @@ -3,0 +4,2 @@
        +a
        +b
        @@ -10 +12 @@
        -c
        +d
        @@ -20,3 +21,0 @@
        diff --git "a/sp ace\\303\\251.py" "b/sp ace\\303\\251.py"
        +++ "b/sp ace\\303\\251.py"
        @@ -1 +1 @@
        diff --git a/gone.py b/gone.py
        +++ /dev/null
        @@ -1,2 +0,0 @@
        """
    )
    assert parse_unified_diff(diff) == {"x.py": frozenset({4, 5, 12}), "sp aceé.py": frozenset({1})}


def test_vcs_error_type() -> None:
    with pytest.raises(VcsError):
        changed_lines("main", ["/"])
