"""`compilelint server` with a real LSP client (pygls') over pipes: diagnostics on open and
change, quick fixes that remove the break, hover with the rule's docs, the project's config."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types
from pygls.lsp.client import LanguageClient

BREAK = """import torch


class Net(torch.nn.Module):
    def forward(self, x):
        print("shape", x.shape)
        return x * 2
"""

BRANCH = """import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x * 2
        return x
"""


class Client:
    def __init__(self, lc: LanguageClient) -> None:
        self.lc = lc
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.versions: dict[str, int | None] = {}
        self.arrived = asyncio.Event()

        @lc.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions[params.uri] = params.version
            self.arrived.set()

    async def wait_for(self, uri: str, version: int, timeout: float = 60) -> list[types.Diagnostic]:
        async def until() -> list[types.Diagnostic]:
            while self.versions.get(uri, -1) != version:
                self.arrived.clear()
                await self.arrived.wait()
            return list(self.diagnostics[uri])

        return await asyncio.wait_for(until(), timeout)

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.lc.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=version, text=text
                )
            )
        )

    def change(self, uri: str, text: str, version: int) -> None:
        self.lc.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )


def run_session(
    root: Path, body: Callable[[Client], Awaitable[None]], options: dict | None = None
) -> None:
    async def main() -> None:
        lc = LanguageClient("compilelint-test", "1")
        client = Client(lc)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        await lc.start_io(sys.executable, "-m", "compilelint", "server", cwd=str(root), env=env)
        try:
            await asyncio.wait_for(
                lc.initialize_async(
                    types.InitializeParams(
                        capabilities=types.ClientCapabilities(),
                        root_uri=root.as_uri(),
                        initialization_options={"debounce": 0.01, **(options or {})},
                    )
                ),
                120,
            )
            lc.initialized(types.InitializedParams())
            await body(client)
            await asyncio.wait_for(lc.shutdown_async(None), 60)
            lc.exit(None)
        finally:
            if lc._server is not None and lc._server.returncode is None:
                try:
                    await asyncio.wait_for(lc._server.wait(), 10)
                except asyncio.TimeoutError:
                    lc._server.kill()
            await lc.stop()

    asyncio.run(main())


def _code_action(
    actions: Sequence[types.Command | types.CodeAction] | None,
) -> types.CodeAction:
    """The first of ``actions``, which is a code action (the server sends no bare commands)."""
    assert actions and isinstance(actions[0], types.CodeAction)
    return actions[0]


def _text_edits(
    change: types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile,
) -> list[types.TextEdit]:
    """The edits of ``change``, an edit of a document's text made of plain text edits."""
    assert isinstance(change, types.TextDocumentEdit)
    edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
    assert len(edits) == len(change.edits)
    return edits


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def at(p: types.Position) -> int:
        return offsets[p.line] + p.character

    for e in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        text = text[: at(e.range.start)] + e.new_text + text[at(e.range.end) :]
    return text


def test_open_change_fix_hover(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text(BREAK, encoding="utf-8")
    uri = model.as_uri()

    async def body(c: Client) -> None:
        c.open(uri, BREAK)
        diags = await c.wait_for(uri, 1)
        assert [d.code for d in diags] == ["CL201"]
        d = diags[0]
        assert d.source == "compilelint" and d.severity == types.DiagnosticSeverity.Error
        assert (d.range.start.line, d.range.start.character) == (5, 8)  # print(...) on line 6
        assert (d.range.end.line, d.range.end.character) == (5, 31)

        hover = await c.lc.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=5, character=10),
            )
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "# CL201 print-call" in hover.contents.value

        actions = await c.lc.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=d.range,
                context=types.CodeActionContext(diagnostics=[d]),
            )
        )
        action = _code_action(actions)
        assert action.kind == types.CodeActionKind.QuickFix
        assert action.is_preferred
        assert action.edit is not None and action.edit.document_changes is not None
        (doc_edit,) = action.edit.document_changes
        fixed = _apply(BREAK, _text_edits(doc_edit))
        assert "torch.compiler.is_compiling()" in fixed

        c.change(uri, fixed, 2)
        assert await c.wait_for(uri, 2) == []

        # a new break typed into forward: the diagnostic follows the edit
        broken = fixed.replace("return x * 2", "return x * x.sum().item()")
        c.change(uri, broken, 3)
        assert [d.code for d in await c.wait_for(uri, 3)] == ["CL103"]
        # unsafe fixes are not offered unless asked for
        d = c.diagnostics[uri][0]
        actions = await c.lc.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=d.range,
                context=types.CodeActionContext(diagnostics=[d]),
            )
        )
        assert not actions

    run_session(tmp_path, body)


@pytest.mark.slow
def test_unsafe_fixes_and_project_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.compilelint]\nignore = ["CL201"]\n', encoding="utf-8"
    )
    gate = tmp_path / "gate.py"
    gate.write_text(BRANCH, encoding="utf-8")
    noisy = tmp_path / "noisy.py"
    noisy.write_text(BREAK, encoding="utf-8")

    async def body(c: Client) -> None:
        c.open(noisy.as_uri(), BREAK)
        assert await c.wait_for(noisy.as_uri(), 1) == []  # ignored in pyproject.toml
        c.open(gate.as_uri(), BRANCH)
        (d,) = await c.wait_for(gate.as_uri(), 1)
        assert d.code == "CL101"
        actions = await c.lc.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=gate.as_uri()),
                range=d.range,
                context=types.CodeActionContext(diagnostics=[d]),
            )
        )
        action = _code_action(actions)
        assert "[unsafe]" in action.title and not action.is_preferred
        assert action.edit is not None and action.edit.document_changes
        fixed = _apply(BRANCH, _text_edits(action.edit.document_changes[0]))
        assert "torch.where" in fixed
        c.change(gate.as_uri(), fixed, 2)
        assert await c.wait_for(gate.as_uri(), 2) == []

    run_session(tmp_path, body, {"unsafeFixes": True})


@pytest.mark.slow
def test_server_never_imports_torch_or_user_code(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    src = BREAK + f"\nopen({str(marker)!r}, 'w').close()\n"
    model = tmp_path / "model.py"
    model.write_text(src, encoding="utf-8")
    # a sitecustomize that records whether torch gets imported in the server process
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(tmp_path / 'modules')!r}, 'w').write("
        "'torch' if 'torch' in sys.modules else 'clean'))\n",
        encoding="utf-8",
    )
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(probe), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    try:

        async def body(c: Client) -> None:
            c.open(model.as_uri(), src)
            assert [d.code for d in await c.wait_for(model.as_uri(), 1)] == ["CL201"]

        run_session(tmp_path, body)
    finally:
        rest = os.environ["PYTHONPATH"].split(os.pathsep)[1:]
        if rest:
            os.environ["PYTHONPATH"] = os.pathsep.join(rest)
        else:
            del os.environ["PYTHONPATH"]
    assert not marker.exists()
    assert (tmp_path / "modules").read_text() == "clean"
