"""What the editor server computes, without the protocol: findings for an unsaved text, the quick
fixes for them, and rule docs. Static stage only: it never imports torch or runs the user's code.

The edited file is checked together with the Python files beside it (its package), so helpers in
sibling modules are followed across files; unchanged files come from the facts cache (the
project's ``.compilelint_cache`` seeds it, and it lives in memory from then on), and the edited
file is re-parsed only where it changed (``static/incremental.py``).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from compilelint.catalog import Catalog, load_catalog
from compilelint.config import Config, ConfigError, load_config
from compilelint.model import Edit, Finding
from compilelint.static.analysis.project import Project
from compilelint.static.engine import Cache, ScanSettings, _cache_key, resolve_settings, scan
from compilelint.static.incremental import IncrementalParser


class MemoryCache(Cache):
    """The engine's facts cache, read once from the project's cache folder and then kept in
    memory: an editor re-checks on every pause in typing, so nothing is written per check
    (``flush`` writes it back, on save and at shutdown)."""

    def get_results(self, tree_key: str) -> dict | None:  # type: ignore[type-arg]
        return None  # the server needs the project view, never the stored final results

    def put_results(self, tree_key: str, data: dict) -> None:  # type: ignore[type-arg]
        pass

    def save(self) -> None:
        pass

    def flush(self) -> None:
        Cache.save(self)


@dataclass
class Checked:
    """The last check of one document."""

    real: str
    text: str
    findings: list[Finding]
    project: Project | None
    error: str | None = None


@dataclass
class _Root:
    config: Config
    cache: MemoryCache | None
    settings: ScanSettings  # resolved once: rules, checks, search path, caches in memory


@dataclass
class Analyzer:
    catalog: Catalog = field(default_factory=load_catalog)
    unsafe_fixes: bool = False
    incremental: bool = True  # re-parse only what changed (off: a full parse per check)
    parser: IncrementalParser = field(default_factory=IncrementalParser)
    _roots: dict[str, _Root] = field(default_factory=dict)
    _last: dict[str, Checked] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _root(self, path: str) -> _Root:
        cfg = load_config([path])  # raises ConfigError on a bad [tool.compilelint]
        key = cfg.source or os.path.dirname(path)
        got = self._roots.get(key)
        if got is None or got.config != cfg:
            cache = None
            if cfg.cache:
                cdir = (
                    Path(cfg.cache_dir) if cfg.cache_dir else Path(cfg.root) / ".compilelint_cache"
                )
                cache = MemoryCache(cdir, _cache_key(self.catalog))
            settings = resolve_settings(cfg, self.catalog, cache=cache)
            got = _Root(cfg, cache, settings)
            self._roots[key] = got
        return got

    def check(self, path: str, text: str) -> Checked:
        """Findings for ``path`` with ``text`` as its content (the editor's unsaved buffer)."""
        real = os.path.realpath(path)
        with self._lock:
            try:
                root = self._root(real)
            except ConfigError as exc:
                got = Checked(real, text, [], None, error=f"pyproject.toml: {exc}")
                self._last[real] = got
                return got
            folder = os.path.dirname(real)
            siblings = sorted(
                os.path.join(folder, n)
                for n in os.listdir(folder)
                if n.endswith(".py") and os.path.join(folder, n) != real
            )
            paths = [real, *siblings]
            data = text.encode("utf-8")
            res = scan(
                paths,
                root.config,
                sources={real: data},
                parse=self.parser if self.incremental else None,
                want_project=True,
                settings=root.settings,
            )
            mine = [f for f in res.findings if os.path.realpath(f.path) == real]
            error = "; ".join(e.message for e in res.errors) or None
            got = Checked(real, text, mine, res.project, error)
            self._last[real] = got
            return got

    def last(self, path: str) -> Checked | None:
        return self._last.get(os.path.realpath(path))

    def forget(self, path: str) -> None:
        real = os.path.realpath(path)
        self._last.pop(real, None)
        self.parser.forget(real)

    def flush(self) -> None:
        with self._lock:
            for root in self._roots.values():
                if root.cache is not None:
                    root.cache.flush()

    def fixes(
        self, checked: Checked, findings: list[Finding]
    ) -> list[tuple[Finding, str, tuple[Edit, ...]]]:
        """(finding, safety, edits) for each of ``findings`` that its rule's codemod rewrites,
        on the text that was checked. Unsafe fixes only when ``unsafe_fixes`` is set."""
        from compilelint.fix.engine import Rewrite, fixable_codes, plan_file, rewrite_edits

        fixable = fixable_codes(self.catalog)
        wanted = [
            f
            for f in findings
            if f.rule in fixable and (self.unsafe_fixes or fixable[f.rule] == "safe")
        ]
        if not wanted:
            return []
        data = checked.text.encode("utf-8")
        with self._lock:
            module = self.parser.parse(checked.real, data)
            plan = plan_file(
                wanted[0].path, checked.real, data, wanted, self.catalog, checked.project, module
            )
        if plan is None:
            return []
        out = []
        for p in plan.planned:
            if isinstance(p.result, Rewrite):
                out.append((p.finding, p.safety, rewrite_edits(plan, p.result)))
        return out
