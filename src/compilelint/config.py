"""``[tool.compilelint]`` in pyproject.toml -> :class:`Config`.

Found by walking up from the scanned paths (first path) to the filesystem root. CLI flags
override it. Unknown keys and bad values are errors naming the key, never tracebacks.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compilelint.catalog import Catalog

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FAIL_ON = ("error", "warning", "info", "never")
MODES = ("eval", "train")  # the compile context (`mode`, `dtype`; see Config)
DTYPES = ("float32", "bfloat16", "float16", "float64")
_CODE_SEL = re.compile(r"^(ALL|CL\d{0,3})$")


class ConfigError(Exception):
    """Bad configuration; the message names the key and the file."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()  # empty: the catalogue's default-enabled rules
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    fail_on: str = "warning"
    target_torch: str | None = None
    respect_gitignore: bool = True
    cache: bool = True
    cache_dir: str | None = None
    jobs: int = 0  # 0: one per CPU this process may run on
    report_untraced: bool = False
    # the compile context the static stage predicts for (None: any): a finding that breaks
    # only in another context (training-only code in eval, a float16 guard in float32) is
    # not reported
    mode: str | None = None  # "eval" | "train"
    dtype: str | None = None  # the model's floating dtype: "float32", "bfloat16", ...
    # what an input spec says of its entry's tensor inputs: (model file, class or function
    # name, ((position "0"/"1"/... or keyword, rank, dtype kind), ...)); the rank and dtype
    # model (``values.tensor``) takes them for the entry's parameters (CL120's 0-d indices)
    spec_inputs: tuple[str, str, tuple[tuple[str, int, str], ...]] | None = None
    # what an input spec builds its class with: (model file, class name, JSON of its
    # ``{"args": [...], "kwargs": {...}}``); the values ``__init__``'s parameters hold for the
    # spec's run (``Project.attr_values``: `if self.recycling:` with `recycling=False`)
    spec_init: tuple[str, str, str] | None = None
    # following calls into installed packages (issue 18)
    follow: bool = True
    python: str | None = None  # interpreter or virtual environment whose packages are followed
    entries: tuple[str, ...] = ()  # library mode: globs of qualified names taken as entries
    root: str = "."
    source: str | None = None  # the pyproject.toml it came from
    extra: dict[str, object] = field(default_factory=dict)


_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "fail-on",
    "target-torch",
    "target-torch-version",
    "respect-gitignore",
    "cache",
    "cache-dir",
    "jobs",
    "report-untraced",
    "mode",
    "dtype",
    "max-graph-breaks",
    "max-recompiles",
    "baseline",
    "follow",
    "python",
    "entries",
}


