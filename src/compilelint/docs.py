"""Text generated from the runtime's own sources: the rules and fix tables and a rule's page (from
the catalogue, also `compilelint rules` / `compilelint rule CODE`), the input-spec reference (from
``dynamic/spec.schema.json``) and the CLI reference (from the click commands). The docs site
(``docs/hooks.py``) renders its generated pages with these functions, so nothing is copied."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

from tabulate import tabulate

from compilelint.catalog import Catalog
from compilelint.model import Rule


def _torch_range(r: Rule) -> str:
    if r.torch_min and r.torch_max:
        return f">={r.torch_min},<{r.torch_max}"
    if r.torch_min:
        return f">={r.torch_min}"
    if r.torch_max:
        return f"<{r.torch_max}"
    return "all"


def rules_table(catalog: Catalog, fmt: str = "github") -> str:
    rows = []
    for code in catalog.codes():
        r = catalog.rules[code]
        rows.append(
            (
                f"`{r.code}`" if fmt == "github" else r.code,
                r.name,
                r.severity,
                "yes" if r.default else "no",
                r.fix,
                ", ".join(r.gb_ids) or "-",
                _torch_range(r),
                r.summary,
            )
        )
    return tabulate(
        rows,
        headers=["code", "name", "severity", "default", "fix", "torch GB ids", "torch", "summary"],
        tablefmt=fmt,
    )


def fix_table(catalog: Catalog, fmt: str = "github") -> str:
    """Fix safety per rule and why (the catalogue's ``fix`` and ``fix_reason``)."""
    rows = []
    for code in catalog.codes():
        r = catalog.rules[code]
        rows.append((f"`{r.code}`" if fmt == "github" else r.code, r.name, r.fix, r.fix_reason))
    return tabulate(rows, headers=["code", "name", "fix", "why"], tablefmt=fmt)


def rule_page(r: Rule) -> str:
    lines = [f"# {r.code} {r.name}", ""]
    lines.append(
        f"category: {r.category}    severity: {r.severity}    "
        f"enabled by default: {'yes' if r.default else 'no'}    fix: {r.fix}"
    )
    if r.fix_reason:
        lines.append(f"fix safety: {r.fix_reason}")
    if r.gb_types or r.gb_ids:
        lines.append(
            f"torch graph-break types: {', '.join(r.gb_types) or '-'} ({', '.join(r.gb_ids) or '-'})"
        )
    lines.append(f"torch versions where it applies: {_torch_range(r)}")
    lines.append("")
    lines.append(r.summary)
    for title, text in r.sections:
        lines += ["", f"## {title}", "", text]
    return "\n".join(lines).rstrip() + "\n"


BEGIN = "<!-- rules-table:begin (generated from rules/ by `python -m compilelint.docs --write README.md`) -->"
END = "<!-- rules-table:end -->"


FIX_BEGIN = "<!-- fix-table:begin (generated from rules/ by `python -m compilelint.docs --write README.md`) -->"
FIX_END = "<!-- fix-table:end -->"


def _replace(text: str, begin: str, end: str, table: str) -> str:
    start = text.index(begin) + len(begin)
    stop = text.index(end)
    return text[:start] + "\n" + table + "\n" + text[stop:]


def update_readme(text: str, catalog: Catalog) -> str:
    """Replace the generated tables between their markers, where a file has them (the docs site
    renders its tables at build time instead: see ``render_generated``)."""
    if BEGIN in text:
        text = _replace(text, BEGIN, END, rules_table(catalog))
    if FIX_BEGIN in text:
        text = _replace(text, FIX_BEGIN, FIX_END, fix_table(catalog))
    return text


GENERATED = "<!-- generated: {name} -->"


def rule_doc_page(r: Rule) -> str:
    """A rule's page on the docs site: the facts as a table, then the rule's own sections."""
    facts = [
        ("code", f"`{r.code}`"),
        ("name", f"`{r.name}`"),
        ("category", r.category),
        ("severity", r.severity),
        ("enabled by default", "yes" if r.default else "no"),
        ("fix", r.fix + (f": {r.fix_reason}" if r.fix_reason else "")),
        ("torch graph-break types", ", ".join(f"`{t}`" for t in r.gb_types) or "-"),
        ("torch GB ids", ", ".join(r.gb_ids) or "-"),
        ("torch versions where it applies", _torch_range(r)),
        ("source", f"`{r.path.split('/')[-1]}` in `rules/`"),
    ]
    lines = [f"# {r.code} {r.name}", "", r.summary + ".", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {_cell(v)} |" for k, v in facts]
    lines += ["", f"Message: {r.message}", "", f"Fix: {r.fix_title}"]
    for title, text in r.sections:
        lines += ["", f"## {title}", "", _doc_fences(text)]
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _doc_fences(text: str) -> str:
    """```` ```python invalid ```` (the catalogue's example markers) as a titled python block."""
    out = []
    for line in text.split("\n"):
        if line.startswith("```python "):
            label = line[len("```python ") :].strip()
            line = f'```python title="{label}"'
        out.append(line)
    return "\n".join(out)


def rules_index_table(catalog: Catalog) -> str:
    """The rule table of the docs site, each code linking to its page."""
    text = rules_table(catalog)
    for code in catalog.codes():
        text = text.replace(f"| `{code}` |", f"| [`{code}`](rules/{code}.md) |", 1)
    return text


def _schema_type(node: dict, defs: dict) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        named = {"value": "value", "kwargs": "{name: value}", "tensor": "tensor"}
        return named[name] if name in named else _schema_type(defs[name], defs)
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if ("oneOf" in node or "anyOf" in node) and "type" not in node:
        alternatives = node["oneOf"] if "oneOf" in node else node["anyOf"]
        return " or ".join(_schema_type(n, defs) for n in alternatives)
    kind = node.get("type")
    if kind == "array":
        return f"list of {_schema_type(node.get('items', {}), defs)}"
    if kind == "object" and "additionalProperties" in node and not node.get("properties"):
        extra = node["additionalProperties"]
        if isinstance(extra, dict):
            return f"{{name: {_schema_type(extra, defs)}}}"
    if isinstance(kind, list):
        return ", ".join(kind)
    return kind or "any"


def _schema_rows(props: dict, required: list, defs: dict, prefix: str) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for name, node in props.items():
        if name == "$schema":
            continue
        field = f"`{prefix}{name}`"
        notes = []
        if name in required:
            notes.append("required")
        if "default" in node:
            notes.append(f"default `{json.dumps(node['default'])}`")
        for key, word in (("minimum", "≥"), ("maximum", "≤")):
            if key in node:
                notes.append(f"{word} {node[key]}")
        desc = node.get("description", "")
        rows.append((field, _schema_type(node, defs), "; ".join(notes), desc.replace("|", "\\|")))
        sub = node.get("items", {}) if node.get("type") == "array" else node
        if sub.get("properties"):
            pfx = f"{prefix}{name}[]." if node.get("type") == "array" else f"{prefix}{name}."
            rows += _schema_rows(sub["properties"], sub.get("required", []), defs, pfx)
    return rows


def spec_reference(schema: dict) -> str:
    """The input spec's fields and the tensor value's fields, from the JSON Schema."""
    defs = schema.get("$defs", {})
    headers = ["field", "type", "constraints", "meaning"]
    top = _schema_rows(schema["properties"], schema.get("required", []), defs, "")
    tensor = defs["tensor"]
    tens = _schema_rows(tensor["properties"], tensor.get("required", []), defs, "")
    return "\n".join(
        [
            tabulate(top, headers=headers, tablefmt="github"),
            "",
            'A **tensor** value (`{"tensor": shape, ...}`):',
            "",
            tabulate(tens, headers=headers, tablefmt="github"),
        ]
    )


def cli_reference(group: Any = None) -> str:
    """Every command's usage, help and options, from the click commands themselves."""
    import click

    if group is None:
        from compilelint.cli import main as group
    out: list[str] = []

    def walk(cmd: click.Command, parent: click.Context | None, path: str, level: int) -> None:
        ctx = click.Context(cmd, info_name=path.split(" ")[-1], parent=parent)
        out.append(f"{'#' * level} `{path}`")
        out.append("")
        out.append("```text")
        out.append(f"Usage: {path} {' '.join(cmd.collect_usage_pieces(ctx))}")
        out.append("```")
        out.append("")
        if cmd.help:
            out.append(inspect.cleandoc(cmd.help).replace("\b\n", ""))
            out.append("")
        rows = []
        for param in cmd.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            opts, text = record
            rows.append((f"`{opts}`", text.replace("|", "\\|").replace("\n", " ")))
        if rows:
            out.append(tabulate(rows, headers=["option", "meaning"], tablefmt="github"))
            out.append("")
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    walk(sub, ctx, f"{path} {name}", min(level + 1, 4))

    walk(group, None, "compilelint", 2)
    return "\n".join(out).rstrip() + "\n"


def recipes_table() -> str:
    """The manual recipe per GB id (``compilelint.remedies.RECIPES``)."""
    from compilelint.remedies import GENERIC, RECIPES

    rows = [(", ".join(r.gb_ids), _cell(r.kind), _cell(r.recipe)) for r in RECIPES]
    rows.append(("any other", _cell(GENERIC.kind), _cell(GENERIC.recipe + " (and torch's hints)")))
    return tabulate(rows, headers=["GB id", "kind", "recipe"], tablefmt="github")


def config_remedies_table() -> str:
    """The config remedies (``compilelint.remedies.CONFIG_REMEDIES``)."""
    from compilelint.remedies import CONFIG_REMEDIES

    rows = [
        (
            "`" + "; ".join(c.lines) + "`",
            ", ".join(c.gb_ids) or "size recompiles",
            ", ".join(c.not_for) or "-",
            _cell(c.why + "".join(f"; {w}" for _, w, _ in c.since)),
            ", ".join(c.checked),
        )
        for c in CONFIG_REMEDIES
    ]
    return tabulate(
        rows,
        headers=["setting", "removes", "does not remove", "what it does", "checked on torch"],
        tablefmt="github",
        disable_numparse=True,
    )


def render_generated(text: str, catalog: Catalog) -> str:
    """Replace each ``<!-- generated: NAME -->`` marker of a docs page by its generated text."""
    import importlib.resources

    makers = {
        "rules-table": lambda: rules_index_table(catalog),
        "fix-table": lambda: fix_table(catalog),
        "spec-reference": lambda: spec_reference(
            json.loads(
                importlib.resources.files("compilelint.dynamic")
                .joinpath("spec.schema.json")
                .read_text(encoding="utf-8")
            )
        ),
        "cli-reference": cli_reference,
        "recipes-table": recipes_table,
        "config-remedies": config_remedies_table,
    }
    for name, make in makers.items():
        marker = GENERATED.format(name=name)
        if marker in text:
            text = text.replace(marker, make())
    return text


def main(argv: list[str] | None = None) -> int:
    """``--write FILE...`` refreshes the generated tables between begin/end markers;
    ``--check FILE...`` fails when one is stale or a ``<!-- generated: NAME -->`` marker names
    nothing the docs site can generate."""
    import sys
    from pathlib import Path

    from compilelint.catalog import load_catalog

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] not in ("--check", "--write"):
        print("usage: python -m compilelint.docs --check|--write FILE...", file=sys.stderr)
        return 2
    catalog = load_catalog()
    status = 0
    for path in map(Path, args[1:]):
        text = path.read_text(encoding="utf-8")
        new = update_readme(text, catalog)
        if args[0] == "--write":
            if new != text:
                path.write_text(new, encoding="utf-8")
            continue
        if new != text:
            print(
                f"{path}: a generated table is stale; run python -m compilelint.docs --write {path}",
                file=sys.stderr,
            )
            status = 1
        unknown = re.findall(r"<!-- generated: [^>]*-->", render_generated(text, catalog))
        if unknown:
            print(f"{path}: unknown generated marker {unknown[0]}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
