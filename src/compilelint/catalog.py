"""Load and validate the rule catalogue (``rules/CLnnn.md``).

Each rule file is Markdown: a ``# CLnnn `name` `` title, a fenced ``toml`` metadata block, then
fixed sections (What it does / Why is this bad? / How it is detected / Example / Use instead /
Fix safety). Fenced ``python valid`` / ``python invalid`` blocks are the rule's examples; they
double as tests. The catalogue is the single source of rule text: runtime messages,
``compilelint rule``, the README table and SARIF descriptions all read it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from compilelint.model import Example, Rule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REQUIRED_SECTIONS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Fix safety",
)
CATEGORIES = {
    "CL0": "tool",
    "CL1": "data-dependent",
    "CL2": "side-effects",
    "CL3": "recompiles",
    "CL4": "compile-usage",
    "CL5": "module-state",
}
_CODE_RE = re.compile(r"^CL\d{3}$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_FENCE_RE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
_SECTION_RE = re.compile(r"^## (.+?)\s*$", re.M)


class CatalogError(Exception):
    """A rule file is malformed. The message names the file and the problem."""


@dataclass(frozen=True)
class Catalog:
    rules: dict[str, Rule]
    root: str
    _by_gb: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, code: str) -> Rule | None:
        return self.rules.get(code)

    def codes(self) -> list[str]:
        return sorted(self.rules)

    def by_gb_type(self, gb_type: str) -> tuple[str, ...]:
        """Codes of rules that predict torch's graph-break type ``gb_type``."""
        return self._by_gb.get(gb_type.strip().lower(), ())


def rules_dir() -> Path:
    """The catalogue folder: inside the installed wheel, or the repository's ``rules/``."""
    here = Path(__file__).resolve().parent
    for cand in (here / "_rules", here.parent.parent / "rules"):
        if cand.is_dir():
            return cand
    raise CatalogError(f"rule catalogue not found (looked in {here / '_rules'})")


def _parse_examples(text: str) -> tuple[Example, ...]:
    out: list[Example] = []
    for m in _FENCE_RE.finditer(text):
        info = m.group(1).strip().split()
        if len(info) >= 2 and info[0] == "python" and info[1] in ("valid", "invalid"):
            title = " ".join(info[2:])
            kind: Literal["valid", "invalid"] = "valid" if info[1] == "valid" else "invalid"
            out.append(Example(kind=kind, code=m.group(2), title=title))
    return tuple(out)


def _parse_sections(body: str) -> tuple[tuple[str, str], ...]:
    parts = _SECTION_RE.split(body)
    # parts = [preamble, title1, text1, title2, text2, ...]
    return tuple((parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2))


def parse_rule(path: Path) -> Rule:
    text = path.read_text(encoding="utf-8")
    where = path.name
    m = re.search(r"```toml\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise CatalogError(f"{where}: missing ```toml metadata block")
    try:
        meta = tomllib.loads(m.group(1))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{where}: bad metadata: {exc}") from None
    code = str(meta.get("code", ""))
    if not _CODE_RE.match(code) or path.stem != code:
        raise CatalogError(f"{where}: code {code!r} must be CLnnn and match the file name")
    name = str(meta.get("name", ""))
    if not _NAME_RE.match(name):
        raise CatalogError(f"{where}: name {name!r} must be kebab-case")
    severity = meta.get("severity")
    if severity not in ("error", "warning", "info"):
        raise CatalogError(f"{where}: severity must be error, warning or info")
    fix = meta.get("fix", "none")
    if fix not in ("none", "safe", "unsafe"):
        raise CatalogError(f"{where}: fix must be none, safe or unsafe")
    category = CATEGORIES.get(code[:3], "")
    if meta.get("category", category) != category:
        raise CatalogError(f"{where}: category for {code[:3]}xx is {category!r}")
    for key in ("summary", "message", "fix_title", "fix_reason"):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            raise CatalogError(f"{where}: missing {key}")
    detector = meta.get("detector", "static")
    if detector not in ("static", "dynamic", "engine"):
        raise CatalogError(f"{where}: detector must be static, dynamic or engine")
    verify = meta.get("verify", "breaks" if detector == "static" else "none")
    if verify not in ("breaks", "recompiles", "none"):
        raise CatalogError(f"{where}: verify must be breaks, recompiles or none")
    if verify == "none" and detector == "static" and not meta.get("verify_reason"):
        raise CatalogError(f'{where}: verify = "none" needs a verify_reason')
    body = text[m.end() :]
    sections = _parse_sections(body)
    titles = [t for t, _ in sections]
    missing = [s for s in REQUIRED_SECTIONS if s not in titles]
    if missing:
        raise CatalogError(f"{where}: missing sections: {', '.join(missing)}")
    examples = _parse_examples(body)
    return Rule(
        code=code,
        name=name,
        category=category,
        severity=severity,
        default=bool(meta.get("default", True)),
        gb_types=tuple(meta.get("gb_types", ())),
        gb_ids=tuple(meta.get("gb_ids", ())),
        torch_min=meta.get("torch_min"),
        torch_max=meta.get("torch_max"),
        fix=fix,
        summary=meta["summary"].strip(),
        message=meta["message"].strip(),
        fix_title=meta["fix_title"].strip(),
        sections=sections,
        examples=examples,
        path=str(path),
        observes=tuple(meta.get("observes", ())),
        detector=detector,
        verify=verify,
        verify_reason=str(meta.get("verify_reason", "")),
        fix_reason=meta["fix_reason"].strip(),
    )


@lru_cache(maxsize=4)
def load_catalog(root: str | None = None) -> Catalog:
    base = Path(root) if root else rules_dir()
    rules: dict[str, Rule] = {}
    by_gb: dict[str, list[str]] = {}
    for path in sorted(base.glob("CL*.md")):
        rule = parse_rule(path)
        rules[rule.code] = rule
        for gb in rule.gb_types:
            by_gb.setdefault(gb.strip().lower(), []).append(rule.code)
    names = [r.name for r in rules.values()]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise CatalogError(f"duplicate rule names: {', '.join(sorted(dupes))}")
    return Catalog(rules=rules, root=str(base), _by_gb={k: tuple(v) for k, v in by_gb.items()})


def version_tuple(v: str) -> tuple[int, ...]:
    nums = re.findall(r"\d+", v.split("+")[0])[:3]
    return tuple(int(n) for n in nums) or (0,)


def applies_to(rule: Rule, torch_version: str | None) -> bool:
    """Whether the rule's pattern misbehaves on ``torch_version`` (None: any version)."""
    if not torch_version:
        return True
    tv = version_tuple(torch_version)
    if rule.torch_min and tv < version_tuple(rule.torch_min):
        return False
    return not (rule.torch_max and tv >= version_tuple(rule.torch_max))
