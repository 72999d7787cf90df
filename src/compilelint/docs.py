"""Text generated from the catalogue: the rules table (README, `compilelint rules`) and a rule's
page (`compilelint rule CODE`)."""

from __future__ import annotations

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
    """Replace the generated tables between their markers (the fix table where present)."""
    text = _replace(text, BEGIN, END, rules_table(catalog))
    if FIX_BEGIN in text:
        text = _replace(text, FIX_BEGIN, FIX_END, fix_table(catalog))
    return text


def main(argv: list[str] | None = None) -> int:
    import sys
    from pathlib import Path

    from compilelint.catalog import load_catalog

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in ("--check", "--write"):
        print("usage: python -m compilelint.docs --check|--write README.md", file=sys.stderr)
        return 2
    path = Path(args[1])
    text = path.read_text(encoding="utf-8")
    new = update_readme(text, load_catalog())
    if args[0] == "--write":
        path.write_text(new, encoding="utf-8")
        return 0
    if new != text:
        print(
            f"{path}: a generated table is stale; run python -m compilelint.docs --write {path}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
