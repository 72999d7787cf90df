#!/usr/bin/env python
"""Probe which Python patterns graph-break / recompile under torch.compile.

Reusable ground-truth harness for compilelint rules.  Each *case* is a tiny,
self-contained module source (``class M(torch.nn.Module)``) plus sample inputs
and optional *variants* (extra input sets, used to detect recompiles).

For every case (and, by default, a second "helper" flavour in which the pattern
lives in a helper method called from ``forward``), in a fresh dynamo state:

* the generated source is written to a real temporary ``.py`` file and
  imported, so dynamo's FILE:LINE attribution points into it;
* ``torch.compile(m, backend="eager")`` (NOT fullgraph) is run on the inputs
  and then on each variant;
* graph breaks are collected from
    (a) the structured trace logger ``torch.__trace`` (artifacts
        ``dynamo_graph_break_reason`` and ``recompile_reasons``),
    (b) ``torch._dynamo.utils.counters["graph_break"]``,
    (c) ``torch._dynamo.explain(m)(*inputs)``;
* breaks are deduplicated by (gb_type, file, line), GB ids are parsed from the
  ``gbNNNN.html`` links and resolved against
  ``torch/_dynamo/graph_break_registry.json``.

Usage::

    python benchmarks/probe_breaks.py [--out FILE] [--only SUBSTR ...]
                                      [--no-helper] [--json FILE]

Pure stdlib + torch + numpy.  Deterministic (fixed seeds, sorted output).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import importlib.resources
import importlib.util
import io
import json
import logging
import os
import re
import sys
import tempfile
import textwrap
import warnings
from typing import Any, Callable

import torch
import torch._dynamo
from torch._dynamo.utils import counters

# --------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------


def load_registry() -> dict[str, dict]:
    path = importlib.resources.files("torch._dynamo") / "graph_break_registry.json"
    raw = json.loads(path.read_text())
    return {k: v[0] for k, v in raw.items()}


REGISTRY = load_registry()
GBTYPE_TO_ID = {v["Gb_type"]: k for k, v in REGISTRY.items()}

# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------

Inputs = Callable[[torch.nn.Module], tuple]


def X(m):  # default input
    return (torch.randn(4, 8),)


def XI(m):  # int tensor
    return (torch.randint(0, 5, (4, 8)),)


def XG(m):  # requires grad
    return (torch.randn(4, 8, requires_grad=True),)


@dataclasses.dataclass
class Case:
    name: str
    body: str  # body of forward; mark the pattern line with "# <<"
    params: str = "x"
    init: str = ""  # lines for __init__ (after super().__init__())
    prelude: str = ""  # module-level code
    inputs: Inputs = X
    variants: list[Inputs] = dataclasses.field(default_factory=list)
    repeat: int = 1  # call with `inputs` this many times before variants
    helper: bool = True  # also run the helper-method flavour
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    stdin: str | None = None  # feed sys.stdin (for pdb)
    expect: str = ""  # human expectation, for the notes column
    group: str = ""


def V(*fns: Inputs) -> list[Inputs]:
    return list(fns)


CASES: list[Case] = []


def case(*a, **k) -> None:
    CASES.append(Case(*a, **k))


# ---- tensor-dependent control flow ---------------------------------------
G = "control-flow"
case("if x.sum() > 0", """
if x.sum() > 0:  # <<
    return x + 1
return x - 1
""", group=G)
case("while (x > 0).any()", """
while (x > 0).any():  # <<
    x = x - 1
return x
""", group=G)
case("ternary on x.max() > 0", """
y = x + 1
z = x - 1
return y if x.max() > 0 else z  # <<
""", group=G)
case("assert (x >= 0).all()", """
x = x.abs()
assert (x >= 0).all()  # <<
return x + 1
""", group=G)
case("assert x.sum() > 0, msg", """
x = x.abs() + 1
assert x.sum() > 0, "must be positive"  # <<
return x + 1
""", group=G)
case("x.sum() > 0 and flag", """
if x.sum() > 0 and flag:  # <<
    return x + 1
return x - 1
""", params="x, flag=True", group=G)
case("flag and x.sum() > 0", """
if flag and x.sum() > 0:  # <<
    return x + 1
return x - 1
""", params="x, flag=True", group=G)
case("if not x.any()", """
if not x.any():  # <<
    return x + 1
return x - 1
""", group=G)
case("bool(x.sum())", """
b = bool(x.sum())  # <<
return x + b
""", group=G)
case("int(x.sum())", """
n = int(x.sum())  # <<
return x + n
""", group=G)
case("float(x.sum())", """
f = float(x.sum())  # <<
return x + f
""", group=G)
case("len(x.nonzero())", """
n = len(x.nonzero())  # <<
return x + n
""", group=G)
case("if x.shape[0] > 1 (static)", """
if x.shape[0] > 1:  # <<
    return x + 1
return x - 1
""", group=G)
case("if x.dim() == 3", """
if x.dim() == 3:  # <<
    return x + 1
return x - 1
""", group=G)
case("if mask is None", """
if mask is None:  # <<
    return x + 1
return x * mask
""", params="x, mask=None", variants=V(lambda m: (torch.randn(4, 8), torch.ones(4, 8))), group=G)
case("if self.training", """
if self.training:  # <<
    return x + 1
return x - 1
""", variants=V(lambda m: (m.eval(), torch.randn(4, 8))[1:]), group=G,
     expect="variant switches to eval(): guard on training flag")
case("if x.sum().item() > 0", """
if x.sum().item() > 0:  # <<
    return x + 1
