"""Counters on ``self`` read in conditions (CL501, issue 22 round 11, branch fixstate11).

The counter rewrite (``self.steps += 1`` -> a non-persistent 0-d buffer, every read tensor
arithmetic) used to accept a read only on the left of a single comparison that was the whole
condition of an ``if`` of plain assignments. The model of a condition is now: its ``and``-ed
parts are Python parts (kept a Python ``if``: ``self.training``, a flag) or parts that are
boolean tensors once the counter is a buffer (a comparison on either side, ``e != 0`` for a
value read for its truth, ``not``/``and``/``or`` of such parts); a comparison with a tensor is
elementwise either way; ``float(n)``/``int(n)`` of the counter are ``.double()``/``.long()``;
a body with calls, reports or an ``elif`` chain is lowered statement by statement, reports
under an eager-only guard reading ``int(self.<counter>)``.

VALID cases: the text is checked without torch; marked ``torch``, the original recompiles (or
breaks) as the counter steps, the fixed text has no break (``explain``) and compiles once over
the calls, outputs and gradients equal call by call, compiled and uncompiled, and the counter
after N calls reads N. INVALID cases: refused with their reason, the file unchanged.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes

from .fix_modules import fix_result, fixed_text, load_module
from .torch_checks import assert_no_graph_break

HEAD = "import math\n\nimport torch\nfrom torch import nn\n\n\n"


def _model(init: str, body: str) -> str:
    return HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self, warmup=3, every=2, k=2.0):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.warmup = warmup
                self.every = every
                self.k = k
                self.log_on = True
        {init}

            def forward(self, x):
                h = self.proj(x)
        {body}
        """
    ).format(init=textwrap.indent(init, " " * 8), body=textwrap.indent(body, " " * 8))


