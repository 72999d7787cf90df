"""One outcome per break and recompile torch observed before fixing (``fix --verify``).

Pure: the dynamic blocks of the original run and of the last accepted run, the fix records,
the verification checks, the config remedies tried, and the line maps between the original and
the fixed text in; :class:`~compilelint.fix.records.BreakOutcome` records out. An observed
break is ``fixed`` when the accepted run no longer has it (by what: the accepted fix at its
line, a config setting, or fixes elsewhere), ``proposed`` when a codemod proposed a patch for
it, else ``no remedy`` with every candidate's reason and the recipe of its GB id.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from compilelint.breakkinds import label_break
from compilelint.catalog import Catalog
from compilelint.fix.records import BreakOutcome, ConfigResult, FixCheck, FixRecord
from compilelint.fix.textdiff import LineMap
from compilelint.remedies import (
    STRING_MODE,
    config_for,
    recipe_text,
    recompile_configs,
    string_mode_recompile,
)

_SLACK = 1


def build_outcomes(
    before: dict[str, Any],
    after: dict[str, Any] | None,
    records: Sequence[FixRecord],
    checks: Sequence[FixCheck],
    configs: Sequence[ConfigResult],
    *,
    root: str,
    catalog: Catalog,
    maps: dict[str, LineMap],
    texts: dict[str, list[str]],
    display: Callable[[str], str],
    config_block: dict[str, Any] | None = None,
) -> list[BreakOutcome]:
    """``before``/``after``: dynamic blocks (paths relative to ``root``); ``after`` None: no
    fix was accepted. ``maps``: real path -> map from the original text to the accepted text;
    ``texts``: real path -> the original lines; ``display``: real path -> display path;
    ``config_block``: the block of the accepted config run (breaks it removed are fixed by it)."""
    real = lambda p: os.path.realpath(os.path.join(root, p))  # noqa: E731
    recs: dict[str, list[FixRecord]] = {}
    for r in records:
        recs.setdefault(os.path.realpath(r.path), []).append(r)
    accepted = [c for c in checks if c.accepted]
    cfg_ok = [c for c in configs if c.accepted]

    def still(block: dict[str, Any] | None, key: str, rp: str, line: int, kind: str) -> bool:
        if block is None:
            return True
        lm = maps.get(rp)
        lo, hi = lm.forward(line) if lm else (line, line)
        for x in block.get(key) or []:
            if x.get("path") is None or x.get("line") is None or real(str(x["path"])) != rp:
                continue
            if key == "breaks" and x.get("gb_type") != kind:
                continue
            if lo - _SLACK <= int(x["line"]) <= hi + _SLACK:
                return True
        return False

    def recompiles_at(block: dict[str, Any], rp: str, line: int) -> int:
        """The recompiles ``block`` counts at ``line`` (mapped into the fixed text)."""
        lm = maps.get(rp)
        lo, hi = lm.forward(line) if lm else (line, line)
        return sum(
            int(r.get("count") or 1)
            for r in block.get("recompiles") or []
            if r.get("path") is not None
            and r.get("line") is not None
            and real(str(r["path"])) == rp
            and lo - _SLACK <= int(r["line"]) <= hi + _SLACK
        )

    out: list[BreakOutcome] = []
    items: list[tuple[Literal["break", "recompile"], dict[str, Any]]] = [
        ("break", b) for b in before.get("breaks") or []
    ]
    items += [("recompile", r) for r in before.get("recompiles") or []]
    for what, x in items:
        path, line = x.get("path"), x.get("line")
        if not path or line is None:
            continue
        library = os.path.isabs(str(path))
        if library and what == "break":
            continue  # a break inside a library is attributed to the user's line that reaches it
        rp, line = real(str(path)), int(line)
        lines = texts.get(rp)
        if lines is None:
            try:
                with open(rp, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                lines = []
            texts[rp] = lines
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        gb_id = x.get("gb_id") if what == "break" else None
        kind = (
            str(x.get("gb_type") or "")
            if what == "break"
            else str(x.get("guard_readable") or x.get("guard") or "")
        )
        rule = (
            label_break(catalog, kind, gb_id, code, tuple(x.get("hints") or ()))
            if what == "break"
            else "CL003"
        )
        key = "breaks" if what == "break" else "recompiles"
        here = [r for r in recs.get(rp, []) if r.line <= line <= max(r.line, r.end_line)]
        hints = tuple(x.get("hints") or ()) if what == "break" else ((x.get("hint") or ""),)
        base = BreakOutcome(
            what=what,
            path=_library_display(rp) if library else display(rp),
            line=line,
            gb_id=gb_id,
            kind=kind,
            rule=rule,
            code=code,
            count=int(x.get("count") or 1),
            outcome="no remedy",
        )
        gone = not still(after, key, rp, line, kind) if after is not None else False
        by_cfg = [
            c
            for c in cfg_ok
            if (what == "recompile" and any(c.name == cr.name for cr in recompile_configs(x)))
            or (what == "break" and (cr := config_for(gb_id)) is not None and cr.name == c.name)
        ]
        if not gone and by_cfg and config_block is not None:
            gone_cfg = not still(config_block, key, rp, line, kind)
            # a setting that leaves fewer recompiles at the line (an int attribute: its first
            # values stay specialized, then one graph serves every value) is its remedy too
            fewer = what == "recompile" and recompiles_at(config_block, rp, line) < int(
                x.get("count") or 1
            )
            if gone_cfg or fewer:
                won = by_cfg[0]
                nums = (
                    f"recompiles {won.recompiles_before} -> {won.recompiles_after}"
                    if what == "recompile"
                    else f"breaks {won.breaks_before} -> {won.breaks_after}"
                )
                if won.written:
                    out.append(
                        _with(
                            base,
                            outcome="fixed",
                            by=f"config: {'; '.join(won.lines)} (written at {won.written})",
                            config=won.lines,
                        )
                    )
                else:
                    out.append(
                        _with(
                            base,
                            outcome="proposed",
                            by=f"config: {'; '.join(won.lines)}",
                            reason=(
                                f"a compile option, verified ({nums}, outputs match); it is "
                                "added to a `torch.compile(...)` call of the fixed files only "
                                "with --unsafe-fixes, and there was none to add it to"
                                if won.compile
                                else f"a process-wide torch setting, verified ({nums}, outputs "
                                "match); it is written only with --unsafe-fixes, by a dynamo "
                                "config line or `torch.compile` call of the fixed files: add it "
                                "where you compile the model"
                            ),
                            patch="".join(f"+{ln}\n" for ln in won.lines),
                            config=won.lines,
                            recipe=recipe_text(gb_id, hints, recompile=what == "recompile"),
                        )
                    )
                continue
        if gone:
            mine = [
                c
                for c in accepted
                if os.path.realpath(c.path) == rp
                and any(r.line <= line <= max(r.line, r.end_line) for r in here if r.rule == c.rule)
            ]
            if mine:
                by = "; ".join(f"{c.rule} at {c.path}:{c.line}: {c.title}" for c in mine)
            else:
                others = [f"{c.rule} at {c.path}:{c.line}" for c in accepted]
                by = (
                    "a fix elsewhere ("
                    + ", ".join(others[:4])
                    + ("..." if len(others) > 4 else "")
                    + ")"
                    if others
                    else "a fix elsewhere"
                )
            out.append(_with(base, outcome="fixed", by=by))
            continue
        recipe = recipe_text(gb_id, hints, recompile=what == "recompile")
        prop = [r for r in here if r.status == "proposed"]
        if prop:
            p = prop[0]
            out.append(
                _with(
                    base,
                    outcome="proposed",
                    by=f"{p.rule}: {p.title}",
                    reason=p.reason,
                    patch=p.patch,
                    recipe=recipe,
                )
            )
            continue
        reasons: list[str] = []
        for r in here:
            why = r.reason or r.status
            if r.status == "applied":
                why = "applied, but the break is still there"
            reasons.append(f"{r.rule}: {why}")
        for c in checks:
            if not c.accepted and os.path.realpath(c.path) == rp and c.line == line:
                txt = f"{c.rule}: rejected: {c.reason}"
                if txt not in reasons and not any(t.startswith(f"{c.rule}: ") for t in reasons):
                    reasons.append(txt)
        tried = [c for c in configs if not c.accepted]
        if what == "break":
            cr = config_for(gb_id)
        else:
            mine_r = recompile_configs(x)
            cr = mine_r[0] if mine_r else None
        if cr is not None:
            mine_cfg = [c for c in tried if c.name == cr.name]
            if gb_id and gb_id in cr.not_for:
                pass
            elif mine_cfg:
                reasons.append(f"config {cr.name}: {mine_cfg[0].reason}")
            elif not any(c.name == cr.name for c in configs):
                reasons.append(f"config {cr.name}: not tried")
            else:
                reasons.append(f"config {cr.name}: did not remove this one")
        if library:
            reasons.append(
                "the recompiled frame is inside an installed library, not the project's code"
            )
            if _GLOBAL_GUARD.search(str(x.get("guard") or "")):
                recipe = (
                    "The guard reads the library's module-level state, which changed between "
                    "calls; where that state only fills once (a registry or cache the library "
                    "fills on its first call) the frame recompiles once and then holds: call the "
                    "model once eagerly before the first compiled call (a warm-up) so that "
                    "compilation sees the filled state. " + recipe
                )
        mode = string_mode_recompile(x) if what == "recompile" and not library else None
        if mode is not None:
            reasons.append(
                f"`{mode}` is a string (or Enum) deciding a code path: one graph per value, "
                "bounded by the values the code compares; no setting makes it symbolic"
            )
            recipe = STRING_MODE.recipe
        if not reasons:
            meta = catalog.get(rule)
            if what == "recompile":
                reasons.append(f"no codemod or config removes a recompile on `{kind}`")
            elif meta is not None and rule != "CL002":
                reasons.append(f"{rule} ({meta.name}) has no automatic fix for {gb_id or kind}")
            else:
                reasons.append(f"no codemod rewrites this kind of break ({gb_id}: {kind})")
        out.append(_with(base, reason="; ".join(reasons), recipe=recipe))
    out.sort(key=lambda o: (o.path, o.line, o.what, o.kind))
    return out


# a guard on a module global (dynamo's ``G['...']``), e.g. a library's backend registry
_GLOBAL_GUARD = re.compile(r"\bG\[")


def _library_display(path: str) -> str:
    """A library file's path from its package folder (``einops/einops.py``)."""
    parts = path.replace(os.sep, "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(marker) :])
    return "/".join(parts[-2:])


def _with(o: BreakOutcome, **kw: Any) -> BreakOutcome:
    import dataclasses

    return dataclasses.replace(o, **kw)


_CONFIG_SET = re.compile(r"^(\s*)torch\._dynamo\.config\.\w+\s*=")
_COMPILE_CALL = re.compile(r"^(\s*)(?:\w[\w.]*\s*=\s*)?torch\.compile\(")


def compile_option_place(text: str, options: dict[str, object]) -> tuple[str, int] | None:
    """``text`` with ``options`` added as keywords to its first ``torch.compile(...)`` call that
    does not pass them yet, and the call's 1-based line; None when there is no such call."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except Exception:
        return None
    found: list[tuple[cst.Call, int]] = []

    class V(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if (
                not found
                and isinstance(f, cst.Attribute)
                and f.attr.value == "compile"
                and isinstance(f.value, cst.Name)
                and f.value.value == "torch"
                and not any(a.keyword and a.keyword.value in options for a in node.args)
            ):
                found.append((node, self.get_metadata(PositionProvider, node).start.line))

    wrapper.visit(V())
    if not found:
        return None
    target, line = found[0]

    class T(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            if original is not target:
                return updated
            args = list(updated.args)
            if args:
                args[-1] = args[-1].with_changes(
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                )
            for k, v in options.items():
                args.append(
                    cst.Arg(
                        keyword=cst.Name(k),
                        value=cst.parse_expression(repr(v)),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    )
                )
            return updated.with_changes(args=args)

    return wrapper.module.visit(T()).code, line


def config_place(text: str, lines: Sequence[str]) -> tuple[str, int] | None:
    """``text`` with ``lines`` inserted before its first ``torch._dynamo.config.X = ...`` line
    (else its first ``torch.compile(`` statement), at that line's indentation, and the 1-based
    line of the insertion; None when the file has no such place or already has the lines."""
    src = text.splitlines(keepends=True)
    if all(any(ln.strip() == want for ln in src) for want in lines):
        return None
    for pattern in (_CONFIG_SET, _COMPILE_CALL):
        for i, ln in enumerate(src):
            m = pattern.match(ln)
            if m:
                nl = "\r\n" if ln.endswith("\r\n") else "\n"
                add = [m.group(1) + want + nl for want in lines]
                return "".join(src[:i] + add + src[i:]), i + 1
    return None
