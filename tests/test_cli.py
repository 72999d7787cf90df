"""The CLI contract: exit codes, JSON shape, errors as one line, suppressions, cache."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.cli import main

from .cli_invoke import invoke

BAD = textwrap.dedent(
    """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            return x.max().item()
    """
)
GOOD = textwrap.dedent(
    """
    import torch

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.where(x.sum() > 0, x * 2, x)
    """
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "good.py").write_text(GOOD, encoding="utf-8")
    return tmp_path


def test_json_contract(tree: Path) -> None:
    code, out, _ = invoke(["check", ".", "--format", "json", "--no-cache"], tree)
    assert code == 1
    data = json.loads(out)
    assert set(data) >= {"version", "torch", "findings", "errors", "summary"}
    assert data["torch"] is None
    f0 = data["findings"][0]
    for key in (
        "rule",
        "name",
        "path",
        "line",
        "col",
        "end_line",
        "end_col",
        "severity",
        "message",
        "fix",
        "stage",
    ):
        assert key in f0
    assert [(f["rule"], f["path"], f["line"], f["col"]) for f in data["findings"]] == [
        ("CL101", "bad.py", 6, 12),
        ("CL103", "bad.py", 8, 16),
    ]
    assert data["summary"]["files"] == 2
    assert data["summary"]["by_rule"] == {"CL101": 1, "CL103": 1}


def test_exit_codes(tree: Path) -> None:
    assert invoke(["check", "good.py", "--no-cache"], tree)[0] == 0
    assert invoke(["check", "bad.py", "--no-cache"], tree)[0] == 1
    assert invoke(["check", "bad.py", "--no-cache", "--fail-on", "never"], tree)[0] == 0
    code, _, err = invoke(["check", "missing.py", "--no-cache"], tree)
    assert code == 2 and "path not found: missing.py" in err


def test_bad_options_are_one_line_errors(tree: Path) -> None:
    code, _, err = invoke(["check", ".", "--select", "CL9999"], tree)
    assert code == 2
    assert err.strip().count("\n") == 0 and "CL9999" in err
    (tree / "pyproject.toml").write_text("[tool.compilelint]\nfail-on = 'sometimes'\n", "utf-8")
    code, _, err = invoke(["check", "."], tree)
    assert code == 2 and "fail-on" in err and "Traceback" not in err


def test_config_and_per_file_ignores(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(
        "[tool.compilelint]\nignore = ['CL103']\nper-file-ignores = { 'good.py' = ['CL1'] }\n",
        "utf-8",
    )
    code, out, _ = invoke(["check", ".", "--format", "json", "--no-cache"], tree)
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["CL101"]


def test_suppressions_and_unused(tmp_path: Path) -> None:
    src = BAD.replace("if x.sum() > 0:", "if x.sum() > 0:  # noqa: CL101").replace(
        "return x.max().item()", "return x.max().item()  # compilelint: ignore[CL103, CL102]"
    )
    (tmp_path / "m.py").write_text(src, "utf-8")
    code, out, _ = invoke(["check", "m.py", "--format", "json", "--no-cache"], tmp_path)
    rules = [(f["rule"], f["line"]) for f in json.loads(out)["findings"]]
    assert rules == [("CL001", 8)]
    assert "CL102" in json.loads(out)["findings"][0]["message"]
    assert code == 0  # CL001 is info, below the default fail-on


def test_parse_error_is_a_finding_and_scan_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def forward(self, x)\n    return x\n", "utf-8")
    (tmp_path / "bad.py").write_text(BAD, "utf-8")
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\nx = '\xe9'\n")
    (tmp_path / "garbage.py").write_bytes(b"\x00\xff\xfe torch \x80")
    code, out, _ = invoke(["check", ".", "--format", "json", "--no-cache"], tmp_path)
    found = [(f["rule"], f["path"]) for f in json.loads(out)["findings"]]
    assert ("CL000", "broken.py") in found and ("CL000", "garbage.py") in found
    assert ("CL101", "bad.py") in found
    assert not any(p == "latin.py" for _, p in found)


def test_cache_gives_identical_results(tree: Path) -> None:
    first = invoke(["check", ".", "--format", "json"], tree)[1]
    assert (tree / ".compilelint_cache").is_dir()
    second = invoke(["check", ".", "--format", "json"], tree)[1]
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "summary"}  # noqa: E731
    assert strip(first) == strip(second)
    (tree / "good.py").write_text(BAD, "utf-8")
    third = json.loads(invoke(["check", ".", "--format", "json"], tree)[1])
    assert {f["path"] for f in third["findings"]} == {"bad.py", "good.py"}


def test_parallel_and_order_independent(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"m{i:02d}.py").write_text(BAD, "utf-8")
    a = invoke(["check", ".", "-j", "1", "--format", "json", "--no-cache"], tmp_path)[1]
    b = invoke(["check", ".", "-j", "2", "--format", "json", "--no-cache"], tmp_path)[1]
    names = [f"m{i:02d}.py" for i in reversed(range(30))]
    c = invoke(["check", *names, "-j", "2", "--format", "json", "--no-cache"], tmp_path)[1]
    drop = lambda s: json.loads(s)["findings"]  # noqa: E731
    assert drop(a) == drop(b) == drop(c)
    assert len(drop(a)) == 60


def test_gitignore_and_exclude(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("bad.py\n", "utf-8")
    code, out, _ = invoke(["check", ".", "--format", "json", "--no-cache"], tree)
    assert json.loads(out)["findings"] == [] and code == 0
    sub = tree / "sub"
    sub.mkdir()
    (sub / "x.py").write_text(BAD, "utf-8")
    code, out, _ = invoke(
        ["check", ".", "--exclude", "sub", "--format", "json", "--no-cache"], tree
    )
    assert json.loads(out)["findings"] == []


def test_rules_and_rule_pages() -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["rules"])
    assert res.exit_code == 0 and "tensor-dependent-branch" in res.stdout
    res = runner.invoke(main, ["rule", "CL101"])
    assert res.exit_code == 0
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert section in res.stdout
    assert "GB0170" in res.stdout
    res = runner.invoke(main, ["rule", "CL999"])
    assert res.exit_code == 2 and "unknown rule" in res.stderr


def test_text_output_plain_when_not_a_tty(tree: Path) -> None:
    code, out, _ = invoke(["check", "bad.py", "--no-cache"], tree)
    assert "\x1b[" not in out
    assert "bad.py:6:12: CL101" in out and "^^^" in out and "fix:" in out


def test_static_stage_never_imports_torch(tree: Path) -> None:
    script = (
        "import sys, runpy\n"
        "sys.argv = ['compilelint', 'check', '.', '--no-cache', '--format', 'json']\n"
        "try:\n    runpy.run_module('compilelint.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('ok', file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True)
    assert "ok" in res.stderr, res.stderr


def test_a_warm_run_imports_neither_libcst_nor_the_walker(tree: Path) -> None:
    """A warm run answers from stored results: the parser and the analyses stay unimported
    (they cost about 0.2 s of a 0.3 s budget; the numbers analysis once pulled them in)."""
    script = (
        "import sys, runpy\n"
        "sys.argv = ['compilelint', 'check', '.']\n"
        "try:\n    runpy.run_module('compilelint.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m == 'libcst'"
        " or m.startswith('compilelint.static.analysis.walker')), file=sys.stderr)\n"
    )
    first = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True)
    assert (tree / ".compilelint_cache").is_dir(), first.stderr
    warm = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, text=True)
    assert warm.stderr.strip().splitlines()[-1] == "[]", warm.stderr


CONTEXT = textwrap.dedent(
    """
    import torch

    class Enc(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8)])

        def forward(self, x):
            for layer in self.layers:
                skip = False
                if self.training:
                    skip = torch.rand([]) < 0.1
                if not skip:
                    x = layer(x)
            if x.dtype == torch.float16 and not torch.isfinite(x).all():
                x = x.clamp(-100.0, 100.0)
            return x
    """
)


def test_compile_context_flags_and_config(tmp_path: Path) -> None:
    """`--mode`/`--dtype` (and `mode`/`dtype` in pyproject) drop the findings that break only
    in another context; the cache keeps one result per context; bad values are one line."""
    (tmp_path / "m.py").write_text(CONTEXT, "utf-8")

    def lines(*flags: str) -> list[int]:
        code, out, _ = invoke(["check", "m.py", "--format", "json", *flags], tmp_path)
        return [f["line"] for f in json.loads(out)["findings"] if f["rule"] == "CL101"]

    assert lines() == [14, 16]
    assert lines("--mode", "eval") == [16]
    assert lines("--dtype", "bfloat16") == [14]
    assert lines("--mode", "train", "--dtype", "float16") == [14, 16]
    assert lines() == [14, 16]  # the stored results of another context are not reused
    (tmp_path / "pyproject.toml").write_text(
        "[tool.compilelint]\nmode = 'eval'\ndtype = 'float32'\n", "utf-8"
    )
    assert lines() == []
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\nmode = 'inference'\n", "utf-8")
    code, _, err = invoke(["check", "m.py"], tmp_path)
    assert code == 2 and "mode must be one of eval, train" in err and "Traceback" not in err


def test_compile_context_from_the_input_spec(tmp_path: Path) -> None:
    """With `--input-spec`, what the flags and config leave open comes from the spec's runs: a
    class is run in eval mode with float32 parameters, a spec's `mode` wins, and a factory's
    model keeps its own mode (both contexts reported)."""
    (tmp_path / "m.py").write_text(CONTEXT + "\n\ndef make():\n    return Enc()\n", "utf-8")

    def lines(model: str, *flags: str, mode: str | None = None) -> list[int]:
        spec = {"model": model, "inputs": [{"tensor": [2, 8]}]}
        if mode:
            spec["mode"] = mode
        (tmp_path / "spec.json").write_text(json.dumps(spec), "utf-8")
        args = ["check", "m.py", "--input-spec", "spec.json", "--static-only", "--format", "json"]
        code, out, _ = invoke([*args, "--no-cache", *flags], tmp_path)
        return [f["line"] for f in json.loads(out)["findings"] if f["rule"] == "CL101"]

    assert lines("m.py:Enc") == []
    assert lines("m.py:Enc", mode="train") == [14]
    assert lines("m.py:Enc", "--mode", "train", "--dtype", "float16") == [14, 16]
    assert lines("m.py:make") == [14, 16]
