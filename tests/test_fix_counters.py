"""Step counters on ``self`` that forward also reads become tensor buffers read as tensors
(CL501, issue 22 item 3, branch fixcount).

``self.steps += 1`` with ``tau = max(0.1, 1.0 - self.steps / self.anneal)``,
``scale = 0.0 if self.steps < self.warmup else 1.0``, ``if self.steps < self.warmup: w = ...``
or a helper method returning ``min(1.0, self.it / self.warmup)``: the counter becomes a
non-persistent 0-d buffer and every read is rewritten together (``torch.clamp``,
``torch.where``), when every value the reads make ends in arithmetic with a tensor. Reads that
cannot take a tensor (an index, a value returned to the caller) refuse the whole rewrite.

Each rewrite is an INVALID/VALID pair: the text is checked without torch; marked ``torch``,
the original recompiles as the counter steps (or breaks), the fixed text compiles whole
(``fullgraph=True``) without recompiling across the calls, its outputs equal to the
original's call by call while the counter evolves.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes

from .fix_modules import fix_result, fixed_text, load_module

HEAD = "import math\n\nimport torch\nfrom torch import nn\n\n\n"


def _model(init: str, body: str, extra: str = "") -> str:
    return HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self, warmup=3, floor=0.1, every=2):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.warmup = warmup
                self.floor = floor
                self.every = every
        {init}
        {extra}
            def forward(self, x):
                h = self.proj(x)
        {body}
        """
    ).format(
        init=textwrap.indent(init, " " * 8),
        extra=textwrap.indent(extra, " " * 4),
        body=textwrap.indent(body, " " * 8),
    )


CASES = {
    # a branch on the counter whose body is more than plain assignments (lazy regularization
    # every `every` calls): lowered statement by statement under `cond = <comparison>`
    "branch_body": (
        _model(
            "self.steps = 0",
            "self.steps += 1\nloss = h.mean()\nif self.steps % self.every == 0:\n"
            "    penalty = h.pow(2).mean()\n    loss = loss + 0.5 * penalty\nreturn loss",
        ),
        "loss = torch.where(cond, loss + 0.5 * penalty, loss)",
    ),
    "clamp": (
        _model(
            "self.steps = 0",
            "tau = max(self.floor, 1.0 - self.steps / self.warmup)\n"
            "self.steps += 1\n"
            "return h / tau",
        ),
        "tau = torch.clamp(1.0 - self.steps / self.warmup, min=self.floor)",
    ),
    "ternary": (
        _model(
            "self.num_updates = 0",
            "scale = 0.0 if self.num_updates < self.warmup else 1.0\n"
            "self.num_updates = self.num_updates + 1\n"
            "return h * scale + x",
        ),
        "scale = torch.where(self.num_updates < self.warmup, 0.0, 1.0)",
    ),
    "if": (
        _model(
            "self.steps = 0",
            "w = 0.5\n"
            "if self.steps < self.warmup:\n"
            "    w = w * (self.steps + 1) / self.warmup\n"
            "self.steps += 1\n"
            "return w * h",
        ),
        "w = torch.where(self.steps < self.warmup, w * (self.steps + 1) / self.warmup, w)",
    ),
    "power": (
        _model(
            "self.it = 0",
            "if self.training:\n"
            "    self.it += 1\n"
            "gamma = 0.5 ** (self.it // self.every)\n"
            "return x + gamma * h",
        ),
        'self.register_buffer("it", torch.tensor(0), persistent=False)',
    ),
    "alias": (
        _model(
            "self.num_steps = 0",
            "step = self.num_steps\n"
            "self.num_steps += 1\n"
            "frac = min(1.0, step / self.warmup)\n"
            "return h * frac",
        ),
        "step = self.num_steps.clone()",
    ),
    "cosine": (
        _model(
            "self.step = 0",
            "lam = 0.5 * (1.0 + math.cos(math.pi * min(self.step, self.warmup) / self.warmup))\n"
            "self.step += 1\n"
            "return h * lam",
        ),
        "torch.cos(math.pi * torch.clamp(self.step, max=self.warmup) / self.warmup)",
    ),
    "helper": (
        _model(
            "self.it = 0",
            "self.it += 1\nweight = self.ramp()\nreturn weight * h",
            extra="def ramp(self):\n    return 2.0 * min(1.0, self.it / self.warmup)\n",
        ),
        "return 2.0 * torch.clamp(self.it / self.warmup, max=1.0)",
    ),
}