VALID = {
    # the counter on the right of a comparison whose other side is a tensor (scheduled
    # sampling: a teacher-forcing ratio decaying with the step, compared with random draws)
    "ratio_vs_tensor": (
        _model(
            "self.step = 0",
            "ratio = self.k / (self.k + math.exp(self.step / self.k))\n"
            "self.step += 1\n"
            "keep = torch.rand(x.size(0)) < ratio\n"
            "return torch.where(keep[:, None], h, x)",
        ),
        ("ratio = self.k / (self.k + torch.exp(self.step / self.k))",),
    ),
    "counter_on_the_right": (
        _model(
            "self.step = 0",
            "self.step += 1\nscale = 0.5 if self.warmup > self.step else 1.0\nreturn h * scale",
        ),
        ("scale = torch.where(self.warmup > self.step, 0.5, 1.0)",),
    ),
    # a Python flag and the counter: the flag stays a Python `if`
    "flag_and_counter": (
        _model(
            "self.step = 0",
            "if self.training and self.step < self.warmup:\n"
            "    h = h * 0.5\n"
            "self.step += 1\n"
            "return h",
        ),
        ("if self.training:", "h = torch.where(self.step < self.warmup, h * 0.5, h)"),
    ),
    "two_counter_parts": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "if self.step > 1 and self.step % self.every == 0:\n"
            "    h = h * 2\n"
            "return h",
        ),
        ("torch.logical_and(self.step > 1, self.step % self.every == 0)",),
    ),
    # read for its truth: `not self.step % k` is `(self.step % k) != 0` negated
    "truth_not": (
        _model(
            "self.step = 0",
            "self.step += 1\nif not self.step % self.every:\n    h = h * 2\nreturn h",
        ),
        ("torch.logical_not((self.step % self.every) != 0)",),
    ),
    # a report every k calls: eager-only, reading the counter as the int it printed before
    "report_every": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "if self.step % self.every == 0:\n"
            "    print('step', self.step, float(h.mean()))\n"
            "return h",
        ),
        ("if not torch.compiler.is_compiling():", "print('step', int(self.step)"),
    ),
    # a report of the counter outside any branch: eager-only, as the print rule guards it
    "report_line": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "print('step', self.step)\n"
            "return h * min(1.0, self.step / self.warmup)",
        ),
        ("    if not torch.compiler.is_compiling():\n            print('step', int(self.step))",),
    ),
    # a body with a call and a report: lowered, the report eager-only
    "compound_every": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "loss = h.mean()\n"
            "if self.log_on and self.step % self.every == 0:\n"
            "    reg = h.pow(2).mean()\n"
            "    loss = loss + 0.1 * reg\n"
            "    print('reg at', self.step, reg.item())\n"
            "return loss",
        ),
        ("if self.log_on:", "loss = torch.where(cond, loss + 0.1 * reg, loss)"),
    ),
    # a method call in a plain assignment: both sides are computed (no submodule)
    "call_in_branch": (
        _model(
            "self.step = 0",
            "if self.training:\n"
            "    self.step += 1\n"
            "    if self.step % self.every == 0:\n"
            "        h = h.clamp(-0.1, 0.1)\n"
            "return h",
        ),
        ("h = torch.where(cond, h.clamp(-0.1, 0.1), h)",),
    ),
    # `float(n)`: the buffer as a float64 0-d tensor (the Python float's precision)
    "float_of_counter": (
        _model(
            "self.num_batches = 0",
            "self.num_batches += 1\nfactor = 1.0 / float(self.num_batches)\nreturn h * factor",
        ),
        ("factor = 1.0 / self.num_batches.double()",),
    ),
    # both sides of `min` hold the counter: `torch.minimum` of two 0-d tensors (Noam schedule)
    "noam_min_of_two": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "lr = self.warmup ** 0.5 * min(self.step ** -0.5, self.step * self.warmup ** -1.5)\n"
            "return h * lr",
        ),
        ("torch.minimum(self.step ** -0.5, self.step * self.warmup ** -1.5)",),
    ),
    # sizes are Python numbers: `len(...)`, `x.size(0)`
    "sizes_are_numbers": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "frac = self.step / (len(self.proj.weight) * x.size(0))\n"
            "return h * min(1.0, frac)",
        ),
        ("torch.clamp(frac, max=1.0)",),
    ),
    # a buffer set in a branch on the counter: `register_buffer` in `__init__` sets it before
    "buffer_store_every": (
        _model(
            "self.step = 0\nself.register_buffer('ema', torch.zeros(8))",
            "self.step += 1\n"
            "if self.step % self.every == 0:\n"
            "    self.ema = 0.9 * self.ema + 0.1 * h.mean(0).detach()\n"
            "return h + self.ema",
        ),
        ("self.ema = torch.where(cond, 0.9 * self.ema + 0.1 * h.mean(0).detach(), self.ema)",),
    ),
    "elif_chain": (
        _model(
            "self.step = 0",
            "self.step += 1\n"
            "s = h * 0.0\n"
            "if self.step < self.warmup:\n"
            "    s = h * 0.25\n"
            "elif self.step < 2 * self.warmup:\n"
            "    s = h * 0.5\n"
            "else:\n"
            "    s = h\n"
            "return s + x",
        ),
        ("cond = self.step < self.warmup", "torch.logical_not("),
    ),
}

INVALID = {
    # the `else` runs when either part is false: not one Python `if` around a selection
    "flag_with_else": (
        _model(
            "self.step = 0",
            "if self.training and self.step < self.warmup:\n"
            "    h = h * 0.5\n"
            "else:\n"
            "    h = h * 2.0\n"
            "self.step += 1\n"
            "return h",
        ),
        "also holds Python values and the `if` has an `else`",
    ),
    # `or` of a Python flag and the counter: no single boolean tensor, no Python `if` around it
    "flag_or_counter": (
        _model(
            "self.step = 0",
            "self.step += 1\nif self.log_on or self.step < self.warmup:\n    h = h * 0.5\nreturn h",
        ),
        "cannot be written as one boolean tensor",
    ),
    "chained": (
        _model(
            "self.step = 0",
            "self.step += 1\nif 1 < self.step < self.warmup:\n    h = h * 0.5\nreturn h",
        ),
        "it is compared in `1 < self.step < self.warmup`",
    ),
    # Python's `n ** -1` is a float; an int64 tensor to a negative int power raises
    "negative_int_power": (
        _model("self.step = 0", "self.step += 1\nreturn h * self.step ** -1"),
        "an int64 buffer to a negative int power raises",
    ),
    "return_in_branch": (
        _model(
            "self.step = 0",
            "self.step += 1\nif self.step < self.warmup:\n    return h\nreturn h + x",
        ),
        "`return h` in the branch leaves it",
    ),
    # a flag read later in Python control flow is still a data-dependent branch
    "flag_to_python": (
        _model(
            "self.step = 0",
            "warm = self.step < self.warmup\nself.step += 1\nreturn h if warm else x",
        ),
        "decides Python control flow",
    ),
}


