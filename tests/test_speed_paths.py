"""The fast paths of the static stage give what the slow ones gave: positions per statement
equal the whole-module pass, cached facts are copies a scan may change, a scan's phases are
timed, and ``compilelint check`` does not import the other subcommands at start-up."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from compilelint.config import load_config
from compilelint.static import positions
from compilelint.static.analysis.facts import CallSite, FileFacts, FunctionFacts
from compilelint.static.engine import Cache, resolve_settings, scan
from compilelint.static.positions import spans, spans_in_statements, statement_starts

TRICKY = textwrap.dedent(
    '''\
    # a header comment
    import torch
    from torch import nn as _nn; x = 1


    @decorator(arg)

    # a comment between decorator and def
    @other.deco
    async def f(a, b=g(1)):
        """doc"""
        if a:  h(a); k(b)
        elif b:
            m(
                a,
                b,
            )
        elif c(1): pass
        else:
            n(a if p(b) else q(b))
        for i in r(3):
            s(i)
        else:
            t()
        while u():
            break
        try:
            v()
        except w() as e:
            y(e)
        else:
            z()
        finally:
            aa()
        async with bb() as cc, dd():
            ee(cc)
        match a:
            case 1:
                ff()
            case _:
                gg()
        return hh(a), ii(b)


    class C(Base, metaclass=Meta):

        def method(self, n=-1, *, m=(2), o=None) -> T[int]:
            return [jj(x) for x in kk(self)] + {ll(): mm() for _ in ()}.get(1)


    def \\
            g(a, b=(
                1 + 2
            )):
        x = a.b[c](d=e) if not (a < b) else (-b) ** 2
        y, z = (a.b, c[d:e]), {**f, "k": g.h}
        w = (
            a.b.c(
                d[e],  # a comment
                *f, **g,
            )[h]
            + i  # another
        ) @ (j)
        v = f"{a.b} {c(d)}" + 'x' 'y', lambda q=a: q(b)
        del a[b], c.d
        assert a == b, c.d
        if (a and
                b or not c.d):
            raise E(a) from b
        while (x := a.b) is not None: x += -1
        for (i, j) in k.l(m)[n]: pass
        with open(a) as f: f.read()
        return (yield a.b)
    \tx = 1
    '''
).replace("\tx = 1\n", "")


class _Collect(cst.CSTVisitor):
    """Every expression with its innermost statement (what the walker records)."""

    def __init__(self) -> None:
        self.stack: list[cst.CSTNode] = []
        self.out: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.stack.append(node)
        if isinstance(node, cst.BaseExpression):
            self.out.append((node, self.stack[-1] if self.stack else None))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def _check_same(source: str) -> int:
    module = cst.parse_module(source)
    tree = ast.parse(source)
    c = _Collect()
    module.visit(c)
    assert statement_starts(module, tree) is not None
    want = spans(module, [n for n, _ in c.out])
    assert spans_in_statements(module, c.out, tree) == want  # codegen per statement
    data = source.encode()
    assert spans_in_statements(module, c.out, tree, source=data) == want  # CPython's tree
    # nodes that need only their line get it (and no more in a statement on one line)
    lines = spans_in_statements(
        module, c.out, tree, source=data, lines_only={id(n) for n, _ in c.out}
    )
    assert {i: s[0] for i, s in lines.items()} == {i: s[0] for i, s in want.items()}
    return len(want)


def test_positions_per_statement_equal_the_whole_module_pass() -> None:
    assert _check_same(TRICKY) > 200
    assert _check_same(TRICKY.replace("a.b", "a.\u00e9").replace("(a)", "('\u00e9', a)"))
    # CRLF line endings, tabs, a file without a trailing newline
    assert _check_same(TRICKY.replace("\n", "\r\n"))
    assert _check_same("if a:\n\tb(1)\n\tc(d(2))")


def test_positions_of_plain_expressions_come_from_cpython_without_codegen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = textwrap.dedent(
        """\
        def f(self, x, n=2, *, k=None):
            if x.shape[0] > n and not k:
                y = self.proj(x[:, 0]).sum(dim=-1) + (
                    x.mean()
                )
            for i in range(n):
                print(y[i], i * 2, sep=k)
            return -y
        """
    )
    module = cst.parse_module(source)
    tree = ast.parse(source)
    c = _Collect()
    module.visit(c)
    fn = module.body[0]
    assert isinstance(fn, cst.FunctionDef)
    params = {id(p.name) for p in fn.params.params}
    params |= {id(p.name) for p in fn.params.kwonly_params}
    attrs = {id(n.attr) for n, _ in c.out if isinstance(n, cst.Attribute)}
    attrs |= {id(a.keyword) for n, _ in c.out if isinstance(n, cst.Call) for a in n.args}
    kinds = (*positions._KINDS, cst.BooleanOperation)  # the kinds it pairs (and `if` tests)
    c.out = [(n, s) for n, s in c.out if isinstance(n, kinds) and id(n) not in params | attrs]
    assert len(c.out) > 30
    want = spans(module, [n for n, _ in c.out])

    def no_codegen(*args: object, **kwargs: object) -> None:
        raise AssertionError("a statement was generated")

    monkeypatch.setattr(positions._PosState, "__init__", no_codegen)
    assert spans_in_statements(module, c.out, tree, source=source.encode()) == want


def test_positions_fall_back_when_the_statement_is_unknown() -> None:
    module = cst.parse_module("a(1)\nb(2)\n")
    calls = [_expression_of(s) for s in module.body]
    tree = ast.parse("a(1)\nb(2)\n")
    wrong = module.body[0]  # b(2) is not in the first statement: the whole-module pass finds it
    got = spans_in_statements(module, [(calls[0], None), (calls[1], wrong)], tree)
    assert got == spans(module, calls)


def test_cached_facts_are_copies_a_scan_may_change(tmp_path: Path) -> None:
    cache = Cache(None, "")
    fn = FunctionFacts("f", "f", None, 1, [], calls=[CallSite("Q|g", [], {}, False, 2, 5)])
    facts = FileFacts("a.py", "a", False, 3, {}, {"f": fn}, {}, [], [])
    cache.put("/x/a.py", "d1", facts)
    fn.calls.append(CallSite("Q|h", [], {}, False, 3, 5))  # changed after it was stored
    got = cache.get("/x/a.py", "d1")
    assert got is not None and [c.ref for c in got.functions["f"].calls] == ["Q|g"]
    got.functions["f"].calls.clear()  # a scan's following drops call sites
    again = cache.get("/x/a.py", "d1")
    assert again is not None and len(again.functions["f"].calls) == 1
    assert cache.get("/x/a.py", "d2") is None
    # saved as plain data and read back by another process
    disk = Cache(tmp_path, "k")
    disk.put("/x/a.py", "d1", facts)
    disk.save()
    back = Cache(tmp_path, "k").get("/x/a.py", "d1")
    assert back is not None and back.functions["f"].qual == "f"


def test_facts_made_by_the_pool_are_cached_as_the_parent_would(tmp_path: Path) -> None:
    """The workers make the facts' cache form (``facts_blob``); a scan that reads them back
    (every file changed but one, and a warm run) finds what a scan without a cache finds."""
    import dataclasses

    body = (
        "import torch\nfrom torch import nn\n\n\nclass M{i}(nn.Module):\n"
        "    def forward(self, x):\n        if x.sum() > 0:\n            print(x)\n"
        "        return x.item() + helper{i}(x)\n\n\ndef helper{i}(x):\n"
        "    return x.tolist()\n\n\ntorch.compile(M{i}())\n"
    )
    for i in range(26):  # enough files for the pool
        (tmp_path / f"m{i}.py").write_text(body.format(i=i), encoding="utf-8")
    paths = [str(tmp_path)]
    cfg = dataclasses.replace(
        load_config(paths), jobs=2, follow=False, cache_dir=str(tmp_path / "cache")
    )

    def keyed(res: object) -> list[tuple[str, int, int, str, str]]:
        return [(f.path, f.line, f.col, f.rule, f.message) for f in res.findings]  # type: ignore[attr-defined]

    want = keyed(scan(paths, cfg, no_cache=True))
    assert len(want) >= 26 * 3
    cold = scan(paths, cfg)
    assert keyed(cold) == want and cold.cached == 0
    for i in range(1, 26):  # every file changed but one: its facts come from the cache
        with open(tmp_path / f"m{i}.py", "a", encoding="utf-8") as fh:
            fh.write("# edit\n")
    nxt = scan(paths, cfg)
    assert nxt.cached == 1 and keyed(nxt) == want
    facts = resolve_settings(cfg).cache  # read from disk afresh
    assert (
        facts is not None
        and len(facts.entries) == 26
        and all(isinstance(b, bytes) for _d, b in facts.entries.values())
    )
    assert keyed(scan(paths, cfg, want_project=True)) == want  # every file from the cache


def test_a_scan_times_its_phases_and_settings_are_reusable(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        print(x)\n        return x\n\ntorch.compile(M())\n",
        encoding="utf-8",
    )
    cfg = load_config([str(src)])
    settings = resolve_settings(cfg, no_cache=True)
    first = scan([str(src)], cfg, settings=settings, want_project=True)
    assert {"discover", "read", "analyse", "project", "follow", "findings"} <= set(first.phases)
    again = scan([str(src)], cfg, settings=settings, want_project=True)
    assert [f.rule for f in first.findings] == [f.rule for f in again.findings]
    assert any(f.rule == "CL201" for f in first.findings)


def test_check_does_not_import_the_other_subcommands() -> None:
    code = (
        "import sys, compilelint.cli\n"
        "heavy = [m for m in sys.modules if m.startswith(('compilelint.dynamic', "
        "'compilelint.fix', 'compilelint.bench', 'compilelint.baseline', 'torch'))]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_hook_writes_its_text_report_without_rich(tmp_path: Path) -> None:
    """The pre-commit hook's command line (plain text to a pipe) does not import rich, the
    dynamic stage's spec module or the other subcommands."""
    (tmp_path / "m.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n",
        encoding="utf-8",
    )
    code = (
        "import sys, runpy\n"
        "sys.argv = ['compilelint', 'check', '--no-default-paths', '--no-cache', 'm.py']\n"
        "try:\n    runpy.run_module('compilelint', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print([m for m in sys.modules if m.split('.')[0] == 'rich' or m.startswith(("
        "'compilelint.dynamic', 'compilelint.fix', 'compilelint.bench'))], file=sys.stderr)\n"
    )
    # the process lives on after the command to list its modules (``cli.run`` ends it at once
    # after a check otherwise)
    env = dict(os.environ, COMPILELINT_CLEAN_EXIT="1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env=env,
    )
    assert "m.py:6:5: CL201" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "[]"


