"""The pre-commit hooks, run by the real pre-commit tool against a temporary git repository.

The hook repository is a committed copy of this project's packaging files (so the test sees the
working tree, not the last commit). `pre-commit try-repo` pip-installs it into its own virtual
environment, the way users get it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
BAD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.max().item()\n"
GOOD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.max()\n"
PRE_COMMIT = shutil.which("pre-commit")
needs_pre_commit = pytest.mark.skipif(
    (PRE_COMMIT is None and importlib.util.find_spec("pre_commit") is None)
    or shutil.which("git") is None,
    reason="pre-commit (the dev extra) and git are needed",
)


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def pre_commit(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    env.pop("PRE_COMMIT", None)
    cmd = [PRE_COMMIT] if PRE_COMMIT else [sys.executable, "-m", "pre_commit"]
    return subprocess.run(
        [*cmd, *args, "--color", "never"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding this project's packaging files, committed."""
    repo = tmp_path_factory.mktemp("hook-repo")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".compilelint_cache")
    for name in ("src", "rules"):
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("user-repo")
    (repo / "bad.py").write_text(BAD, encoding="utf-8")
    (repo / "good.py").write_text(GOOD, encoding="utf-8")
    (repo / "notes.txt").write_text("x.max().item()\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    return repo


def test_manifest() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"compilelint", "compilelint-dynamic"}
    static = hooks["compilelint"]
    assert static["language"] == "python" and static["types"] == ["python"]
    assert "--no-default-paths" in static["entry"]
    dynamic = hooks["compilelint-dynamic"]
    assert dynamic["language"] == "system"
    assert dynamic["pass_filenames"] is False
    assert dynamic["stages"] == ["pre-push", "manual"]


@needs_pre_commit
def test_try_repo_static_hook(hook_repo: Path, user_repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    bad = pre_commit(
        user_repo, home, "try-repo", str(hook_repo), "compilelint", "--files", "bad.py"
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "compilelint" in bad.stdout and "Failed" in bad.stdout
    assert "bad.py:6:16: CL103 [error, predicted]" in bad.stdout

    good = pre_commit(
        user_repo, home, "try-repo", str(hook_repo), "compilelint", "--files", "good.py"
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout and "CL103" not in good.stdout

    # no Python files: pre-commit skips the hook (and the hook itself never scans the cwd)
    none = pre_commit(
        user_repo, home, "try-repo", str(hook_repo), "compilelint", "--files", "notes.txt"
    )
    assert none.returncode == 0, none.stdout + none.stderr
    assert "Skipped" in none.stdout


def head(repo: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def write_config(repo: Path, hook_repo: Path, hook: dict) -> None:
    config = {"repos": [{"repo": str(hook_repo), "rev": head(hook_repo), "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


@needs_pre_commit
def test_installed_hook_environment_has_no_torch(
    hook_repo: Path, user_repo: Path, tmp_path: Path
) -> None:
    """A user's .pre-commit-config.yaml: the hook's own environment gets compilelint and its
    base dependencies, never torch (an optional extra)."""
    write_config(user_repo, hook_repo, {"id": "compilelint"})
    home = tmp_path / "home"
    try:
        res = pre_commit(user_repo, home, "run", "--files", "bad.py", "good.py")
    finally:
        (user_repo / ".pre-commit-config.yaml").unlink()
    assert res.returncode == 1, res.stdout + res.stderr
    assert "bad.py:6:16: CL103" in res.stdout and "good.py" not in res.stdout
    site = [p for p in home.rglob("site-packages") if p.is_dir()]
    assert site, "no hook environment was created"
    installed = {c.name.split("-")[0].lower() for s in site for c in s.iterdir()}
    assert {"compilelint", "libcst", "click"} <= installed
    assert "torch" not in installed


def test_empty_file_list_checks_nothing(user_repo: Path) -> None:
    """What the hook's entry does when pre-commit calls it with no file names (always_run)."""
    from click.testing import CliRunner

    from compilelint.cli import main

    old = os.getcwd()
    os.chdir(user_repo)  # holds bad.py: scanning the cwd would fail
    try:
        res = CliRunner().invoke(main, ["check", "--no-default-paths"], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert res.exit_code == 0 and res.stdout == ""


@needs_pre_commit
@pytest.mark.torch
def test_dynamic_hook_with_spec(hook_repo: Path, tmp_path: Path) -> None:
    """language: system uses the environment's compilelint and torch; args carry the spec."""
    pytest.importorskip("torch")
    if shutil.which("compilelint") is None:
        pytest.skip("the compilelint command is not on PATH")
    repo = tmp_path / "proj"
    repo.mkdir()
    (repo / "net.py").write_text(
        textwrap.dedent(
            """
            import torch


            class Net(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0:
                        x = x * 2
                    return x
            """
        ),
        encoding="utf-8",
    )
    (repo / "spec.json").write_text(
        '{"model": "net.py:Net", "inputs": [{"tensor": [2, 4]}]}', encoding="utf-8"
    )
    write_config(
        repo,
        hook_repo,
        {
            "id": "compilelint-dynamic",
            "args": ["--input-spec", "spec.json", "--max-graph-breaks", "0"],
        },
    )
    git(repo, "init", "-q")
    git(repo, "add", ".")
    home = tmp_path / "home"
    # not in the default (pre-commit) stage
    res = pre_commit(repo, home, "run", "--all-files")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "compilelint (dynamic stage)" not in res.stdout
    res = pre_commit(repo, home, "run", "compilelint-dynamic", "--hook-stage", "manual")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "net.py:7:12: CL101 [error, confirmed]" in res.stdout
    assert "graph-break budget exceeded" in res.stdout