return x - 1
""", group=G)
case("torch.cond (no break)", """
return torch.cond(x.sum() > 0, lambda t: t + 1, lambda t: t - 1, (x,))  # <<
""", group=G)
case("torch.where 3-arg (no break)", """
return torch.where(x > 0, x, -x)  # <<
""", group=G)

# ---- item / numpy / host sync --------------------------------------------
G = "host-sync"
case(".item()", """
v = x.sum().item()  # <<
return x + v
""", group=G)
case("max(x.sum().item(), 1.0)", """
v = max(x.sum().item(), 1.0)  # <<
return x / v
""", group=G)
case(".tolist() float tensor", """
l = x.tolist()  # <<
return x + len(l)
""", group=G)
case(".tolist() int tensor", """
l = x.tolist()  # <<
return x + len(l)
""", inputs=XI, group=G)
case(".tolist() int tensor, values used", """
l = x[0].tolist()  # <<
return x + l[0]
""", inputs=XI, group=G)
case(".numpy()", """
a = x.numpy()  # <<
return x + a.sum()
""", group=G)
case(".cpu().numpy()", """
a = x.cpu().numpy()  # <<
return torch.from_numpy(a) + 1
""", group=G)
case(".detach().cpu().numpy() returned", """
y = x + 1
return y.detach().cpu().numpy()  # <<
""", group=G)
case(".numpy().tolist()", """
l = x.numpy().tolist()  # <<
return x + len(l)
""", group=G)
case("float(x.numpy().sum())", """
f = float(x.numpy().sum())  # <<
return x + f
""", group=G)
case("np.random.default_rng()", """
rng = np.random.default_rng(0)  # <<
return x + float(rng.random())
""", prelude="import numpy as np", group=G)
case("np.random.rand()", """
r = np.random.rand()  # <<
return x + r
""", prelude="import numpy as np\nnp.random.seed(0)", group=G)
case("np.sum(tensor)", """
s = np.sum(x)  # <<
return x + s
""", prelude="import numpy as np", group=G)
case("np.float32 constant", """
return x * np.float32(2.0)  # <<
""", prelude="import numpy as np", group=G)
case(".data_ptr() as dict key", """
k = x.data_ptr()  # <<
self.cache[k] = x
return x + len(self.cache)
""", init="self.cache = {}", variants=V(X, X), group=G)
case(".data_ptr() computed only", """
p = x.data_ptr()  # <<
return x + 1
""", variants=V(X), group=G)
case("x.sum().backward-free .cpu()", """
return x.cpu() + 1  # <<
""", group=G)

# ---- data-dependent output shapes ----------------------------------------
G = "dynamic-shape"
case("x.nonzero()", """
return x.nonzero()  # <<
""", group=G)
case("torch.nonzero(x)", """
return torch.nonzero(x)  # <<
""", group=G)
case("x[x > 0]", """
return x[x > 0]  # <<
""", group=G)
case("x[mask] bool mask input", """
return x[mask]  # <<
""", params="x, mask", inputs=lambda m: (torch.randn(4, 8), torch.randn(4, 8) > 0), group=G)
case("torch.masked_select", """
return torch.masked_select(x, x > 0)  # <<
""", group=G)
case("torch.unique", """
return torch.unique(x)  # <<
""", inputs=XI, group=G)
case("torch.where(cond) 1-arg", """
return torch.where(x > 0)  # <<
""", group=G)
case("torch.argwhere", """
return torch.argwhere(x)  # <<
""", group=G)
case("torch.bincount", """
return torch.bincount(x)  # <<
""", inputs=lambda m: (torch.randint(0, 5, (16,)),), group=G)
case("repeat_interleave(tensor repeats)", """
return torch.repeat_interleave(x, r, dim=0)  # <<
""", params="x, r", inputs=lambda m: (torch.randn(4, 8), torch.tensor([1, 2, 1, 3])), group=G)
case("repeat_interleave(..., output_size=)", """
return torch.repeat_interleave(x, r, dim=0, output_size=7)  # <<
""", params="x, r", inputs=lambda m: (torch.randn(4, 8), torch.tensor([1, 2, 1, 3])), group=G)
case("x[x > 0].sum()", """
return x[x > 0].sum()  # <<
""", group=G)
case("x.nonzero() then more ops", """
idx = x.nonzero()  # <<
return idx.float().sum() + x.sum()
""", group=G)

# ---- side effects / python builtins --------------------------------------
G = "side-effect"
case("print(...)", """
print("probe", x.shape)  # <<
return x + 1
""", group=G)
case("print(tensor)", """
print(x)  # <<
return x + 1
""", group=G)
case("logger.info", """
logging.getLogger(__name__).info("probe %s", 1)  # <<
return x + 1
""", prelude="import logging", group=G)
case("logger.warning (module-level logger)", """
log.warning("probe %s", 1)  # <<
return x + 1
""", prelude="import logging\nlog = logging.getLogger('probe_quiet')\nlog.propagate = False\nlog.addHandler(logging.NullHandler())", group=G)
case("warnings.warn", """
warnings.warn("probe")  # <<
return x + 1
""", prelude="import warnings", group=G)
case("breakpoint() [PYTHONBREAKPOINT=0]", """
breakpoint()  # <<
return x + 1
""", env={"PYTHONBREAKPOINT": "0"}, group=G)
case("pdb.set_trace() [stdin='c']", """
pdb.set_trace()  # <<
return x + 1
""", prelude="import pdb", stdin="c\nc\nc\nc\nc\nc\n", helper=False, group=G)
case("copy.deepcopy(x)", """
y = copy.deepcopy(x)  # <<
return y + 1
""", prelude="import copy", group=G)
case("copy.deepcopy(self.sub)", """
sub = copy.deepcopy(self.sub)  # <<
return sub(x)
""", prelude="import copy", init="self.sub = torch.nn.Linear(8, 8)", group=G)
case("time.time()", """
t = time.time()  # <<
return x + 1
""", prelude="import time", group=G)
case("time.perf_counter()", """
t = time.perf_counter()  # <<
return x + 1
""", prelude="import time", group=G)
case("os.getenv", """
v = os.getenv("PROBE_X")  # <<
return x + (1 if v else 0)
""", prelude="import os", group=G)
case("os.environ.get", """
v = os.environ.get("PROBE_X", "")  # <<
return x + len(v)
""", prelude="import os", group=G)
case("sys.getsizeof", """
n = sys.getsizeof(x)  # <<
return x + 1
""", prelude="import sys", group=G)
case("inspect.signature", """
sig = inspect.signature(_f)  # <<
return x + len(sig.parameters)
""", prelude="import inspect\ndef _f(a, b):\n    return a", group=G)
case("importlib.import_module", """
mm = importlib.import_module("math")  # <<
return x * mm.pi
""", prelude="import importlib", group=G)
case("open() file read", """
with open(__file__) as fh:  # <<
    n = len(fh.read())
