"""The composite GitHub Action (action.yml), its run steps executed locally with bash.

Each `run:` step gets its `${{ inputs.* }}` and `${{ github.action_path }}` substituted, the
GITHUB_* variables a runner sets (GITHUB_STEP_SUMMARY and GITHUB_OUTPUT are temporary files),
and a fresh virtual environment's `python` first on PATH, so that the install step really
pip-installs the action's own checkout (a committed copy of this project's packaging files).
The venv sees this interpreter's site-packages (torch, libcst, ...) through a plain path file,
so nothing but compilelint itself is installed. `uses:` steps (setup-python) are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
BAD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.max().item()\n"
GOOD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.max()\n"
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed"),
]


def substitute(text: str, inputs: dict[str, str], action_path: Path) -> str:
    def value(m: re.Match[str]) -> str:
        expr = m.group(1)
        if expr == "github.action_path":
            return str(action_path)
        if expr.startswith("inputs."):
            name = expr[len("inputs.") :]
            assert name in ACTION["inputs"], f"action.yml uses an undeclared input {name!r}"
            return inputs.get(name, ACTION["inputs"][name].get("default", ""))
        raise AssertionError(f"the test does not know the expression {expr!r}")

    return EXPR.sub(value, text)


class Runner:
    """Runs the action's steps like a runner would, in one job."""

    def __init__(self, tmp: Path, action_path: Path, venv_bin: Path) -> None:
        self.tmp = tmp
        self.action_path = action_path
        self.venv_bin = venv_bin

    def run_step(
        self, name: str, workspace: Path, inputs: dict[str, str], summary: Path, output: Path
    ) -> subprocess.CompletedProcess[str]:
        [step] = [s for s in ACTION["runs"]["steps"] if s.get("name") == name]
        assert "run" in step and step["shell"] == "bash"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTHON"))}
        env.update(
            {
                "PATH": f"{self.venv_bin}{os.pathsep}{os.environ['PATH']}",
                "CI": "true",
                "GITHUB_ACTIONS": "true",
                "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_ACTION_PATH": str(self.action_path),
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_OUTPUT": str(output),
                "GITHUB_SERVER_URL": "https://github.com",
                "GITHUB_REPOSITORY": "acme/models",
                "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
                "GITHUB_EVENT_NAME": "push",
            }
        )
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(str(v), inputs, self.action_path)
        script = substitute(step["run"], inputs, self.action_path)
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    def check(self, workspace: Path, **inputs: str) -> tuple[int, str, str, dict[str, str]]:
        """Run "Run compilelint"; (exit status, stdout, step summary, step outputs)."""
        summary = self.tmp / f"summary-{workspace.name}.md"
        summary.write_text("# earlier step\n", encoding="utf-8")
        output = self.tmp / f"output-{workspace.name}.txt"
        output.write_text("", encoding="utf-8")
        res = self.run_step("Run compilelint", workspace, inputs, summary, output)
        outputs = dict(
            line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines()
        )
        return res.returncode, res.stdout + res.stderr, summary.read_text("utf-8"), outputs


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    tmp = tmp_path_factory.mktemp("action")
    action_path = tmp / "action-checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".compilelint_cache")
    for name in ("src", "rules"):
        shutil.copytree(ROOT / name, action_path / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy2(ROOT / name, action_path / name)
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bin_dir / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # This interpreter's installed packages, as plain paths (their .pth files, e.g. an editable
    # compilelint, are not processed), after the venv's own site-packages.
    parents = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    Path(purelib, "_parent_site.pth").write_text("\n".join(parents) + "\n", encoding="utf-8")
    r = Runner(tmp, action_path, bin_dir)
    ws = tmp / "install-ws"
    ws.mkdir()
    res = r.run_step("Install compilelint", ws, {}, tmp / "s.md", tmp / "o.txt")
    assert res.returncode == 0, res.stdout + res.stderr
    where = subprocess.run(
        [str(py), "-c", "import compilelint, os; print(os.path.realpath(compilelint.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    ).stdout.strip()
    assert where.startswith(os.path.realpath(env_dir)), where  # the action's own install
    return r


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "bad.py").write_text(BAD, encoding="utf-8")
    (ws / "good.py").write_text(GOOD, encoding="utf-8")
    return ws


def test_inputs_are_declared() -> None:
    assert set(ACTION["inputs"]) >= {
        "paths",
        "input-spec",
        "fail-on",
        "format",
        "baseline",
        "python-version",
    }
    assert ACTION["runs"]["using"] == "composite"
    [setup] = [s for s in ACTION["runs"]["steps"] if "uses" in s]
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["if"] == "inputs.python-version != ''"


def test_findings_become_annotations_and_a_summary(runner: Runner, project: Path) -> None:
    code, out, summary, outputs = runner.check(project)
    assert code == 1  # an error finding, default fail-on (warning)
    assert outputs == {"exit-code": "1", "report-file": ""}
    assert (
        "::error file=bad.py,line=6,endLine=6,col=16,endColumn=30,title=CL103 tensor-item::"
        "`x.max().item()` reads a tensor's value into Python" in out
    )
    assert "good.py" not in out
    # appended after the earlier step's summary, a ranked markdown table linking to the commit
    assert summary.startswith("# earlier step\n")
    assert "| location" in summary or "| #" in summary
    assert "[bad.py:6](https://github.com/acme/models/blob/0123456789abcdef" in summary
    assert summary.count("bad.py:6]") == 1  # once, not once per format


def test_fail_on_and_clean_tree(runner: Runner, project: Path) -> None:
    code, out, _, outputs = runner.check(project, **{"fail-on": "never"})
    assert code == 0 and outputs["exit-code"] == "0"
    assert "::error file=bad.py" in out  # still annotated
    code, out, summary, _ = runner.check(project, paths="good.py")
    assert code == 0
    assert "::error" not in out and "::warning" not in out
    assert "No findings" in summary or "0 findings" in summary


def test_extra_format_file(runner: Runner, project: Path) -> None:
    code, _, _, outputs = runner.check(project, format="sarif", **{"fail-on": "error"})
    assert code == 1
    assert outputs["report-file"] == "compilelint-report.sarif"
    sarif = json.loads((project / "compilelint-report.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["CL103"]


def test_baseline_input(runner: Runner, project: Path) -> None:
    created = subprocess.run(
        [str(runner.venv_bin / "python"), "-m", "compilelint.cli", "baseline", "create", "."],
        cwd=project,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert created.returncode == 0, created.stderr
    code, out, _, _ = runner.check(project, baseline=".compilelint-baseline.json")
    assert code == 0, out
    assert "::error" not in out
    (project / "new.py").write_text(BAD.replace("x.max()", "x.min()"), encoding="utf-8")
    code, out, _, _ = runner.check(project, baseline=".compilelint-baseline.json")
    assert code == 1
    assert "::error file=new.py,line=6" in out and "file=bad.py" not in out


@pytest.mark.torch
def test_input_spec_and_budget_args(runner: Runner, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    ws = tmp_path / "dyn"
    ws.mkdir()
    (ws / "net.py").write_text(
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
    (ws / "spec.json").write_text(
        '{"model": "net.py:Net", "inputs": [{"tensor": [2, 4]}]}', encoding="utf-8"
    )
    # torch is importable: the install step keeps it (no download of another build)
    res = runner.run_step(
        "Install compilelint",
        ws,
        {"input-spec": "spec.json"},
        tmp_path / "s.md",
        tmp_path / "o.txt",
    )
    assert res.returncode == 0, res.stderr
    assert "compilelint: using the installed torch" in res.stdout
    code, out, summary, _ = runner.check(
        ws, **{"input-spec": "spec.json", "fail-on": "never", "args": "--max-graph-breaks 0"}
    )
    assert code == 1, out  # the budget, not the findings (fail-on never)
    assert "::error file=net.py,line=7" in out and "GB0170" in out
    assert "graph-break budget exceeded" in out
    assert "graph-break budget exceeded" in summary
