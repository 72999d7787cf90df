"""mkdocs hooks: the generated pages of the site, rendered from the runtime's own sources.

- ``index.md``: the README (one text for GitHub and the site);
- one page per rule, ``rules/CLnnn.md`` (from ``rules/CLnnn.md`` through the catalogue),
  listed in the nav under "Rules";
- ``cli.md``: the CLI reference, from the click commands;
- ``<!-- generated: NAME -->`` markers in hand-written pages (the rule table, the fix table,
  the input-spec reference): see ``compilelint.docs.render_generated``.

Nothing generated is written into ``docs/``: ``mkdocs build`` makes it in memory each time.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from compilelint.catalog import load_catalog
from compilelint.docs import cli_reference, render_generated, rule_doc_page

CATALOG = load_catalog()
ROOT = Path(__file__).resolve().parent.parent


def _existing(entry: Any) -> Any:
    """The nav without the pages that are not there yet (the Measurements section lists the
    pages other work adds; each shows up once its file exists)."""
    if isinstance(entry, str):
        return entry if (ROOT / "docs" / entry).is_file() or entry in GENERATED else None
    if isinstance(entry, dict):
        out = {k: _existing(v) for k, v in entry.items()}
        return out if all(v not in (None, []) for v in out.values()) else None
    if isinstance(entry, list):
        return [e for e in (_existing(x) for x in entry) if e is not None]
    return entry


GENERATED = {"index.md", "cli.md"}


def on_config(config: Any) -> Any:
    """Fill the "Rules" nav section with every rule's page; leave out pages not written yet."""
    config["nav"] = _existing(config["nav"])
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Rules" in entry:
            entry["Rules"] = list(entry["Rules"]) + [
                {f"{code} {CATALOG.rules[code].name}": f"rules/{code}.md"}
                for code in CATALOG.codes()
            ]
    return config


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "index.md", content=home_page()))
    for code in CATALOG.codes():
        files.append(
            File.generated(config, f"rules/{code}.md", content=rule_doc_page(CATALOG.rules[code]))
        )
    files.append(
        File.generated(
            config, "cli.md", content="# CLI reference\n\n" + CLI_INTRO + cli_reference()
        )
    )
    return files


def home_page() -> str:
    """The site's home page is the README, its links made relative to ``docs/``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.sub(r"\]\(docs/", "](", readme)


CLI_INTRO = "Generated from the click commands themselves (`compilelint COMMAND --help` prints the same).\n\n"


LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def _repo_links(markdown: str, page_src: str) -> str:
    """Links as written in the page's real source file: a page generated from ``rules/CLnnn.md``
    links relative to ``rules/``. A link to a docs page is made relative to the page on the
    site; a link to a repository file outside ``docs/`` (``../benchmarks/x.py``) cannot work on
    the site, so it is shown as the file's path, in code."""
    docs = (ROOT / "docs").resolve()
    site_dir = (docs / page_src).parent
    source_dir = ROOT / "rules" if page_src.startswith("rules/CL") else site_dir

    def fix(m: re.Match[str]) -> str:
        target, anchor = m.group(2), m.group(3) or ""
        if "://" in target or target.startswith(("mailto:", "/")):
            return m.group(0)
        path = (source_dir / target).resolve()
        if path.is_relative_to(docs):
            rel = os.path.relpath(path, site_dir).replace(os.sep, "/")
            return f"[{m.group(1)}]({rel}{anchor})"
        if not path.is_relative_to(ROOT):
            return m.group(0)
        rel = path.relative_to(ROOT).as_posix()
        text = m.group(1)
        return text if text.strip("`") == rel else f"{text} (`{rel}`)"

    return LINK.sub(fix, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return _repo_links(render_generated(markdown, CATALOG), page.file.src_uri)
