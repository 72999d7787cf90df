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


def rule_page(r: Rule) -> str:
    lines = [f"# {r.code} {r.name}", ""]
    lines.append(f"category: {r.category}    severity: {r.severity}    "
                 f"enabled by default: {'yes' if r.default else 'no'}    fix: {r.fix}")
    if r.gb_types or r.gb_ids:
        lines.append(f"torch graph-break types: {', '.join(r.gb_types) or '-'} ({', '.join(r.gb_ids) or '-'})")
    lines.append(f"torch versions where it applies: {_torch_range(r)}")
    lines.append("")
    lines.append(r.summary)
    for title, text in r.sections:
        lines += ["", f"## {title}", "", text]
    return "\n".join(lines).rstrip() + "\n"