def test_the_scan_parse_skips_only_libcst_revalidation_of_its_own_parse() -> None:
    from compilelint.static.engine import parse_unvalidated

    got = parse_unvalidated(TRICKY.encode())
    assert got.deep_equals(cst.parse_module(TRICKY)) and got.code == TRICKY
    with pytest.raises(cst.ParserSyntaxError):
        parse_unvalidated(b"def f(:\n")
    with pytest.raises(cst.CSTValidationError):  # nodes built elsewhere are still validated
        cst.Name("1 not a name")


def test_positions_from_cpython_in_a_latin1_file_and_after_a_bom() -> None:
    for data in (
        "# -*- coding: latin-1 -*-\nx = 'caf\xe9' + f(a.b, c)\nif 'caf\xe9' == a.b: g(a)\n".encode(
            "latin-1"
        ),
        b"\xef\xbb\xbfx = a.b + f(c)\n" + "y = '\u00e9' + a.b\n".encode(),
    ):
        module = cst.parse_module(data)
        c = _Collect()
        module.visit(c)
        want = spans(module, [n for n, _ in c.out])
        assert spans_in_statements(module, c.out, ast.parse(data), source=data) == want


def test_calls_under_conditions_and_closure_calls_are_placed_by_their_statement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a call through an object bound here under a condition (``call_conds``) and a wrapper's
    # call of its closure parameter (``closure_call``) record the statement that holds them:
    # their positions come from it, without a whole-module codegen pass
    from compilelint.static.engine import FileInput, analyze_source

    source = textwrap.dedent(
        """\
        import functools
        import torch


        def deco(func):
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                return   func(*args, **kwargs)
            return wrapper


        class M(torch.nn.Module):
            def forward(self, x, mode=None):
                cfg = {}
                if mode:
                    n = 1;  cfg.update(a=n)
                return x
        """
    )

    def whole_module(*args: object, **kwargs: object) -> None:
        raise AssertionError("a whole-module codegen pass")

    monkeypatch.setattr(positions, "spans", whole_module)
    checks = resolve_settings(load_config([]), None, no_cache=True).checks
    f = analyze_source(source.encode(), FileInput("m.py", "m.py", "m", False), checks)
    assert f.error is None
    assert [c[:2] for c in f.functions["M.forward"].call_conds] == [[16, 21]]
    assert f.functions["deco.<locals>.wrapper"].closure_call == ["func", 8]