return x + 1
""", group=G)
case("json.dumps", """
s = json.dumps({"a": 1})  # <<
return x + len(s)
""", prelude="import json", group=G)
case("random.random()", """
r = random.random()  # <<
return x + r
""", prelude="import random\nrandom.seed(0)", variants=V(X, X), group=G)
case("random.randint", """
r = random.randint(0, 10)  # <<
return x + r
""", prelude="import random\nrandom.seed(0)", variants=V(X, X), group=G)
case("generator (yield) consumed in forward", """
out = sum(_gen(x))  # <<
return out
""", prelude="def _gen(t):\n    for i in range(3):\n        yield t * i", group=G)
case("generator with tensor-dependent break inside", """
out = list(_gen(x))  # <<
return out[0]
""", prelude="def _gen(t):\n    for i in range(2):\n        print('g')\n        yield t * i", group=G)
case("global COUNTER += 1", """
global COUNTER
COUNTER += 1  # <<
return x + 1
""", prelude="COUNTER = 0", variants=V(X, X), group=G)
case("global COUNTER used in math", """
global COUNTER
COUNTER += 1  # <<
return x + COUNTER
""", prelude="COUNTER = 0", variants=V(X, X), group=G)
case("nonlocal mutation", """
n = 0
def inc():
    nonlocal n
    n += 1  # <<
inc()
inc()
return x + n
""", group=G)
case("str(x)", """
s = str(x)  # <<
return x + 1
""", group=G)
case("f-string f'{x}'", """
s = f"{x}"  # <<
return x + 1
""", group=G)
case("f-string of shape (no break?)", """
s = f"{x.shape}"  # <<
return x + 1
""", group=G)
case("repr(x)", """
s = repr(x)  # <<
return x + 1
""", group=G)
case("id(x)", """
i = id(x)  # <<
return x + 1
""", group=G)
case("id(x) used as dict key", """
self.cache[id(x)] = 1  # <<
return x + len(self.cache)
""", init="self.cache = {}", variants=V(X, X), group=G)
case("hash(tuple of ints)", """
h = hash((1, 2))  # <<
return x + 1
""", group=G)
case("hash(x)", """
h = hash(x)  # <<
return x + 1
""", group=G)
case("try/except catching raised exception", """
try:
    raise ValueError("boom")  # <<
except ValueError:
    x = x + 1
return x
""", group=G)
case("try/except around tensor-dependent raise", """
try:
    if x.sum() > 1e9:  # <<
        raise ValueError("boom")
except ValueError:
    x = x + 1
return x
""", group=G)
case("@contextlib.contextmanager", """
with _cm():  # <<
    y = x + 1
return y
""", prelude="import contextlib\n@contextlib.contextmanager\ndef _cm():\n    yield", group=G)
case("torch.no_grad() ctx (no break?)", """
with torch.no_grad():  # <<
    y = x + 1
return y
""", group=G)
case("torch.manual_seed(0)", """
torch.manual_seed(0)  # <<
return x + torch.rand_like(x)
""", group=G)
case("x.backward() in compiled fn", """
y = (x * 2).sum()
y.backward()  # <<
return x.grad
""", inputs=XG, group=G)
case("x.requires_grad_()", """
y = x.detach().clone()
y.requires_grad_()  # <<
return y * 2
""", group=G)
case("x.requires_grad = True", """
y = x.detach().clone()
y.requires_grad = True  # <<
return y * 2
""", group=G)
case("self.register_forward_hook in forward", """
self.register_forward_hook(_hook)  # <<
return x + 1
""", prelude="def _hook(mod, inp, out):\n    return None", group=G)
case("x.register_hook in forward", """
y = x * 2
y.register_hook(lambda g: g * 2)  # <<
return y
""", inputs=XG, group=G)
case("self.counter += 1 (int attr, 3 calls)", """
self.counter += 1  # <<
return x + 1
""", init="self.counter = 0", repeat=3, group=G)
case("self.counter += 1 used in math (3 calls)", """
self.counter += 1  # <<
return x + self.counter
""", init="self.counter = 0", repeat=3, group=G)
case("self.counter += 1 (10 calls: recompile limit)", """
self.counter += 1  # <<
return x + 1
""", init="self.counter = 0", repeat=10, group=G)
case("global COUNTER += 1 (10 calls: recompile limit)", """
global COUNTER
COUNTER += 1  # <<
return x + 1
""", prelude="COUNTER = 0", repeat=10, group=G)
case("self.cache = x (tensor attr)", """
self.cache = x  # <<
return x + 1
""", init="self.cache = None", variants=V(X, X), group=G)
case("self.flag = not self.flag (3 calls)", """
self.flag = not self.flag  # <<
return x + 1 if self.flag else x - 1
""", init="self.flag = False", repeat=3, group=G)
case("x.data read", """
y = x.data  # <<
return y + 1
""", group=G)
case("x.data = y", """
x.data = torch.zeros_like(x)  # <<
return x + 1
""", group=G)
case("torch.compile inside forward", """
f = torch.compile(_inner, backend="eager")  # <<
return f(x)
""", prelude="def _inner(t):\n    return t + 1", group=G)
case("call torch.compiler.disable'd fn", """
y = _dis(x)  # <<
return y + 1
""", prelude="@torch.compiler.disable\ndef _dis(t):\n    return t * 2", group=G)
case("x.tolist() inside for loop", """
out = x
for i in range(3):
    l = x.tolist()  # <<
    out = out + len(l)
return out
""", group=G)
case("print() inside for loop", """
out = x
for i in range(3):
    print("it", i)  # <<
    out = out + i
return out
""", group=G)
case(".item() inside for loop", """
out = x
for i in range(3):
    out = out + x[i].sum().item()  # <<
return out
""", group=G)
case("tensor-dependent if inside for loop", """
out = x
for i in range(3):
    if x[i].sum() > 0:  # <<
        out = out + 1