REFUSED = {
    "index": (
        _model(
            "self.steps = 0\nself.table = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]",
            "w = self.table[self.steps]\nself.steps += 1\nreturn w * h",
        ),
        "read as is",
    ),
    "alias_index": (
        _model(
            "self.steps = 0\nself.table = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]",
            "s = self.steps\nself.steps += 1\nreturn self.table[s] * h",
        ),
        "`s` it is used in `return self.table[s] * h`",
    ),
    "returned": (
        _model(
            "self.steps = 0",
            "self.steps += 1\nreturn h, self.steps * 2",
        ),
        "returned to the model's caller",
    ),
    "range": (
        _model(
            "self.steps = 0",
            "self.steps += 1\nfor _ in range(min(self.steps, 3)):\n    h = h * 0.5\nreturn h",
        ),
        "argument of `range(",
    ),
}


def _fix(tmp_path: Path, code: str) -> tuple[str, EngineResult]:
    res = fix_result(tmp_path, code, ("CL501",), name="m.py")
    return fixed_text(res, code), res


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_read_of_the_counter_becomes_tensor_arithmetic(tmp_path: Path, case: str) -> None:
    code, want = CASES[case]
    text, res = _fix(tmp_path, code)
    assert want in text, text
    assert 'register_buffer("' in text and "persistent=False" in text
    assert "max(" not in text.split("def forward")[1].replace("torch.clamp", "")
    applied = [r for r in res.records if r.status == "applied"]
    assert applied and "0-d tensor" in applied[0].title and "state_dict" in applied[0].title


def test_a_step_written_as_an_assignment_steps_in_place(tmp_path: Path) -> None:
    text, _ = _fix(tmp_path, CASES["ternary"][0])
    assert "self.num_updates += 1" in text and "self.num_updates = self.num_updates" not in text


def test_a_counter_branch_calling_a_submodule_on_one_side_is_proposed(tmp_path: Path) -> None:
    code = _model(
        "self.steps = 0\nself.aux = nn.Linear(8, 8)",
        "self.steps += 1\nif self.steps > self.warmup:\n    a = self.aux(h)\n    h = h + a\n"
        "return h",
    )
    text, res = _fix(tmp_path, code)
    assert text == code
    rec = next(r for r in res.records if r.rule == "CL501")
    assert rec.status == "proposed" and "`self.aux` runs on every call" in rec.reason
    assert "torch.where(cond, h + a, h)" in rec.patch


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_read_that_cannot_take_a_tensor_refuses_the_rewrite(tmp_path: Path, case: str) -> None:
    code, why = REFUSED[case]
    text, res = _fix(tmp_path, code)
    assert text == code
    reasons = [r.reason for r in res.records if r.rule == "CL501"]
    assert any(why in r for r in reasons), reasons


