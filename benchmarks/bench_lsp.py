"""Latency of `compilelint server`: from an edit (didChange) to the diagnostics of the edited
text (publishDiagnostics), on a ~2,000-line modeling file of the installed transformers package.

The folder of the model (its package: the file and its siblings) is copied to a temporary
directory; a real LSP client (pygls) starts `python -m compilelint server` over pipes, opens the
file (cold), then makes edits inside `forward` methods spread over the file, each inserting a
`.item()` break (`_probe = torch.zeros(1).item()`) and then removing it again, and times each edit until the diagnostics for that
version arrive (the debounce is set to 0 so that the figure is the server's work plus the
protocol; the editor-side latency adds the debounce, 50 ms by default). Each edit's diagnostics
are checked: the inserted break must be reported, the removed one must be gone.

`--no-incremental` re-parses the whole file on every edit instead (the ablation).

The diagnostics of the last two versions (one with the inserted break, the original text) are
also compared with what `compilelint check` (a separate process, `--no-cache`) reports for the
same text in the same folder: rule, range and message must be the same.

    python benchmarks/bench_lsp.py [--model wav2vec2] [--edits 20] [--no-incremental]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux), to read the server's work apart from the
    machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def model_folder(name: str) -> Path:
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("bench_lsp: needs transformers installed (pip install --no-deps transformers)")
    return Path(spec.origin).parent / "models" / name


async def run(args: argparse.Namespace) -> dict:
    src = model_folder(args.model)
    tmp = Path(tempfile.mkdtemp(prefix="bench-lsp-"))
    work = tmp / args.model
    shutil.copytree(src, work, ignore=shutil.ignore_patterns("__pycache__"))
    target = work / f"modeling_{args.model}.py"
    text = target.read_text(encoding="utf-8")
    lines = text.split("\n")
    forwards = [i for i, ln in enumerate(lines) if ln.strip().startswith("def forward(")]
    # the first statement line of each forward's body (after the signature and docstring)
    sites = []
    for i in forwards:
        j = i
        while not lines[j].rstrip().endswith(":"):
            j += 1
        k = j + 1
        indent = len(lines[k]) - len(lines[k].lstrip())
        if lines[k].strip().startswith(('"""', 'r"""')):
            if lines[k].count('"""') >= 2:  # a one-line docstring
                k += 1
            else:
                while True:
                    k += 1
                    if '"""' in lines[k]:
                        k += 1
                        break
        sites.append((k, " " * indent))

    lc = LanguageClient("bench-lsp", "1")
    got: dict[int, list[types.Diagnostic]] = {}
    arrived = asyncio.Event()

    @lc.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            got[params.version] = params.diagnostics
            arrived.set()

    async def wait(version: int) -> list[types.Diagnostic]:
        while version not in got:
            arrived.clear()
            await arrived.wait()
        return got[version]

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    await lc.start_io(sys.executable, "-m", "compilelint", "server", cwd=str(tmp), env=env)
    await lc.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=tmp.as_uri(),
            initialization_options={"debounce": 0, "incremental": not args.no_incremental},
        )
    )
    lc.initialized(types.InitializedParams())
    uri = target.as_uri()
    t0 = time.perf_counter()
    lc.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    base = await wait(1)
    cold = time.perf_counter() - t0
    n_base = sum(1 for d in base if d.code == "CL103")

    times = []
    cpu = []
    kept: list[tuple[str, list[types.Diagnostic]]] = []
    pid = lc._server.pid if lc._server is not None else None
    wrong = 0
    version = 1
    for e in range(args.edits):
        # spread through the file: the i-th pair of edits is at the i-th of evenly spaced sites
        pairs = max((args.edits + 1) // 2, 1)
        k, indent = sites[min((e // 2) * len(sites) // pairs, len(sites) - 1)]
        inserting = e % 2 == 0
        new_lines = list(lines)
        if inserting:
            new_lines.insert(k, f"{indent}_probe = torch.zeros(1).item()")
        body = "\n".join(new_lines)
        version += 1
        t = time.perf_counter()
        c0 = cpu_seconds(pid) if pid else 0.0
        lc.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=body)],
            )
        )
        diags = await wait(version)
        times.append(time.perf_counter() - t)
        if pid:
            cpu.append(cpu_seconds(pid) - c0)
        kept = [*kept[-1:], (body, diags)]
        n = sum(1 for d in diags if d.code == "CL103")
        expected = n_base + 1 if inserting else n_base
        if n != expected:
            wrong += 1
            print(f"edit {e}: expected {expected} CL103, got {n}", file=sys.stderr)
    await lc.shutdown_async(None)
    lc.exit(None)
    await lc.stop()
    cli_mismatches = 0
    for body, diags in kept:
        target.write_text(body, encoding="utf-8")
        cli_mismatches += compare_with_cli(target, diags)
    target.write_text(text, encoding="utf-8")
    siblings = len(list(work.glob("*.py"))) - 1
    shutil.rmtree(tmp, ignore_errors=True)
    warm = times
    return {
        "file": f"transformers/models/{args.model}/{target.name}",
        "lines": len(lines),
        "siblings": siblings,
        "incremental": not args.no_incremental,
        "cold_open_s": round(cold, 3),
        "edits": len(times),
        "median_ms": round(statistics.median(warm) * 1000, 1),
        "p90_ms": round(sorted(warm)[int(0.9 * (len(warm) - 1))] * 1000, 1),
        "p95_ms": round(sorted(warm)[int(0.95 * (len(warm) - 1))] * 1000, 1),
        "max_ms": round(max(warm) * 1000, 1),
        "server_cpu_median_ms": round(statistics.median(cpu) * 1000, 1) if cpu else None,
        "server_cpu_p95_ms": round(sorted(cpu)[int(0.95 * (len(cpu) - 1))] * 1000, 1)
        if cpu
        else None,
        "findings_open": len(base),
        "wrong_diagnostics": wrong,
        "versions_compared_with_cli": len(kept),
        "differences_from_cli": cli_mismatches,
    }


def compare_with_cli(target: Path, diags: list[types.Diagnostic]) -> int:
    """How many findings differ between the server's diagnostics for ``target``'s text and
    ``compilelint check`` on its folder (printed)."""
    import json
    import subprocess

    out = target.parent.parent / "cli.json"
    subprocess.run(
        [sys.executable, "-m", "compilelint", "check", str(target.parent), "--no-cache",
         "--format", "json", "-o", str(out)],
        cwd=target.parent.parent, capture_output=True, check=False,
    )
    cli = {
        (f["rule"], f["line"] - 1, f["col"] - 1, f["end_line"] - 1, f["end_col"] - 1,
         f["message"] + (f"\nfix: {f['fix']}" if f.get("fix") else ""))
        for f in json.loads(out.read_text(encoding="utf-8"))["findings"]
        if f["path"].endswith(target.name)
    }
    server = {
        (str(d.code), d.range.start.line, d.range.start.character, d.range.end.line,
         d.range.end.character, d.message)
        for d in diags
    }
    for x in sorted(cli - server, key=str):
        print(f"only the CLI: {x}", file=sys.stderr)
    for x in sorted(server - cli, key=str):
        print(f"only the server: {x}", file=sys.stderr)
    return len(cli ^ server)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="wav2vec2")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--no-incremental", action="store_true")
    args = ap.parse_args()
    res = asyncio.run(run(args))
    for k, v in res.items():
        print(f"{k}: {v}")
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
