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

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from compilelint.catalog import load_catalog
from compilelint.docs import cli_reference, render_generated, rule_doc_page

CATALOG = load_catalog()
ROOT = Path(__file__).resolve().parent.parent


def on_config(config: Any) -> Any:
    """Fill the "Rules" nav section with every rule's page."""
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


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return render_generated(markdown, CATALOG)