return out
""", group=G)

case("F.one_hot without num_classes", """
return torch.nn.functional.one_hot(x)  # <<
""", inputs=lambda m: (torch.randint(0, 5, (6,)),), group=G)
case("F.one_hot with num_classes (no break?)", """
return torch.nn.functional.one_hot(x, num_classes=5)  # <<
""", inputs=lambda m: (torch.randint(0, 5, (6,)),), group=G)
case("torch.tensor([x.sum(), x.mean()])", """
return torch.tensor([x.sum(), x.mean()])  # <<
""", group=G)
case("torch.stack([x.sum(), x.mean()]) (no break?)", """
return torch.stack([x.sum(), x.mean()])  # <<
""", group=G)
case("explicit torch._dynamo.graph_break()", """
y = x + 1
torch._dynamo.graph_break()  # <<
return y * 2
""", group=G)
case("functools.lru_cache fn call", """
return x * _cached(3)  # <<
""", prelude="import functools\n@functools.lru_cache(maxsize=None)\ndef _cached(n):\n    return n * 2", group=G)
case("hash(x) returned (FakeId reconstruction)", """
return x + 1, hash(x)  # <<
""", group=G)

# ---- recompile hazards ----------------------------------------------------
G = "recompile"


def _xs(v):
    return lambda m: (torch.randn(4, 8), v)


case("python float arg varying", """
return x * s  # <<
""", params="x, s", inputs=_xs(1.0), variants=V(_xs(2.0), _xs(3.0), _xs(4.0), _xs(5.0)), group=G)
case("python int arg varying", """
return x * n  # <<
""", params="x, n", inputs=_xs(2), variants=V(_xs(3), _xs(4), _xs(5)), group=G)
case("python int arg used in range()", """
for i in range(n):  # <<
    x = x + 1
return x
""", params="x, n", inputs=_xs(2), variants=V(_xs(3), _xs(4), _xs(5)), group=G)
case("python bool arg varying", """
return x + 1 if b else x - 1  # <<
""", params="x, b", inputs=_xs(True), variants=V(_xs(False), _xs(True)), group=G)
case("string arg varying", """
return x + len(mode)  # <<
""", params="x, mode", inputs=_xs("a"), variants=V(_xs("bb"), _xs("ccc"), _xs("dddd")), group=G)
case("string arg compared", """
if mode == "train":  # <<
    return x + 1
return x - 1
""", params="x, mode", inputs=_xs("train"), variants=V(_xs("eval"), _xs("other"), _xs("x4")), group=G)


def _w(n):
    return lambda m: (torch.randn(4, n),)


case("if x.shape[1] > 512 (256/1024)", """
if x.shape[1] > 512:  # <<
    return x + 1
