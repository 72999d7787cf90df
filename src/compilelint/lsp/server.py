"""``compilelint server``: a Language Server over stdio (pygls).

Publishes the static stage's findings as diagnostics when a file is opened, changed (debounced)
or saved, offers the rules' safe fixes as quick fixes, and shows a rule's docs on hover. It never
runs the user's code and never imports torch. Initialization options (all optional):
``{"debounce": 0.05, "unsafeFixes": false, "incremental": true}``.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from compilelint import __version__
from compilelint.docs import rule_doc_page
from compilelint.lsp.analyzer import Analyzer, Checked
from compilelint.model import Edit, Finding

SOURCE = "compilelint"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def to_range(line: int, col: int, end_line: int, end_col: int) -> types.Range:
    """compilelint's 1-based lines and columns (end exclusive) as an LSP range."""
    start = types.Position(line=max(line - 1, 0), character=max(col - 1, 0))
    end = types.Position(line=max(end_line - 1, 0), character=max(end_col - 1, 0))
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return types.Range(start=start, end=end)


def diagnostic(f: Finding) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_range(f.line, f.col, f.end_line, f.end_col),
        message=f"{f.message}\nfix: {f.fix}" if f.fix else f.message,
        severity=SEVERITY.get(f.severity, types.DiagnosticSeverity.Warning),
        code=f.rule,
        source=SOURCE,
        data={"name": f.name, "line": f.line, "col": f.col},
    )


def text_edit(e: Edit) -> types.TextEdit:
    return types.TextEdit(range=to_range(e.line, e.col, e.end_line, e.end_col), new_text=e.content)


def _inside(pos: types.Position, r: types.Range) -> bool:
    return (
        (r.start.line, r.start.character)
        <= (pos.line, pos.character)
        <= (
            r.end.line,
            r.end.character,
        )
    )


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        b.start.line,
        b.start.character,
    ) <= (a.end.line, a.end.character)


class CompilelintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__)
        self.analyzer = Analyzer()
        self.debounce = 0.05
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compilelint")
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.timings: list[float] = []  # seconds per check, for the benchmark

    def schedule(self, uri: str, delay: float) -> None:
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(delay, lambda: loop.create_task(self.publish(uri)))

    async def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        doc = self.workspace.get_text_document(uri)
        path = to_fs_path(uri)
        if path is None or not path.endswith(".py"):
            return
        version, text = doc.version, doc.source
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        try:
            checked = await loop.run_in_executor(self.executor, self.analyzer.check, path, text)
        except Exception as exc:  # a bug must not take the editor's server down
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"compilelint: {exc!r}")
            )
            return
        self.timings.append(time.perf_counter() - t0)
        current = self.workspace.get_text_document(uri)
        if current.version != version or uri in self.pending:
            return  # a newer text is on its way
        if checked.error:
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Warning, f"compilelint: {checked.error}")
            )
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[diagnostic(f) for f in checked.findings]
            )
        )


server = CompilelintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: CompilelintServer, params: types.InitializeParams) -> None:
    opts: Any = params.initialization_options or {}
    if isinstance(opts, dict):
        if isinstance(opts.get("debounce"), (int, float)):
            ls.debounce = max(float(opts["debounce"]), 0.0)
        ls.analyzer.unsafe_fixes = bool(opts.get("unsafeFixes", False))
        ls.analyzer.incremental = bool(opts.get("incremental", True))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: CompilelintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0.0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: CompilelintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: CompilelintServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0.0)
    ls.executor.submit(ls.analyzer.flush)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CompilelintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    path = to_fs_path(uri)
    if path:
        ls.analyzer.forget(path)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.SHUTDOWN)
def shutdown(ls: CompilelintServer, params: None) -> None:
    ls.analyzer.flush()


def _checked(ls: CompilelintServer, uri: str) -> Checked | None:
    path = to_fs_path(uri)
    if path is None:
        return None
    checked = ls.analyzer.last(path)
    doc = ls.workspace.get_text_document(uri)
    if checked is None or checked.text != doc.source:
        return None  # findings of an older text: their ranges no longer fit
    return checked


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
async def code_action(
    ls: CompilelintServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    checked = _checked(ls, uri)
    if checked is None:
        return None
    here = [
        f
        for f in checked.findings
        if _overlaps(to_range(f.line, f.col, f.end_line, f.end_col), params.range)
    ]
    if not here:
        return None
    loop = asyncio.get_running_loop()
    fixes = await loop.run_in_executor(ls.executor, ls.analyzer.fixes, checked, here)
    doc = ls.workspace.get_text_document(uri)
    actions = []
    for f, safety, edits in fixes:
        rule = ls.analyzer.catalog.rules[f.rule]
        title = f"Fix {f.rule} ({rule.name})" + ("" if safety == "safe" else " [unsafe]")
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic(f)],
                is_preferred=safety == "safe",
                edit=types.WorkspaceEdit(
                    document_changes=[
                        types.TextDocumentEdit(
                            text_document=types.OptionalVersionedTextDocumentIdentifier(
                                uri=uri, version=doc.version
                            ),
                            edits=[text_edit(e) for e in edits],
                        )
                    ]
                ),
            )
        )
    return actions or None


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: CompilelintServer, params: types.HoverParams) -> types.Hover | None:
    checked = _checked(ls, params.text_document.uri)
    if checked is None:
        return None
    for f in checked.findings:
        r = to_range(f.line, f.col, f.end_line, f.end_col)
        if _inside(params.position, r):
            rule = ls.analyzer.catalog.rules.get(f.rule)
            if rule is None:
                continue
            return types.Hover(
                contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=rule_doc_page(rule)
                ),
                range=r,
            )
    return None


def main() -> None:
    server.start_io()