def find_pyproject(start: Path) -> Path | None:
    cur = start.resolve()
    if cur.is_file():
        cur = cur.parent
    for d in (cur, *cur.parents):
        cand = d / "pyproject.toml"
        if cand.is_file():
            try:
                data = tomllib.loads(cand.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            if "compilelint" in data.get("tool", {}):
                return cand
    return None


def _codes(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of rule codes")
    for v in value:
        if not _CODE_SEL.match(v):
            raise ConfigError(
                f"{where}: {key}: {v!r} is not a rule code or prefix (e.g. CL101, CL1)"
            )
    return tuple(value)


def _strs(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return tuple(value)


def from_table(table: dict[str, object], where: str, base: Config | None = None) -> Config:
    cfg = base or Config()
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} in [tool.compilelint]")
    changes: dict[str, Any] = {}  # Config fields, each value checked as it is set
    if "select" in table:
        changes["select"] = _codes(table["select"], "select", where)
    if "ignore" in table:
        changes["ignore"] = _codes(table["ignore"], "ignore", where)
    if "extend-select" in table:
        changes["extend_select"] = _codes(table["extend-select"], "extend-select", where)
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: per-file-ignores must be a table of glob = [codes]")
        changes["per_file_ignores"] = tuple(
            (str(k), _codes(v, f"per-file-ignores.{k}", where)) for k, v in pfi.items()
        )
    if "exclude" in table:
        changes["exclude"] = _strs(table["exclude"], "exclude", where)
    if "extend-exclude" in table:
        changes["extend_exclude"] = _strs(table["extend-exclude"], "extend-exclude", where)
    if "fail-on" in table:
        v = table["fail-on"]
        if v not in FAIL_ON:
            raise ConfigError(f"{where}: fail-on must be one of {', '.join(FAIL_ON)}, got {v!r}")
        changes["fail_on"] = v
    for key in ("target-torch", "target-torch-version"):
        if key in table:
            v = table[key]
            if not isinstance(v, str) or not re.match(r"^\d+\.\d+(\.\d+)?$", v):
                raise ConfigError(f'{where}: {key} must be a version like "2.13", got {v!r}')
            changes["target_torch"] = v
    for key, attr in (
        ("respect-gitignore", "respect_gitignore"),
        ("cache", "cache"),
        ("report-untraced", "report_untraced"),
        ("follow", "follow"),
    ):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{where}: {key} must be true or false")
            changes[attr] = table[key]
    for key, allowed in (("mode", MODES), ("dtype", DTYPES)):
        if key in table:
            v = table[key]
            if v not in allowed:
                raise ConfigError(f"{where}: {key} must be one of {', '.join(allowed)}, got {v!r}")
            changes[key] = v
    if "jobs" in table:
        if not isinstance(table["jobs"], int) or table["jobs"] < 0:
            raise ConfigError(f"{where}: jobs must be a non-negative integer")
        changes["jobs"] = table["jobs"]
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str):
            raise ConfigError(f"{where}: cache-dir must be a string")
        changes["cache_dir"] = table["cache-dir"]
    if "python" in table:
        if not isinstance(table["python"], str) or not table["python"]:
            raise ConfigError(f"{where}: python must be the path of an interpreter or a venv")
        py = Path(table["python"]).expanduser()
        if not py.is_absolute():
            py = Path(where).parent / py
        changes["python"] = str(py)
    if "entries" in table:
        changes["entries"] = _strs(table["entries"], "entries", where)
    extra = dict(cfg.extra)
    for key in ("max-graph-breaks", "max-recompiles"):
        if key in table:
            v = table[key]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ConfigError(f"{where}: {key} must be a non-negative integer")
            extra[key] = table[key]
    if "baseline" in table:
        if not isinstance(table["baseline"], str) or not table["baseline"]:
            raise ConfigError(f"{where}: baseline must be the path of a baseline file")
        extra["baseline"] = table["baseline"]
    changes["extra"] = extra
    return replace(cfg, **changes)


def load_config(paths: list[str], explicit: str | None = None) -> Config:
    """Config for a scan of ``paths`` (explicit file wins over discovery)."""
    if explicit:
        pp = Path(explicit)
        if not pp.is_file():
            raise ConfigError(f"config file not found: {explicit}")
    else:
        start = Path(paths[0]) if paths else Path(".")
        if not start.exists():
            start = Path(".")
        found = find_pyproject(start)
        if found is None:
            return Config(root=str(Path(".").resolve()))
        pp = found
    try:
        data = tomllib.loads(pp.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pp}: invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{pp}: cannot read: {exc}") from None
    table = data.get("tool", {}).get("compilelint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pp}: [tool.compilelint] must be a table")
    cfg = from_table(table, str(pp))
    return replace(cfg, root=str(pp.parent.resolve()), source=str(pp))


def selected_codes(cfg: Config, all_codes: dict[str, bool]) -> set[str]:
    """Codes enabled by select/extend-select/ignore; ``all_codes`` maps code -> default."""

    def match(sel: tuple[str, ...], code: str) -> bool:
        return any(s == "ALL" or code.startswith(s) for s in sel)

    if cfg.select:
        chosen = {c for c in all_codes if match(cfg.select, c)}
    else:
        chosen = {c for c, default in all_codes.items() if default}
    chosen |= {c for c in all_codes if match(cfg.extend_select, c)}
    chosen -= {c for c in all_codes if match(cfg.ignore, c)}
    return chosen


def resolve_config(
    path_list: list[str],
    *,
    config_file: str | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    exclude: tuple[str, ...],
    fail_on: str | None,
    target_torch: str | None,
    jobs: int | None,
    report_untraced: bool,
    no_respect_gitignore: bool,
    python: str | None = None,
    no_follow: bool = False,
    mode: str | None = None,
    dtype: str | None = None,
) -> tuple[Config, Catalog]:
    """The config (pyproject, then flags) and the catalogue, shared by ``check``, ``fix`` and
    ``baseline create``; a bad value raises :class:`ConfigError` with a one-line message."""
    from compilelint.catalog import CatalogError, load_catalog

    cfg = load_config(path_list, config_file)
    table: dict[str, object] = {}
    if select is not None:
        table["select"] = _split_codes(select)
    if extend_select is not None:
        table["extend-select"] = _split_codes(extend_select)
    if ignore is not None:
        table["ignore"] = list(cfg.ignore) + _split_codes(ignore)
    if exclude:
        table["extend-exclude"] = list(cfg.extend_exclude) + list(exclude)
    if fail_on is not None:
        table["fail-on"] = fail_on
    if target_torch is not None:
        table["target-torch"] = target_torch
    if jobs is not None:
        table["jobs"] = jobs
    if report_untraced:
        table["report-untraced"] = True
    if no_respect_gitignore:
        table["respect-gitignore"] = False
    if python is not None:
        table["python"] = os.path.abspath(python)
    if no_follow:
        table["follow"] = False
    if mode is not None:
        table["mode"] = mode
    if dtype is not None:
        table["dtype"] = dtype
    if table:
        cfg = from_table(table, "command line", base=cfg)
    try:
        catalog = load_catalog()
    except CatalogError as exc:
        raise ConfigError(f"rule catalogue: {exc}") from exc
    unknown = [
        c
        for c in (cfg.select + cfg.extend_select + cfg.ignore)
        if c != "ALL" and not any(code.startswith(c) for code in catalog.rules)
    ]
    if unknown:
        raise ConfigError(f"unknown rule code {unknown[0]!r} (see `compilelint rules`)")
    return cfg, catalog


def _split_codes(v: str) -> list[str]:
    return [x.strip().upper() for x in v.split(",") if x.strip()]