def test_guard_rows_read_each_functions_own_parameters() -> None:
    # a redefined helper's first facts are dropped during the walk; the guard hooks keyed
    # functions by id, so a later function given the freed id read the dropped one's
    # parameters (``is_accelerator_device`` in transformers' modeling_utils.py lost its
    # ``device`` rows, or not, depending on what ran before in the process)
    from compilelint.static.engine import FileInput, analyze_source

    parts = ["import torch\n"]
    for i in range(60):
        parts.append(f"def h{i}(model, recursive):\n    if recursive: pass\n\n" * 2)
        parts.append(
            f"def g{i}(device):\n    if device == 'disk':\n        return 1\n    return 2\n\n"
        )
    checks = resolve_settings(load_config([]), None, no_cache=True).checks
    f = analyze_source("".join(parts).encode(), FileInput("m.py", "m.py", "m", False), checks)
    assert f.error is None
    for i in range(60):
        rows = f.functions[f"g{i}"].guards
        assert ["device", "branch", 9 + 11 * i, "==", "disk"] in rows, (i, rows)


def test_nodes_no_codegen_places_skip_the_whole_module_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = cst.parse_module('x = f"a{b}c"\n')
    assign = _small_statement(module.body[0])
    assert isinstance(assign, cst.Assign) and isinstance(assign.value, cst.FormattedString)
    fse = assign.value.parts[1]
    assert isinstance(fse, cst.FormattedStringExpression)
    assert spans(module, [fse]) == {}  # libcst's codegen never places it

    def whole_module(*args: object, **kwargs: object) -> None:
        raise AssertionError("a whole-module codegen pass")

    monkeypatch.setattr(positions, "spans", whole_module)
    assert spans_in_statements(module, [(fse, None)], ast.parse('x = f"a{b}c"\n')) == {}


def _small_statement(stmt: cst.BaseStatement) -> cst.BaseSmallStatement:
    """The first small statement of the simple statement line ``stmt``."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    return stmt.body[0]


def _expression_of(stmt: cst.BaseStatement) -> cst.BaseExpression:
    """The expression of the expression statement line ``stmt``."""
    expr = _small_statement(stmt)
    assert isinstance(expr, cst.Expr)
    return expr.value