def _fix(tmp_path: Path, code: str) -> tuple[str, EngineResult]:
    res = fix_result(tmp_path, code, ("CL501",), name="m.py")
    return fixed_text(res, code), res


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_counter_conditions_become_tensor_selections(tmp_path: Path, case: str) -> None:
    code, wants = VALID[case]
    text, res = _fix(tmp_path, code)
    for want in wants:
        assert want in text, text
    assert 'register_buffer("' in text and "persistent=False" in text
    assert any(r.status == "applied" and r.rule == "CL501" for r in res.records), [
        (r.status, r.reason) for r in res.records
    ]


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_counter_conditions_are_refused(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    text, res = _fix(tmp_path, code)
    assert text == code
    reasons = [r.reason for r in res.records if r.rule == "CL501"]
    assert any(why in r for r in reasons), reasons


def _outs(v: Any) -> tuple[Any, ...]:
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_cases_compile_once_with_the_same_values_and_gradients(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    from torch._dynamo.testing import CompileCounter

    code, _ = VALID[case]
    fixed, _ = _fix(tmp_path, code)
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    bad_cls = load_module(tmp_path / "invalid.py", "fixstate11").Model
    good_cls = load_module(tmp_path / "valid.py", "fixstate11").Model
    torch.manual_seed(0)
    ref = bad_cls()
    bad, good, eager_good = bad_cls(), good_cls(), good_cls()
    for m in (bad, good, eager_good):
        m.load_state_dict(ref.state_dict())  # the buffer is not in the state dict
    assert set(good.state_dict()) == set(ref.state_dict())
    assert_no_graph_break(good_cls(), (torch.randn(4, 8),))
    torch._dynamo.reset()
    c_bad, c_good = CompileCounter(), CompileCounter()
    run_bad = torch.compile(bad, backend=c_bad)
    run_good = torch.compile(good, backend=c_good, fullgraph=True)
    calls = 5
    for i in range(calls):
        x = torch.randn(4, 8)
        outs = []
        for run in (ref, run_good, eager_good):
            torch.manual_seed(i)  # the same draws for each (a ratio compared with rand)
            out = run(x)
            out_t = _outs(out)
            loss = sum(o.float().sum() for o in out_t)
            grads = torch.autograd.grad(loss, list(run.parameters()), allow_unused=True)
            outs.append((out_t, grads))
        torch.manual_seed(i)
        run_bad(x)
        (want, wgrads), *others = outs
        for got, ggrads in others:
            for w, g in zip(want, got, strict=True):
                torch.testing.assert_close(g, w)
            for w, g in zip(wgrads, ggrads, strict=True):
                if w is None:  # eager gave none: the fixed model gives none or zeros
                    assert g is None or not g.any()
                else:
                    torch.testing.assert_close(g, w)
    torch._dynamo.reset()
    assert c_bad.frame_count > 1, "the original does not recompile or break"
    assert c_good.frame_count == 1, f"the fixed model compiled {c_good.frame_count} times"
    attr = next(iter(good._non_persistent_buffers_set))
    assert int(getattr(good, attr)) == int(getattr(ref, attr)) == calls
    for name, buf in ref.named_buffers():  # the other state on `self` after the calls
        torch.testing.assert_close(dict(good.named_buffers())[name], buf)
    assert int(getattr(eager_good, attr)) == calls


# ------------------------------------------------------------------ what an observing group changes
# A statement that stores into an item or attribute of a local (`neg[i, col] = v`), or records
# into a local list (`rows.append(v)`), changes that local's object: a later read sees the
# change, so the read joins the eager-only group or, where it flows on, refuses it. Before, only
# rebinding counted, and `neg[i, col] = random.randrange(n)` under the guard changed what
# `return neg` gave (the verifier caught it: "outputs differ").
def _draw_model(body: str) -> str:
    return (
        "import random\nimport time\n\n"
        + HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                h = self.proj(x)
        {body}
        """
        ).format(body=textwrap.indent(body, " " * 8))
    )


OBSERVE_INVALID = {
    "item_store_returned": (
        "CL205",
        _draw_model(
            "neg = x.clone()\n"
            "for i in range(neg.shape[0]):\n"
            "    col = 0 if random.random() < 0.5 else 2\n"
            "    neg[i, col] = 0.0\n"
            "return h + neg"
        ),
        "flows into `return h + neg`",
    ),
    "local_list_returned": (
        "CL205",
        _draw_model("rows = []\nt0 = time.perf_counter()\nrows.append(t0)\nreturn h, rows"),
        "flows into `return h, rows`",
    ),
}

OBSERVE_VALID = {
    # the changed local is only read by a report: the whole group runs only in eager
    "item_store_reported": _draw_model(
        "stats = {}\nstats['t'] = time.perf_counter()\nprint(stats)\nreturn h"
    ),
}


def _fix_rule(tmp_path: Path, code: str, rule: str) -> tuple[str, Any]:
    f = tmp_path / "m.py"
    f.write_text(code, encoding="utf-8")
    res = run_fixes([str(f)], Config(select=(rule,), cache=False), unsafe=True)
    text = res.changes[0].after.decode() if res.changes else code
    return text, res


@pytest.mark.parametrize("case", sorted(OBSERVE_INVALID))
def test_a_group_that_changes_a_local_read_later_is_refused(tmp_path: Path, case: str) -> None:
    rule, code, why = OBSERVE_INVALID[case]
    text, res = _fix_rule(tmp_path, code, rule)
    assert text == code, text
    reasons = [r.reason for r in res.records if r.rule == rule]
    assert any(why in r for r in reasons), reasons


@pytest.mark.parametrize("case", sorted(OBSERVE_VALID))
def test_a_group_whose_changed_local_is_only_reported_is_guarded(tmp_path: Path, case: str) -> None:
    code = OBSERVE_VALID[case]
    text, _ = _fix_rule(tmp_path, code, "CL205")
    body = text.split("def forward")[1]
    assert "if not torch.compiler.is_compiling():" in body
    guarded = body.split("if not torch.compiler.is_compiling():")[1]
    assert "stats['t'] = time.perf_counter()" in guarded and "print(stats)" in guarded


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(OBSERVE_VALID))
def test_observe_valid_cases_compile_whole_with_the_same_outputs(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")

    code = OBSERVE_VALID[case]
    fixed, _ = _fix_rule(tmp_path, code, "CL205")
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    bad_cls = load_module(tmp_path / "invalid.py", "fixstate11").Model
    good_cls = load_module(tmp_path / "valid.py", "fixstate11").Model
    torch.manual_seed(0)
    ref, good = bad_cls(), good_cls()
    good.load_state_dict(ref.state_dict())
    x = torch.randn(4, 8)
    torch._dynamo.reset()
    before = torch._dynamo.explain(bad_cls())(x)  # 2.13 can count 0 and list the reason
    assert before.graph_break_count or before.break_reasons, "no break before"
    torch._dynamo.reset()
    assert_no_graph_break(good, (x,))
    run = torch.compile(good, backend="eager", fullgraph=True)
    torch.testing.assert_close(run(x), ref(x))
    torch.testing.assert_close(good(x), ref(x))
    torch._dynamo.reset()
