"""CL001: remove unused codes from a suppression comment (the whole directive, or the whole
comment, when nothing is left)."""

from __future__ import annotations

import re

import libcst as cst

from compilelint.fix.codemods.base import Codemod
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.suppress import _NOQA

_CODE = re.compile(r"CL\d{3}")


class UnusedSuppression(Codemod):
    CODE = "CL001"

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | NoFix:
        unused = set(_CODE.findall(finding.message))
        if not unused:
            return NoFix("the unused codes were not found in the message")
        for comment in ctx.on_line(finding.line, cst.Comment):
            m = _NOQA.search(comment.value)
            if not m:
                continue
            codes_text = m.group("codes") or m.group("codes2") or ""
            codes = [c for c in re.split(r"[\s,]+", codes_text) if c]
            keep = [c for c in codes if c.upper() not in unused]
            if len(keep) == len(codes):
                return NoFix("the comment no longer names the unused codes")
            if keep:
                if m.group("codes2") is not None:
                    directive = f"compilelint: ignore[{', '.join(keep)}]"
                else:
                    directive = f"noqa: {', '.join(keep)}"
                text = comment.value[: m.start()] + "# " + directive + comment.value[m.end() :]
            else:
                text = (comment.value[: m.start()] + comment.value[m.end() :]).strip()
                if text and not text.startswith("#"):
                    text = "# " + text
            return self._rewrite(ctx, comment, text)
        return NoFix("no suppression comment on the line")

    def _rewrite(self, ctx: FixContext, comment: cst.Comment, text: str) -> Rewrite:
        title = "remove the unused code(s) from the comment"
        if text.strip() not in ("", "#"):
            return Rewrite(title, [(comment, cst.Comment(text))])
        parent = ctx.parent(comment)
        if isinstance(parent, cst.TrailingWhitespace):
            new = parent.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
            return Rewrite(title, [(parent, new)])
        if isinstance(parent, cst.EmptyLine):
            return Rewrite(title, [(parent, cst.RemoveFromParent())])  # type: ignore[list-item]
        return Rewrite(title, [(comment, cst.Comment("#"))])
