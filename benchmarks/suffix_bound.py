"""How much of an edit's remaining walk a name-level dependency record could skip: for each edit
site of ``ab_server.py`` (the first line of each ``forward``), the walk time of the top-level
statements from the edited one to the end (what the server walks after resuming,
``static/analysis/resume.py``), and of those among them that name the edited statement's
top-level names, transitively (a class that names a class that names it): a record of which
statements read which names would still walk those. Also the edited statement's own walk and,
for a class, that of its methods before the one edited: what resuming the walk at the edited
method instead of its class would skip.

    python benchmarks/suffix_bound.py [--model wav2vec2]

Walk times are thread CPU per top-level statement, mean of three walks of the unedited file with
every check (one process).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from pathlib import Path
from typing import Any

import libcst as cst
from ab_server import _sites  # benchmarks/ is the script's folder
from libcst.metadata import MetadataWrapper, PositionProvider


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="wav2vec2")
    args = ap.parse_args()
    from compilelint.static.analysis import walker as W
    from compilelint.static.checks.base import build_hooks
    from compilelint.static.engine import all_checks

    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("suffix_bound: needs transformers installed")
    path = Path(spec.origin).parent / "models" / args.model / f"modeling_{args.model}.py"
    text = path.read_text(encoding="utf-8")
    module = cst.parse_module(text)
    checks = list(all_checks().values())
    spent: dict[int, float] = {}
    visit = W.FileWalker.visit_stmt

    def timed(self: Any, stmt: cst.CSTNode) -> None:
        # top-level statements, and those of a top-level class's body (its methods)
        if self.scope.facts is not None or len(self.class_stack) > 1:
            visit(self, stmt)
            return
        t = time.thread_time()
        visit(self, stmt)
        spent[id(stmt)] = spent.get(id(stmt), 0.0) + time.thread_time() - t

    W.FileWalker.visit_stmt = timed  # type: ignore[method-assign]
    sys.setrecursionlimit(10_000)
    for _ in range(3):
        W.analyze_module(
            module,
            path=str(path),
            module_name="m",
            is_package=False,
            lines=text.count("\n") + 1,
            make_checks=lambda w: build_hooks(w, checks),
        )
    W.FileWalker.visit_stmt = visit  # type: ignore[method-assign]
    body = module.body
    ms = [spent.get(id(s), 0.0) / 3 * 1000 for s in body]
    codes = [module.code_for_node(s) for s in body]
    bound: list[set[str]] = []
    for s in body:
        names: set[str] = set()
        if isinstance(s, (cst.ClassDef, cst.FunctionDef)):
            names.add(s.name.value)
        elif isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Assign):
                    names.update(
                        t.target.value for t in small.targets if isinstance(t.target, cst.Name)
                    )
        bound.append(names)
    words = [set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", c)) for c in codes]
    starts, line = [], 1
    for c in codes:
        starts.append(line)
        line += c.count("\n")
    # where each statement of a class body starts and ends (the same node objects)
    pos = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    suffix_total = named_total = own_total = before_total = 0.0
    for k, _ in _sites(text.split("\n")):
        e = max(i for i, s in enumerate(starts) if s <= k + 1)
        # the edited statement's own walk, and (a class) that of its body's statements before
        # the one holding the edit: what resuming the walk at the edited method would skip
        own = ms[e]
        before = 0.0
        if isinstance(body[e], cst.ClassDef):
            for st in getattr(body[e].body, "body", ()):
                if pos[st].end.line >= k + 1:
                    break
                before += spent.get(id(st), 0.0) / 3 * 1000
        own_total += own
        before_total += before
        names, named = set(bound[e]), {e}
        grew = True
        while grew:
            grew = False
            for j in range(e + 1, len(body)):
                if j not in named and words[j] & names:
                    named.add(j)
                    names |= bound[j]
                    grew = True
        suffix = sum(ms[e:])
        part = sum(ms[j] for j in named)
        suffix_total += suffix
        named_total += part
        print(
            f"edit in statement {e}: walk from it {suffix:.1f} ms (itself {own:.1f}, its methods "
            f"before the edited one {before:.1f}), of which statements naming it {part:.1f} ms "
            f"({len(named)} of {len(body) - e})"
        )
    print(
        f"all sites: walk from the edit {suffix_total:.0f} ms, statements naming it "
        f"{named_total:.0f} ms ({named_total / suffix_total:.0%}); the edited statements "
        f"{own_total:.0f} ms ({own_total / suffix_total:.0%}), their methods before the edited "
        f"one {before_total:.0f} ms ({before_total / suffix_total:.0%})"
    )


if __name__ == "__main__":
    main()