# ---------------------------------------------------------------------------- against torch
@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_recompiles_and_valid_compiles_once_with_the_same_results(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    from torch._dynamo.testing import CompileCounter

    code, _ = CASES[case]
    fixed, _ = _fix(tmp_path, code)
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    bad_cls = load_module(tmp_path / "invalid.py", "fixcount").Model
    good_cls = load_module(tmp_path / "valid.py", "fixcount").Model
    torch.manual_seed(0)
    ref, bad, good = bad_cls(), bad_cls(), good_cls()
    bad.load_state_dict(ref.state_dict())
    good.load_state_dict(ref.state_dict())  # the buffer is not in the state dict
    assert set(good.state_dict()) == set(ref.state_dict())
    torch._dynamo.reset()
    c_bad, c_good = CompileCounter(), CompileCounter()
    run_bad = torch.compile(bad, backend=c_bad)
    run_good = torch.compile(good, backend=c_good, fullgraph=True)
    xs = [torch.randn(4, 8) for _ in range(5)]
    for x in xs:  # the counter evolves across the warm-up: outputs match call by call
        want = ref(x)
        got = run_good(x)
        run_bad(x)
        want_t = want if isinstance(want, tuple) else (want,)
        got_t = got if isinstance(got, tuple) else (got,)
        for w, g in zip(want_t, got_t, strict=True):
            torch.testing.assert_close(torch.as_tensor(g), torch.as_tensor(w).to(g.dtype))
    torch._dynamo.reset()
    assert c_bad.frame_count > 1, "the original does not recompile"
    assert c_good.frame_count == 1, f"the fixed model compiled {c_good.frame_count} times"
    assert int(good.__getattr__(next(iter(good._non_persistent_buffers_set)))) == 5


# ---------------------------------------------------------------------------- running values
def _acc_model(init: str, body: str, extra: str = "") -> str:
    return (
        "from collections import Counter, defaultdict\n\n"
        + HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self, dim=8, num_classes=5, momentum=0.9):
                super().__init__()
                self.fc = nn.Linear(dim, num_classes)
                self.emb = nn.Embedding(num_classes, dim)
                self.momentum = momentum
        {init}
        {extra}
            def forward(self, x):
                logits = self.fc(x)
        {body}
        """
        ).format(
            init=textwrap.indent(init, " " * 8),
            extra=textwrap.indent(extra, " " * 4),
            body=textwrap.indent(body, " " * 8),
        )
    )


RUNNING = {
    "sum": (
        "CL103",
        _acc_model(
            "self.total = 0.0",
            "loss = logits.pow(2).mean()\nself.total += loss.item()\nreturn logits, loss",
        ),
        ("self.total += loss.detach()", "torch.tensor(0.0, dtype=torch.float64)"),
    ),
    "ema": (
        "CL103",
        _acc_model(
            "self.scale_ema = 0.0",
            "scale = logits.abs().mean().item()\n"
            "self.scale_ema = self.momentum * self.scale_ema + (1 - self.momentum) * scale\n"
            "return logits",
        ),
        ("scale = logits.abs().mean().detach()",),
    ),
    "dict_get": (
        "CL105",
        _acc_model(
            "self.hist = {}",
            "preds = logits.argmax(dim=1)\n"
            "for c in preds.tolist():\n"
            "    self.hist[c] = self.hist.get(c, 0) + 1\n"
            "return logits",
        ),
        ("torch.zeros(self.fc.out_features, dtype=torch.long)", ".index_add_(0, ids,"),
    ),
    "defaultdict": (
        "CL105",
        _acc_model(
            "self.hist = defaultdict(int)",
            "idx = logits.argmax(-1)\n"
            "for k in idx.flatten().tolist():\n"
            "    self.hist[k] += 1\n"
            "return logits + self.emb(idx).sum()",
        ),
        ("torch.zeros(self.emb.num_embeddings, dtype=torch.long)",),
    ),
    "counter": (
        "CL105",
        _acc_model(
            "self.seen = Counter()",
            "preds = self.fc(x).argmax(1)\nself.seen.update(preds.tolist())\nreturn logits",
        ),
        ("torch.zeros(self.fc.out_features, dtype=torch.long)",),
    ),
}


def _fix_rule(tmp_path: Path, code: str, rule: str) -> tuple[str, Any]:
    f = tmp_path / "m.py"
    f.write_text(code, encoding="utf-8")
    res = run_fixes([str(f)], Config(select=(rule,), cache=False), unsafe=True)
    text = res.changes[0].after.decode() if res.changes else code
    return text, res


@pytest.mark.parametrize("case", sorted(RUNNING))
def test_a_running_value_or_key_count_becomes_a_tensor_buffer(tmp_path: Path, case: str) -> None:
    rule, code, wants = RUNNING[case]
    text, res = _fix_rule(tmp_path, code, rule)
    for want in wants:
        assert want in text, text
    assert "persistent=False" in text and ".tolist()" not in text and ".item()" not in text
    applied = [r for r in res.records if r.status == "applied"]
    assert applied and "state_dict is unchanged" in applied[0].title


def test_counts_of_values_of_unknown_range_are_not_rewritten(tmp_path: Path) -> None:
    code = _acc_model(
        "self.hist = {}",
        "bins = (logits * 3).round().long()\n"
        "for b in bins.flatten().tolist():\n"
        "    self.hist[b] = self.hist.get(b, 0) + 1\n"
        "return logits",
    )
    text, res = _fix_rule(tmp_path, code, "CL105")
    assert text == code
    assert any("how many keys it can hold is not known" in r.reason for r in res.records)


def test_counts_read_as_a_dict_elsewhere_are_proposed(tmp_path: Path) -> None:
    code = _acc_model(
        "self.hist = {}",
        "for c in logits.argmax(1).tolist():\n"
        "    self.hist[c] = self.hist.get(c, 0) + 1\n"
        "return logits",
        extra="def most_common(self):\n    return max(self.hist.items(), key=lambda kv: kv[1])\n",
    )
    code = code.replace(
        "for c in logits.argmax(1).tolist()",
        "preds = logits.argmax(1)\n        for c in preds.tolist()",
    )
    text, res = _fix_rule(tmp_path, code, "CL105")
    assert text == code
    props = [r for r in res.records if r.status == "proposed"]
    assert props and "most_common()" in props[0].reason and "index_add_" in props[0].patch


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(RUNNING))
def test_running_values_compile_whole_and_count_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    from torch._dynamo.testing import CompileCounter

    rule, code, _ = RUNNING[case]
    fixed, _ = _fix_rule(tmp_path, code, rule)
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    bad_cls = load_module(tmp_path / "invalid.py", "fixcount").Model
    good_cls = load_module(tmp_path / "valid.py", "fixcount").Model
    torch.manual_seed(0)
    ref, good = bad_cls(), good_cls()
    good.load_state_dict(ref.state_dict())
    assert set(good.state_dict()) == set(ref.state_dict())
    torch._dynamo.reset()
    c_bad = CompileCounter()  # the original breaks (more than one graph) or recompiles
    run_bad = torch.compile(bad_cls(), backend=c_bad)
    for _ in range(3):
        run_bad(torch.randn(6, 8))
    torch._dynamo.reset()
    ex = torch._dynamo.explain(bad_cls())(torch.randn(6, 8))
    assert c_bad.frame_count > 1 or ex.break_reasons, "the original compiles whole"
    torch._dynamo.reset()
    torch._dynamo.reset()
    cnt = CompileCounter()
    run = torch.compile(good, backend=cnt, fullgraph=True)
    for _ in range(4):
        x = torch.randn(6, 8)
        want, got = ref(x), run(x)
        want_t = want if isinstance(want, tuple) else (want,)
        got_t = got if isinstance(got, tuple) else (got,)
        for w, g in zip(want_t, got_t, strict=True):
            torch.testing.assert_close(g, w)
    torch._dynamo.reset()
    assert cnt.frame_count == 1
    attr = next(iter(good._non_persistent_buffers_set))
    state, value = getattr(ref, attr), getattr(good, attr)
    if isinstance(state, dict):  # the counts per key are the same
        assert {k: int(value[k]) for k in state} == dict(state)
        assert int(value.sum()) == sum(state.values())
    else:
        assert abs(float(value) - float(state)) < 1e-5
