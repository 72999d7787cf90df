"""Both torch runners (the dynamic stage's and bench's) answer a failed ``import torch`` with the
same error record: the install hint as the one-line message, the import's own text as detail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import argparse, json, sys
sys.modules["torch"] = None  # `import torch` raises ImportError from here on
from compilelint.dynamic import runner as dyn
from compilelint.bench import runner as bench

spec_path = sys.argv[1]
d = dyn.run(dyn.load_spec(spec_path), sys.argv[2])
ns = argparse.Namespace(
    mode="eager", backend="inductor", train=False, dtype=None, warmup=1, steps=1,
    warmup_seconds=0.0, attribution_steps=1, device=None, save_reference=None, reference=None,
    spec=spec_path,
)
b = bench.run(ns, sys.argv[2])
print(json.dumps({"dynamic": d["error"], "bench": b["error"]}))
"""


def test_both_runners_give_one_record_without_torch(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("class M:\n    pass\n", encoding="utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"model": "m.py:M", "inputs": []}), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(spec), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["dynamic"] == got["bench"]
    assert got["dynamic"]["step"] == "import torch"
    assert got["dynamic"]["type"] == "ImportError"
    assert got["dynamic"]["message"].startswith("torch is not installed: pip install")
    assert "torch" in got["dynamic"]["detail"]
