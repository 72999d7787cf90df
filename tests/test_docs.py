"""The docs site's structure and generated pages (``mkdocs build --strict`` in ``.ci/run``
checks links; these checks run in the fast loop without mkdocs installed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import yaml

from compilelint.catalog import load_catalog
from compilelint.cli import main as cli_main
from compilelint.docs import (
    GENERATED,
    cli_reference,
    render_generated,
    rule_doc_page,
    spec_reference,
)

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CATALOG = load_catalog()
GENERATED_PAGES = {"index.md", "cli.md"} | {f"rules/{c}.md" for c in CATALOG.codes()}


def _nav_pages(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, list):
        return [p for e in entry for p in _nav_pages(e)]
    if isinstance(entry, dict):
        return [p for v in entry.values() for p in _nav_pages(v)]
    return []


def _mkdocs() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_every_docs_page_is_in_the_nav() -> None:
    nav = set(_nav_pages(_mkdocs()["nav"]))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    missing = sorted(pages - nav)
    assert not missing, (
        f"docs pages not in mkdocs.yml's nav: {missing}. Add each to `nav` in mkdocs.yml "
        "(a measurement page under 'Measurements', e.g. `- Corpus: corpus.md`) and give it one "
        "line with a link in README.md's 'Measurements' section."
    )


def test_every_nav_entry_exists_or_is_a_measurement_page_to_come() -> None:
    nav = _mkdocs()["nav"]
    section = next(e["Measurements"] for e in nav if isinstance(e, dict) and "Measurements" in e)
    to_come = set(_nav_pages(section))
    for page in _nav_pages(nav):
        assert (DOCS / page).is_file() or page in GENERATED_PAGES or page in to_come, page


def test_readme_is_short_and_its_links_resolve() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert readme.index("pip install -e .") < readme.index("## The commands")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_every_marker_in_the_docs_is_generated() -> None:
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        rendered = render_generated(text, CATALOG)
        assert "<!-- generated:" not in rendered, f"{page}: unknown generated marker"
    rules = render_generated(GENERATED.format(name="rules-table"), CATALOG)
    fixes = render_generated(GENERATED.format(name="fix-table"), CATALOG)
    for code, rule in CATALOG.rules.items():
        assert f"[`{code}`](rules/{code}.md)" in rules
        assert rule.fix_reason in fixes


def test_rule_pages_carry_the_catalogue() -> None:
    for rule in CATALOG.rules.values():
        page = rule_doc_page(rule)
        assert page.startswith(f"# {rule.code} {rule.name}\n")
        for gb_id in rule.gb_ids:
            assert gb_id in page
        for title, _ in rule.sections:
            assert f"\n## {title}\n" in page
        for example in rule.examples:
            assert example.code.strip() in page
        assert "```python invalid" not in page and "```python valid" not in page


def test_cli_reference_has_every_command_and_option() -> None:
    text = cli_reference()

    def walk(cmd: click.Command, path: str) -> None:
        assert f"`{path}`" in text, path
        ctx = click.Context(cmd)
        for param in cmd.get_params(ctx):
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0] in text, (path, param.opts)
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), f"{path} {name}")  # type: ignore[arg-type]

    walk(cli_main, "compilelint")


def test_spec_reference_has_every_field() -> None:
    schema = json.loads(
        (ROOT / "src/compilelint/dynamic/spec.schema.json").read_text(encoding="utf-8")
    )
    text = spec_reference(schema)
    for name in schema["properties"]:
        if name != "$schema":
            assert f"| `{name}`" in text, name
    for name in schema["$defs"]["tensor"]["properties"]:
        assert f"| `{name}`" in text, name