return x - 1
""", inputs=_w(256), variants=V(_w(1024), _w(300), _w(2000)), group=G)


def _b(n):
    return lambda m: (torch.randn(n, 8),)


case("varying batch size, no branch", """
return x * 2  # <<
""", inputs=_b(4), variants=V(_b(5), _b(6), _b(7)), group=G)
case("dtype change", """
return x * 2  # <<
""", inputs=X, variants=V(lambda m: (torch.randn(4, 8, dtype=torch.float64),)), group=G)
case("requires_grad change", """
return x * 2  # <<
""", inputs=X, variants=V(XG), group=G)
case("list-of-ints arg varying", """
return x.reshape(shape)  # <<
""", params="x, shape", inputs=lambda m: (torch.randn(4, 8), [8, 4]),
     variants=V(lambda m: (torch.randn(4, 8), [2, 16]), lambda m: (torch.randn(4, 8), [16, 2])), group=G)

# --------------------------------------------------------------------------
# source generation
# --------------------------------------------------------------------------

MARK = "# <<"


def _param_names(params: str) -> list[str]:
    return [p.split("=")[0].strip() for p in params.split(",") if p.strip()]


def build_source(c: Case, helper: bool) -> tuple[str, int]:
    """Return (source, 1-based line of the '# <<' marker)."""
    body = textwrap.dedent(c.body).strip("\n")
    lines = ["import torch", "import torch.nn"]
    if c.prelude:
        lines += textwrap.dedent(c.prelude).strip("\n").splitlines()
    lines += [
        "",
        "",
        "class M(torch.nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
    ]
    for ln in textwrap.dedent(c.init).strip("\n").splitlines():
        lines.append("        " + ln)
    if helper:
        call = ", ".join(f"{n}={n}" for n in _param_names(c.params)[1:])
        first = _param_names(c.params)[0]
        args = first + (", " + call if call else "")
        lines += [
            "",
            f"    def forward(self, {c.params}):",
            f"        return self._helper({args})",
            "",
            f"    def _helper(self, {c.params}):",
        ]
    else:
        lines += ["", f"    def forward(self, {c.params}):"]
    start = len(lines)
    lines += ["        " + ln if ln else "" for ln in body.splitlines()]
    src = "\n".join(lines) + "\n"
    mark = -1
    for i, ln in enumerate(lines[start:], start=start + 1):
        if MARK in ln:
            mark = i
            break
    return src, mark


# --------------------------------------------------------------------------
# capture
# --------------------------------------------------------------------------

GB_LINK_RE = re.compile(r"gb(\d{4})\.html")
WHERE_RE = re.compile(r"Graph break in user code at (.+?):(\d+)")
FILE_LINE_RE = re.compile(r'File "([^"]+)", line (\d+)')


class TraceCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.breaks: list[str] = []
        self.recompiles: list[Any] = []

    def emit(self, record: logging.LogRecord) -> None:
        md = getattr(record, "metadata", None) or {}
        art = md.get("artifact") or {}
        name = art.get("name")
        if name == "dynamo_graph_break_reason":
            self.breaks.append(str(getattr(record, "payload", "")))
        elif name == "recompile_reasons":
            self.recompiles.append(getattr(record, "payload", ""))


@contextlib.contextmanager
def trace_capture():
    lg = logging.getLogger("torch.__trace")
    h = TraceCollector()
    old_level = lg.level
    lg.setLevel(logging.DEBUG)
    lg.addHandler(h)
    try:
        yield h
    finally:
        lg.removeHandler(h)
        lg.setLevel(old_level)


def parse_break(payload: str, path: str) -> dict:
    ids = list(dict.fromkeys(GB_LINK_RE.findall(payload)))
    gb_id = f"GB{ids[0]}" if ids else None
    # further links = breaks raised while handling the first (e.g. GB7000 "graph break in loop")
    secondary = [f"GB{i}" for i in ids[1:]]
    gb_type = REGISTRY.get(gb_id, {}).get("Gb_type") if gb_id else None
    if gb_type is None:
        m = re.search(r"Graph Break Reason: (.*)", payload)
        head = m.group(1).strip() if m else ""
        for t in sorted(GBTYPE_TO_ID, key=len, reverse=True):
            if t in payload:
                gb_type, gb_id = t, GBTYPE_TO_ID[t]
                break
        else:
            gb_type = head[:80] or payload.splitlines()[0][:80]
    m = WHERE_RE.search(payload)
    head2 = "\n".join(payload.splitlines()[:3])
    skip = (
        "cannot properly resume" in payload
        or "Skipping the function" in head2
        or "frame skipped" in payload
        or "skip" in payload.splitlines()[0].lower()
    )
    if m:
        file, line = m.group(1), int(m.group(2))
    else:  # "skip" style message: take last frame in our file from the user stack
        hits = [(f, int(n)) for f, n in FILE_LINE_RE.findall(payload.split("Traceback (most recent call last)")[0]) if f == path]
        file, line = hits[-1] if hits else ("?", -1)
    in_user_file = os.path.abspath(file) == os.path.abspath(path)
    # innermost frame of the user file in the "User code traceback" (useful when the
    # header points into a library frame such as copy.py / logging / hooks.py)
    tb = payload.split("User code traceback:")[-1].split("Traceback (most recent call last)")[0]
    user_hits = [int(n) for f, n in FILE_LINE_RE.findall(tb) if os.path.abspath(f) == os.path.abspath(path)]
    user_line = user_hits[-1] if user_hits else (line if in_user_file else -1)
    return {
        "gb_id": gb_id,
        "gb_type": gb_type,
        "secondary": secondary,
        "secondary_types": [REGISTRY.get(i, {}).get("Gb_type", "?") for i in secondary],
        "reason_head": (re.search(r"Graph Break Reason: (.*)", payload) or [None, ""])[1][:160],
        "file": file,
        "line": line,
        "in_user_file": in_user_file,
        "user_line": user_line,
        "skip_frame": skip,
    }


def _short_recompile(p: Any) -> str:
    if isinstance(p, str):
        try:
            p = json.loads(p)
        except Exception:
            pass
    if isinstance(p, list):
        p = p[0] if p else ""
    s = str(p).strip().splitlines()[0] if str(p).strip() else ""
    s = s.split("  #")[0].split(" # ")[0].strip()  # drop "# source line  # /tmp/path:line" suffix
    s = re.sub(r"0x[0-9a-f]+", "0x…", s)
    s = re.sub(r"\s+", " ", s)
    return s[:110]


def import_tmp(src: str, tag: str, tmpdir: str):
    fname = re.sub(r"\W+", "_", tag).strip("_").lower()[:60]
    path = os.path.join(tmpdir, f"probe_{fname}.py")
    with open(path, "w") as fh:
        fh.write(src)
    modname = f"_probe_{fname}_{abs(hash(path)) % 10**8}"
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod, path


@contextlib.contextmanager
def patched_env(env: dict[str, str], stdin: str | None):
    old = {k: os.environ.get(k) for k in env}
    old_stdin, old_stdout = sys.stdin, sys.stdout
    os.environ.update(env)
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        sys.stdin, sys.stdout = old_stdin, old_stdout
        sys.settrace(None)


def fresh() -> None:
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    import random

    random.seed(0)
    try:
        import numpy as np

        np.random.seed(0)
    except Exception:
        pass


def run_case(c: Case, helper: bool, tmpdir: str) -> dict:
    src, mark = build_source(c, helper)
    tag = c.name + ("__helper" if helper else "")
    res: dict[str, Any] = {"case": c.name, "group": c.group, "helper": helper, "mark_line": mark, "errors": []}
    sink = io.StringIO()
    with patched_env(c.env, c.stdin), contextlib.redirect_stdout(sink), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod, path = import_tmp(src, tag, tmpdir)
        res["path"] = path
        # ---- compile + run --------------------------------------------
        fresh()
        m = mod.M()
        cm = torch.compile(m, backend="eager")
        calls = [c.inputs] * c.repeat + list(c.variants)
        with trace_capture() as tc:
            for i, mk in enumerate(calls):
                torch.manual_seed(i)
                try:
                    cm(*mk(m))
                except Exception as e:  # noqa: BLE001
                    res["errors"].append(f"call{i}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
        gb_counter = dict(counters.get("graph_break", {}))
        unimpl = dict(counters.get("unimplemented", {}))
        unique_graphs = counters.get("stats", {}).get("unique_graphs", 0)
        # ---- explain ---------------------------------------------------
        fresh()
        m2 = mod.M()
        torch.manual_seed(0)
        try:
            ex = torch._dynamo.explain(m2)(*c.inputs(m2))
            res["explain_graph_count"] = ex.graph_count
            res["explain_break_count"] = ex.graph_break_count
            res["explain_n_reasons"] = len(ex.break_reasons)
            res["explain_n_gb_reasons"] = sum(1 for r in ex.break_reasons if getattr(r, "graph_break", True))
            res["explain_reasons"] = [str(getattr(r, "reason", r)).splitlines()[0][:120] for r in ex.break_reasons]
            res["explain_reason_lines"] = sorted(
                {fs.lineno for r in ex.break_reasons for fs in (getattr(r, "user_stack", None) or [])[-1:] if fs.filename == path}
            )
        except Exception as e:  # noqa: BLE001
            res["explain_graph_count"] = None
            res["explain_break_count"] = None
            res["explain_n_reasons"] = None
            res["explain_n_gb_reasons"] = None
            res["explain_reasons"] = [f"explain raised {type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}"]
            res["explain_reason_lines"] = []
        fresh()
    # ---- post-process ----------------------------------------------------
    parsed = [parse_break(p, path) for p in tc.breaks]
    dedup: dict[tuple, dict] = {}
    for b in parsed:
        k = (b["gb_type"], os.path.basename(b["file"]), b["line"])
        if k in dedup:  # merge follow-up ids (e.g. GB7000 on the frame-level retry)
            d = dedup[k]
            for sid, st in zip(b["secondary"], b["secondary_types"]):
                if sid not in d["secondary"]:
                    d["secondary"].append(sid)
                    d["secondary_types"].append(st)
            d["skip_frame"] = d["skip_frame"] or b["skip_frame"]
        else:
            dedup[k] = b
    res["raw_break_records"] = len(tc.breaks)
    res["breaks"] = sorted(dedup.values(), key=lambda b: (b["line"], b["gb_id"] or ""))
    res["recompiles"] = len(tc.recompiles)
    res["recompile_reasons"] = sorted({_short_recompile(p) for p in tc.recompiles})
    res["counter_graph_break"] = sum(gb_counter.values())
    res["counter_graph_break_keys"] = len(gb_counter)
    res["counter_unimplemented"] = sum(unimpl.values())
    logged = {i for b in res["breaks"] for i in [b["gb_id"], *b["secondary"]]}
    # Unsupported raised but never logged as a graph break (e.g. GB0039 recompile limit)
    res["unlogged_unimplemented_ids"] = sorted(
        {f"GB{i}" for k in list(unimpl) + list(gb_counter) for i in GB_LINK_RE.findall(k)} - logged
    )
    res["unique_graphs"] = unique_graphs
    res["stdout_chars"] = len(sink.getvalue())
    return res


ANALYST_NOTES = """\
## Analyst notes (written against torch 2.13.0+cpu — re-check when the table changes)

Key facts, derived from the table below plus a few direct value checks:

* **Data-dependent Python control flow** on a tensor (`if t:`, `while t:`, ternary, `and`/`or`/`not` in an
  `if`) → **GB0170 "Data-dependent branching"**, attributed to the `if`/`while` line. `bool()/int()/float()`
  of a 0-d tensor, `.item()`, `max(t.item(), c)`, `if t.item() > 0` → **GB0124** (`.item()` with
  capture_scalar_outputs=False), *not* GB0170.
* **`assert <tensor expr>` does NOT graph-break** (with or without a message): dynamo lowers it to a runtime
  assert in the graph (a failing assert still raises `RuntimeError: <msg>` at run time).
* `x.shape[0] > 1`, `x.dim() == 3`, `mask is None`, `self.training`, `torch.cond`, 3-arg `torch.where`,
  `F.one_hot(..., num_classes=)`, `torch.tensor([t.sum(), t.mean()])`, `torch.stack` do not break.
  `mask is None` / `self.training` only add a guard → 1 recompile when the value flips.
* **Dynamic-output-shape ops** → **GB0036 "Dynamic shape operator"**: `nonzero` (method and function),
  `len(x.nonzero())`, `x[bool_mask]` (computed or input mask), `masked_select`, `unique`, 1-arg `torch.where`,
  `argwhere`, `bincount`, `repeat_interleave(tensor_repeats)`. `repeat_interleave(..., output_size=N)` does
  **not** break. `F.one_hot(x)` without num_classes → **GB0246**.
* **`.tolist()`**: float tensor → **GB0109**; int tensor → **GB0033 "Data dependent operator"**.
  `.numpy()`, `.cpu().numpy()`, `.detach().cpu().numpy()`, `np.sum(tensor)`, `np.float32(c)` do **not**
  break (config.trace_numpy=True); but `.numpy().tolist()` → GB0109 and `float(x.numpy().sum())` → GB0033.
  `np.random.rand()` → GB0033; `np.random.default_rng()` → GB0294 (+ GB0156 on the next line using the rng).
* **Host/stdlib calls that break with GB0007 "Attempted to call function marked as skipped"**:
  `time.time()`, `time.perf_counter()`, `sys.getsizeof`, `importlib.import_module`, `warnings.warn`,
  `random.random()`, `torch.manual_seed`, `pdb.set_trace()` (header points into pdb.py).
  `print(...)`, `breakpoint()`, `str(tensor)` → **GB0059 "Failed to trace builtin operator"**; `repr(tensor)`
  → **GB0569**; `logger.info/warning` → **GB0291** (`logging.getLogger(__name__).info` additionally GB6215
  inside logging/__init__.py); `copy.deepcopy` of a tensor *or of a module* → **GB4198** (header in copy.py);
  `json.dumps` → **GB0156** (header in torch/_dynamo/polyfills); `open()` → GB0059 + GB0142 (unsupported
  context manager); `self.register_forward_hook` in forward → **GB0467** (header in torch/utils/hooks.py);
  calling a `torch.compiler.disable`d function → **GB0098**; `torch._dynamo.graph_break()` → GB0025;
  `x.backward()` → **GB0123**; `y.requires_grad_()` on an intermediate returned as output → **GB8985**;
  `y.requires_grad = True` → **GB0206**; `hash(x)`/`id(x)` *returned* from the frame → GB4501 (frame skipped).
* **No break** (traced or constant-folded; values checked to match eager): `os.getenv`, `os.environ.get`,
  `inspect.signature`, `json`-free dict/str work, `random.randint` (dynamo replays the RNG; values vary per call),
  generators/`yield` consumed in forward, `nonlocal` mutation, `global` mutation, `f"{x}"` (no break logged,
  correct string), `id(x)`/`hash(x)` when not returned, `try/except` of a Python-raised exception,
  `@contextlib.contextmanager`, `torch.no_grad()`, `x.data` read and `x.data = y`, `x.register_hook(fn)`,
  `self.cache = tensor`, `x.data_ptr()` (correct per-call value, no recompile), `torch.compile(...)` called
  inside forward, `functools.lru_cache`d helper.
* **Graph break inside a `for`/`while` loop**: the inner GB id is followed by **GB7000 "graph break in loop"**
  in the same message; the whole frame is skipped and runs eagerly (explain graph_count=0). No resume
  function is created, so *everything* in that frame (not just the loop) is uncompiled.
* **Recompiles** (count = `recompile_reasons` artifacts over the calls listed):
  Python float arg 1.0..5.0 → 1 (guard `s == 1.0`, then automatic dynamic); int arg 2..5 → 1; int arg used
  in `range(n)` → recompiles on **every** new value; bool arg → 1; str arg → **every** new value;
  batch size 4→5→6→7 → 1 (`size mismatch at index 0`, then dynamic); `x.shape[1] > 512` with 256→1024→300→2000
  → 2 (size mismatch, then `513 <= x.size()[1]` guard); dtype change → 1; requires_grad change → 1;
  list-of-int arg → 2; `self.counter += 1` / `global COUNTER += 1` → recompile on **every call** (guard
  `self.counter == N`) until `recompile_limit` (8) is hit, after which the frame silently runs eager —
  GB0039 appears only in `counters["unimplemented"]`, never as a `dynamo_graph_break_reason` artifact.
  `self.flag = not self.flag` → 1 (two cached entries). `self.cache[x.data_ptr()] = x` → recompiles because of
  the dict-length guard; `self.cache[id(x)] = ...` → recompiles ("cache line invalidated because L['x'] got
  deallocated"). `random.random()` → 1 recompile of the *resume* function (guard `___stack0 == <float>`).
* **Helper methods**: moving the pattern into `self._helper()` gives the same GB ids and recompile counts
  (nested_graph_breaks=False); the attributed line is the line inside the helper.
* **Signals**: `counters["graph_break"]` is unreliable as a count — it is 0 for GB0170 (data-dependent jump),
  for skipped frames (GB7000, GB4501) and it double-counts breaks inside inlined helpers. `torch._dynamo.explain`
  only records a break_reason when a non-empty graph is compiled before the break, so it misses breaks that
  precede any tensor op, and reports graph_count=0 for skipped frames. The `torch.__trace`
  `dynamo_graph_break_reason` artifact is the complete source; dedupe by (gb_type, file, line).
* **Attribution**: the `Graph break in user code at FILE:LINE` header is the pattern line in all cases except
  when the break happens inside a library Python function dynamo inlines (copy.deepcopy, json.dumps,
  logging, pdb, register_forward_hook): then FILE:LINE is the library frame and the user line must be taken
  from the innermost user-file frame of the "User code traceback". Breaks inside a user generator are
  attributed to the generator body line, not the consuming line.
"""


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def _esc(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def fmt_id(b: dict) -> str:
    return "→".join([b["gb_id"] or "?"] + b.get("secondary", []))


def fmt_lines(r: dict) -> str:
    out = []
    for b in r["breaks"]:
        rel = ""
        if not b["in_user_file"]:
            u = b.get("user_line", -1)
            tag = "=pattern" if u == r["mark_line"] else "user"
            rel = f"{os.path.basename(b['file'])}:{b['line']} ({tag} {u})"
        elif b["line"] == r["mark_line"]:
            rel = f"{b['line']}(=pattern)"
        else:
            rel = f"{b['line']}(pattern@{r['mark_line']})"
        out.append(rel)
    return ", ".join(out) or "-"


def notes_for(r: dict) -> str:
    n = []
    if any(b["skip_frame"] for b in r["breaks"]):
        n.append("frame skipped (whole frame falls back to eager)")
    if r["recompile_reasons"]:
        more = " …" if len(r["recompile_reasons"]) > 2 else ""
        n.append("recompile guard(s): " + "; ".join(r["recompile_reasons"][:2]) + more)
    if r["errors"]:
        n.append("errors: " + "; ".join(r["errors"][:2]))
    if r.get("unlogged_unimplemented_ids"):
        n.append("counters[unimplemented] only: " + ", ".join(
            f"{i} ({REGISTRY.get(i, {}).get('Gb_type', '?')})" for i in r["unlogged_unimplemented_ids"]))
    if r["counter_graph_break"] != len(r["breaks"]):
        n.append(f"counters[graph_break]={r['counter_graph_break']}")
    eb = r["explain_n_gb_reasons"]
    if eb is not None and eb != len(r["breaks"]):
        n.append(f"explain break_reasons={eb} vs log={len(r['breaks'])}")
    if r["explain_reasons"] and r["explain_graph_count"] is None:
        n.append(r["explain_reasons"][0])
    return "; ".join(n)


def render(results: list[dict], argv: list[str]) -> str:
    out = [
        f"# torch.compile graph-break / recompile probe — torch {torch.__version__}",
        "",
        "Generated by `python benchmarks/probe_breaks.py`" + (f" (filtered: {argv})" if any(a.startswith("--only") for a in argv) else "")
        + " (backend=\"eager\", not fullgraph). Each case also runs in a *helper* flavour: the pattern moved into "
        "`self._helper(...)` called from `forward`.",
        f"Python {sys.version.split()[0]}; numpy {__import__('numpy').__version__}; "
        f"dynamo config: specialize_float={torch._dynamo.config.specialize_float}, "
        f"automatic_dynamic_shapes={torch._dynamo.config.automatic_dynamic_shapes}, "
        f"capture_scalar_outputs={torch._dynamo.config.capture_scalar_outputs}, "
        f"capture_dynamic_output_shape_ops={torch._dynamo.config.capture_dynamic_output_shape_ops}, "
        f"trace_numpy={torch._dynamo.config.trace_numpy}, nested_graph_breaks={torch._dynamo.config.nested_graph_breaks}, "
        f"recompile_limit={torch._dynamo.config.recompile_limit}.",
        "",
        "Columns: *breaks* = distinct graph breaks from `torch.__trace` `dynamo_graph_break_reason` artifacts, "
        "deduplicated by (gb_type, file, line); *line(s)* = line attributed in the generated file "
        "(`(=pattern)` means it is the line of the probed pattern); *recompiles* = number of `recompile_reasons` "
        "artifacts over all calls (inputs × repeat + variants); *explain* = `torch._dynamo.explain` graph_count / "
        "number of break_reasons (GraphCompileReason with graph_break=True) on the first input set only. Note explain's own graph_break_count is just graph_count-1 and break_reasons are only recorded when a non-empty graph is compiled, so explain undercounts breaks that happen before any tensor op; *ctr* = `counters[\"graph_break\"]` total.",
        "",
    ]
    if not any(a.startswith("--only") for a in argv) and torch.__version__.startswith("2.13"):
        out += [ANALYST_NOTES, ""]
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r["group"], []).append(r)
    for g, rs in groups.items():
        out += [f"## {g}", "", "| case | flavour | breaks | gb_type(s) | GB id(s) | line(s) attributed | recompiles | explain graphs / break_reasons | ctr | notes |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            types = "; ".join(dict.fromkeys(b["gb_type"] or "?" for b in r["breaks"])) or "-"
            ids = ", ".join(dict.fromkeys(fmt_id(b) for b in r["breaks"])) or "-"
            ex = f"{r['explain_graph_count']} / {r['explain_n_gb_reasons']}"
            out.append(
                f"| {_esc(r['case'])} | {'helper' if r['helper'] else 'direct'} | {len(r['breaks'])} | {_esc(types)} | {ids} | "
                f"{_esc(fmt_lines(r))} | {r['recompiles']} | {ex} | {r['counter_graph_break']} | {_esc(notes_for(r))} |"
            )
        out.append("")
    # surprises -----------------------------------------------------------
    out += ["## Automatically detected discrepancies", ""]
    by_case: dict[str, dict[bool, dict]] = {}
    for r in results:
        by_case.setdefault(r["case"], {})[r["helper"]] = r

    def names(pred) -> str:
        hits = [f"`{r['case']}`" + (" (helper)" if r["helper"] else "") for r in results if pred(r)]
        return ", ".join(hits) if hits else "(none)"

    out += [
        "### Attribution not on the probed line",
        "",
    ]
    attr = []
    for r in results:
        tag = f"`{r['case']}` ({'helper' if r['helper'] else 'direct'})"
        for b in r["breaks"]:
            if b["in_user_file"] and b["line"] != r["mark_line"]:
                attr.append(f"- {tag}: {fmt_id(b)} attributed to line {b['line']}, pattern is on line {r['mark_line']}.")
            if not b["in_user_file"]:
                attr.append(
                    f"- {tag}: {fmt_id(b)} header points to library frame {os.path.basename(b['file'])}:{b['line']}; "
                    f"innermost user-file frame in the traceback is line {b.get('user_line')} (pattern line {r['mark_line']})."
                )
    out += (attr or ["(none)"]) + [""]

    out += ["### Helper-method flavour vs direct (break ids / recompile count)", ""]
    diff = []
    for name, fl in by_case.items():
        if True in fl and False in fl:
            d, h = fl[False], fl[True]
            sd = sorted(fmt_id(b) for b in d["breaks"])
            sh = sorted(fmt_id(b) for b in h["breaks"])
            if sd != sh or d["recompiles"] != h["recompiles"]:
                diff.append(f"- `{name}`: direct {sd} rc={d['recompiles']} vs helper {sh} rc={h['recompiles']}.")
    out += (diff or ["- none: every pattern gives the same GB ids and recompile counts when moved into a helper method "
                     "(attributed line = the helper's line)."]) + [""]

    out += [
        "### torch._dynamo.explain vs trace log",
        "",
        "- explain reports fewer breaks than the log (break before any tensor op → empty graph → no break_reason): "
        + names(lambda r: r["explain_n_gb_reasons"] is not None and r["explain_n_gb_reasons"] < len(r["breaks"]) and not r["helper"]),
        "- explain graph_count == 0 (frame skipped entirely or nothing compiled): "
        + names(lambda r: r["explain_graph_count"] == 0 and not r["helper"]),
        "- explain reports more break_reasons than distinct logged breaks: "
        + names(lambda r: r["explain_n_gb_reasons"] is not None and r["explain_n_gb_reasons"] > len(r["breaks"]) and not r["helper"]),
        "",
        "### counters[\"graph_break\"] vs trace log",
        "",
        "- counter is 0 although a break was logged (data-dependent jumps / skipped frames are not counted there): "
        + names(lambda r: r["breaks"] and r["counter_graph_break"] == 0 and not r["helper"]),
        "- counter exceeds distinct logged breaks (same break counted once per inlining level / retry): "
        + names(lambda r: r["counter_graph_break"] > len(r["breaks"])),
        "- Unsupported recorded only in counters[\"unimplemented\"] (never logged as a graph break): "
        + names(lambda r: r.get("unlogged_unimplemented_ids")),
    ]
    out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), f"probe_results_torch{'.'.join(torch.__version__.split('.')[:2])}.md"))
    ap.add_argument("--json", default=None, help="also dump raw results as JSON")
    ap.add_argument("--only", nargs="*", default=None, help="substring filter on case names")
    ap.add_argument("--no-helper", action="store_true", help="skip the helper-method flavour")
    ns = ap.parse_args(argv)

    os.environ.setdefault("PYTHONBREAKPOINT", "0")
    # silence dynamo's own console warnings (structured trace capture is unaffected)
    torch._logging.set_logs(dynamo=logging.ERROR, graph_breaks=False, recompiles=False)
    logging.getLogger(__name__).setLevel(logging.WARNING)
    results = []
    with tempfile.TemporaryDirectory(prefix="probe_breaks_") as tmpdir:
        for c in CASES:
            if ns.only and not any(s.lower() in c.name.lower() for s in ns.only):
                continue
            for helper in ([False] if (ns.no_helper or not c.helper) else [False, True]):
                r = run_case(c, helper, tmpdir)
                # make paths deterministic in output
                for b in r["breaks"]:
                    if b["in_user_file"]:
                        b["file"] = os.path.basename(b["file"])
                r["path"] = os.path.basename(r["path"])
                results.append(r)
                print(
                    f"{c.name:45s} {'helper' if helper else 'direct':6s} breaks={len(r['breaks'])} "
                    f"ids={[fmt_id(b) for b in r['breaks']]} lines={[b['line'] for b in r['breaks']]} mark={r['mark_line']} "
                    f"rc={r['recompiles']} explain={r['explain_graph_count']}/{r['explain_n_gb_reasons']} ctr={r['counter_graph_break']}"
                    + (f" ERR={r['errors'][:1]}" if r["errors"] else ""),
                    file=sys.stderr,
                    flush=True,
                )
    with open(ns.out, "w") as fh:
        fh.write(render(results, argv))
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(results, fh, indent=1, sort_keys=True, default=str)
    print(f"wrote {ns.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
