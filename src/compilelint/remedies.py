"""Remedies as data: the manual recipe per GB id, and the torch config settings that remove a
class of breaks (checked against torch: ``tests/test_remedies_torch.py``).

Used by merge (the fix text of an observed break), by ``fix`` (the outcome of every observed
break: a recipe when no codemod or config removed it) and by the verifier (which config to try).
No torch here: the settings are applied by the dynamic runner through the spec's ``config``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Recipe:
    """What to do by hand about one kind of break. ``hints``: torch's own hints help here (they
    are shown after the recipe, except "file an issue" ones)."""

    gb_ids: tuple[str, ...]
    kind: str
    recipe: str
    hints: bool = False


@dataclass(frozen=True)
class ConfigRemedy:
    """A ``torch._dynamo.config`` setting (or compile option) that removes breaks of
    ``gb_ids`` (recompiles when ``recompiles``), as torch confirmed on ``checked`` versions.
    ``not_for``: break types it does NOT remove (torch still breaks with it set)."""

    name: str
    settings: tuple[tuple[str, object], ...]  # spec "config" keys (torch._dynamo.config)
    compile: tuple[tuple[str, object], ...]  # spec "compile" keys (torch.compile options)
    gb_ids: tuple[str, ...]
    lines: tuple[str, ...]  # what the user adds, in their words
    why: str
    not_for: tuple[str, ...] = ()
    recompiles: bool = False
    checked: tuple[str, ...] = ()
    # checked against torch (tests/test_remedies_torch.py): ``invalid`` breaks (or recompiles
    # over its ``# variants:``) without the setting and not with it, same outputs; ``valid``
    # needs no remedy (no break either way); ``still`` keeps breaking with it (``not_for``)
    invalid: str = ""
    valid: str = ""
    still: str = ""
    # (torch_min, what, source): removed by the setting only from torch_min on (it still breaks
    # on older torch, checked on the versions in ``checked``)
    since: tuple[tuple[str, str, str], ...] = ()


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        ("GB0124",),
        "a tensor's value read into Python (.item(), int(), float())",
        "Keep the value a 0-d tensor (drop `.item()`/`int()`; `torch.clamp`/`torch.maximum` for "
        "max/min, `torch.where` for a choice; a value kept only for logging, on `self` or in a "
        "metrics dict, as a detached tensor read with `float()` later); or set "
        "`torch._dynamo.config.capture_scalar_outputs = True` so the read stays in the graph",
    ),
    Recipe(
        ("GB0033",),
        "a data-dependent operator (a value read through `_local_scalar_dense`: `.tolist()` of "
        "an integer tensor, `math.f(t)`, `float()` of a reduction)",
        "Keep the value in a tensor (`torch.sqrt` for `math.sqrt`, tensor indexing instead of "
        "`.tolist()`); a 0-d integer tensor used as an index (`x[i]`, `x[..., i, :]`, as from "
        "`bucketize` or `argmax`) becomes a 1-d one and the dim is dropped after "
        "(`x[..., i.view(1), :].squeeze(-2)`, `x.index_select(d, i.view(1)).squeeze(d)`); a "
        "tensor where torch takes a Python number (`F.one_hot(x, n)`, `alpha=`, a size) becomes a "
        "Python number or a static bound (mask the rest); or set "
        "`torch._dynamo.config.capture_scalar_outputs = True`",
    ),
    Recipe(
        ("GB0109",),
        "`.tolist()` of a floating-point tensor",
        "Keep the values in a tensor; a log of them belongs outside the compiled region (under "
        "`if not torch.compiler.is_compiling():`). capture_scalar_outputs does not remove this "
        "break (torch 2.13)",
    ),
    Recipe(
        ("GB0036",),
        "a data-dependent output shape (nonzero, unique, masked_select, boolean-mask indexing, "
        "one-argument where)",
        "Keep the shape fixed: `torch.where(mask, x, 0)` / `x.masked_fill(~mask, 0)` and reduce "
        "with the mask, or assign in place (`x[mask] = v`); items (edges) that are only "
        "weighted and scatter-added keep their place with a zero weight "
        "(`torch.where(mask, w, 0)`); or set "
        "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`",
    ),
    Recipe(
        ("GB0170", "GB0035"),
        "a Python branch on a tensor's value",
        "Make it branchless (`torch.where(cond, a, b)`, `torch.clamp`; a choice between Python "
        "numbers that only enter arithmetic with tensors becomes `torch.where(cond, 2.0, 1.0)`, "
        "a 0-d tensor); an idempotent repair "
        "(`nan_to_num`, `clamp`) can simply always run; a side effect in the branch (a warning, "
        "a log) goes under `if not torch.compiler.is_compiling():`; for two real code paths use "
        "`torch.cond`",
    ),
    Recipe(
        ("GB0007",),
        "a call dynamo skips (standard-library timers, random, inspect, hashing, warnings)",
        "Move the call out of the compiled region: compute the value in `__init__` or the caller "
        "and pass it in, or put an observing call under `if not torch.compiler.is_compiling():`; "
        "key a cache on the hashed value itself rather than its `hashlib` digest; draw with "
        "`torch.rand` instead of `random.random()` and choose with `torch.where`; "
        "where a value flows on, wrap the helper in `@torch.compiler.disable` (one break per "
        "call, but the rest of forward stays compiled)",
    ),
    Recipe(
        ("GB0142",),
        "a `with` block dynamo cannot enter (a file, a lock, a custom context manager)",
        "Move the block out of forward, or run it only eagerly "
        "(`if not torch.compiler.is_compiling():`); torch supports `torch.no_grad`/`autocast`-"
        "style managers only",
    ),
    Recipe(
        ("GB0207",),
        "`sorted(..., key=...)` over tensors",
        "Sort with tensors: stack the keys and use `torch.sort`/`torch.argsort`, then index "
        "(for `sorted(zip(a, b), key=lambda p: p[0])`: `order = torch.argsort(a, stable=True)`, "
        "then `zip(a[order], b[order])`)",
    ),
    Recipe(
        ("GB0264", "GB0119"),
        "a parameter or layer built inside forward",
        "Build the layer in `__init__` (with `nn.LazyLinear` and friends when its size is only "
        "known at the first call), or run one eager call before compiling",
    ),
    Recipe(
        ("GB0098", "GB0099"),
        "a call to a `torch.compiler.disable`d function",
        "Drop the `disable` if the function traces, or move the call out of the hot path; it "
        "costs a break per call",
        hints=True,
    ),
    Recipe(
        ("GB0083",),
        "module-level backward hooks (need compiled autograd)",
        "Register the hooks once outside forward, on tensors (`tensor.register_hook`) rather than "
        "on modules, or enable compiled autograd",
        hints=True,
    ),
    Recipe(
        ("GB0059",),
        "a builtin dynamo cannot trace (print, breakpoint, str of a tensor)",
        "Put the call under `if not torch.compiler.is_compiling():` (it then runs only in eager "
        "mode), or remove it",
    ),
    Recipe(
        ("GB0291", "GB4841"),
        "a logging call",
        "Put the call under `if not torch.compiler.is_compiling():`, or list the logger method in "
        "`torch._dynamo.config.reorderable_logging_functions`",
    ),
    Recipe(
        ("GB0088",),
        "an exception raised in traced code leaves the compiled frame (the model's own `raise`: "
        "an early stop, a failed check)",
        "Keep the stop in Python around the compiled part: compile the per-step function and "
        "test the stop condition in the loop that calls it; a check that nothing catches can "
        'become `torch._assert_async(torch.logical_not(cond), "msg")` (it raises '
        "`RuntimeError`, not your exception). Guarding a report just before the `raise` lets "
        "torch trace up to it: the break then sits at the `raise` instead",
    ),
    Recipe(
        ("GB0125", "GB8985", "GB0206", "GB9186", "GB0123"),
        "autograd state changed inside forward (`requires_grad_`, `autograd.grad`, `backward`)",
        "Set `requires_grad` once outside the compiled region and call `autograd.grad`/`backward` "
        "in the training step, not in forward",
    ),
)
GENERIC = Recipe(
    (),
    "a graph break",
    "Move the code torch names out of the compiled region (compute it in `__init__` or the "
    "caller), run it only eagerly under `if not torch.compiler.is_compiling():` when it only "
    "observes, or wrap it in `@torch.compiler.disable`",
    hints=True,
)
RECOMPILE = Recipe(
    (),
    "a recompile",
    "Make the guarded value stable across calls: mark a changing input size dynamic "
    "(`torch._dynamo.mark_dynamic(x, dim)` or `torch.compile(..., dynamic=True)`), keep a "
    "changing Python number in a tensor",
)

_BY_ID: dict[str, Recipe] = {g: r for r in RECIPES for g in r.gb_ids}

CONFIG_REMEDIES: tuple[ConfigRemedy, ...] = (
    ConfigRemedy(
        name="capture_scalar_outputs",
        settings=(("capture_scalar_outputs", True),),
        compile=(),
        gb_ids=("GB0124", "GB0033"),
        lines=("torch._dynamo.config.capture_scalar_outputs = True",),
        why="`.item()`/`int()`/`float()` reads stay in the graph as unbacked symbolic scalars "
        "(`.tolist()` of an integer tensor too; `math.f(t)` from torch 2.13 on)",
        not_for=("GB0109",),  # .tolist() of a float tensor still breaks (2.11, 2.13)
        checked=("2.11", "2.13"),
        invalid=(
            "import torch\n\n\ndef fn(x):\n"
            "    k = int(x.argmax()) % 4 + 1\n"
            "    s = x.abs().sum().item()\n"
            "    n = sum(x.argmax(-1).tolist())\n"
            "    return x[:k].sum() * s + float(x.sum()) + n\n"
        ),
        since=(
            (
                "2.13",
                "`math.sqrt(t)`: on torch 2.11 it still breaks (a guard on the unbacked value)",
                "import math\nimport torch\n\n\ndef fn(x):\n"
                "    return x * math.sqrt(x.abs().sum())\n",
            ),
        ),
        valid="import torch\n\n\ndef fn(x):\n    return x * torch.clamp(x.sum(), min=1.0)\n",
        still="import torch\n\n\ndef fn(x):\n    return x * x.mean(0).tolist()[0]\n",
    ),
    ConfigRemedy(
        name="capture_dynamic_output_shape_ops",
        settings=(("capture_dynamic_output_shape_ops", True),),
        compile=(),
        gb_ids=("GB0036",),
        lines=("torch._dynamo.config.capture_dynamic_output_shape_ops = True",),
        why="nonzero, unique, masked_select, boolean-mask indexing and one-argument where are "
        "traced with a data-dependent output size",
        checked=("2.11", "2.13"),
        invalid=(
            "import torch\n\n\ndef fn(x):\n"
            "    a = x.nonzero().float().sum() + (x > 0).int().unique().float().sum()\n"
            "    b = torch.masked_select(x, x > 0).sum() + x[x > 0].sum()\n"
            "    return x + a + b + torch.where(x > 0)[0].float().sum()\n"
        ),
        valid="import torch\n\n\ndef fn(x):\n    return torch.where(x > 0, x, 0).sum() + x\n",
    ),
    ConfigRemedy(
        name="allow_rnn",
        settings=(("allow_rnn", True),),
        compile=(),
        gb_ids=("GB0014",),
        lines=("torch._dynamo.config.allow_rnn = True",),
        why="`nn.LSTM`/`nn.GRU`/`nn.RNN` modules are traced (unrolled over the sequence) instead "
        "of running eagerly between graphs; torch calls it experimental, and on a GPU the "
        "unrolled recurrence can be slower than cuDNN's fused kernel: bench it",
        checked=("2.11", "2.13"),
        invalid=(
            "import torch\nfrom torch import nn\n\ntorch.manual_seed(0)\nrnn = nn.GRU(8, 8)\n\n\n"
            "def fn(x):\n    out, h = rnn(x[:, None])\n    return out.squeeze(1) * h.mean()\n"
        ),
        valid="import torch\n\n\ndef fn(x):\n    return torch.tanh(x) * x.mean()\n",
    ),
    ConfigRemedy(
        name="allow_unspec_int_on_nn_module",
        settings=(("allow_unspec_int_on_nn_module", True),),
        compile=(),
        gb_ids=(),
        lines=("torch._dynamo.config.allow_unspec_int_on_nn_module = True",),
        why="an int attribute of a module (a position offset, a cache length, a step index "
        "that forward advances) is traced as a symbolic int instead of a constant guarded per "
        "value: after the first values (0 and 1 stay specialized) one graph serves every "
        "value; torch's own hint for a guard on `self.<attr> == n`",
        recompiles=True,
        checked=("2.11", "2.13"),
        invalid=(
            "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n        self.pos = 0\n\n"
            "    def forward(self, x):\n        self.pos += 1\n"
            "        return x + torch.arange(self.pos, self.pos + 8) * 0\n\n\n"
            "fn = M()\n"
            "# variants: [(torch.randn(4, 8),), (torch.randn(4, 8),), (torch.randn(4, 8),)]\n"
        ),
        valid="import torch\n\n\ndef fn(x):\n    return x + torch.arange(8)\n",
    ),
    ConfigRemedy(
        name="dynamic",
        settings=(),
        compile=(("dynamic", True),),
        gb_ids=(),
        lines=("torch.compile(model, dynamic=True)",),
        why="input sizes that change between calls are traced symbolically instead of "
        "recompiling per size (`torch._dynamo.mark_dynamic(x, dim)` for one dim)",
        recompiles=True,
        checked=("2.11", "2.13"),
        invalid=(
            "import torch\n\n\ndef fn(x):\n    return x.softmax(-1) * x.shape[0]\n"
            "# variants: [(torch.randn(5, 8),), (torch.randn(6, 8),), (torch.randn(7, 8),)]\n"
        ),
        valid="import torch\n\n\ndef fn(x):\n    return x.softmax(-1)\n",
    ),
)

_FILE_ISSUE = re.compile(
    r"file an issue|report (?:a|this) (?:bug|issue)|github\.com/pytorch|"
    r"pytorch team can add support|dynamo developers|write dynamo tracing rules|"
    r"it may be possible to write",
    re.IGNORECASE,
)


def useful_hints(hints: Iterable[str]) -> tuple[str, ...]:
    """torch's hints without those that ask the user to file an issue (never a fix)."""
    return tuple(h for h in dict.fromkeys(hints) if h and not _FILE_ISSUE.search(h))


def recipe(gb_id: str | None) -> Recipe:
    return _BY_ID.get(gb_id or "", GENERIC)


def recipe_text(gb_id: str | None, hints: Sequence[str] = (), *, recompile: bool = False) -> str:
    """The manual recipe for ``gb_id``, with torch's useful hints where they help."""
    r = RECOMPILE if recompile else recipe(gb_id)
    text = r.recipe
    good = useful_hints(hints)
    if good and (r.hints or r is GENERIC):
        text += "; torch says: " + " ".join(good)
    return text


def config_for(gb_id: str | None) -> ConfigRemedy | None:
    """The config remedy torch confirmed for breaks of ``gb_id`` (None: none)."""
    for c in CONFIG_REMEDIES:
        if gb_id and gb_id in c.gb_ids:
            return c
    return None


_NUMBER_GUARD = re.compile(
    r"^\s*(?:L\[['\"](?P<a>[A-Za-z]\w*)['\"]\]|(?P<b>[A-Za-z]\w*))\s*==\s*"
    r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$"
)


def dynamic_recompile(rec: dict[str, object]) -> bool:
    """A recompile that ``dynamic=True`` may remove: an input size that changed (the record's
    ``input``), or a Python number argument whose value changed (guard ``step == 3``, on an
    argument, not on a value a graph break produced: those read ``___stack0``)."""
    if rec.get("input") is not None:
        return True
    for key in ("guard", "guard_readable"):
        g = rec.get(key)
        if isinstance(g, str) and _NUMBER_GUARD.match(g):
            return True
    return False


def recompile_config() -> ConfigRemedy:
    return next(c for c in CONFIG_REMEDIES if c.name == "dynamic")


# dynamo's guard on an int attribute of a module: ``self.pos == 3``,
# ``L['self']._modules['attn'].offset == 0``, ``self.blocks[0].n == 2``
_INT_ATTR_GUARD = re.compile(
    r"^\s*(?:L\[['\"]self['\"]\]|self)(?:\.\w+|\[['\"]?\w+['\"]?\])*\.\w+\s*==\s*-?\d+\s*$"
)
_UNSPEC_HINT = "allow_unspec_int_on_nn_module"


def int_attr_recompile(rec: dict[str, object]) -> bool:
    """A recompile on an int attribute of a module (the guard ``self.pos == 0``, or torch's
    hint naming ``allow_unspec_int_on_nn_module``)."""
    for key in ("guard", "guard_readable"):
        g = rec.get(key)
        if isinstance(g, str) and _INT_ATTR_GUARD.match(g):
            return True
    hint = rec.get("hint")
    return isinstance(hint, str) and _UNSPEC_HINT in hint


def recompile_configs(rec: dict[str, object]) -> list[ConfigRemedy]:
    """The recompile config remedies that may remove the recompile ``rec`` (first: the one
    to name in its outcome)."""
    out: list[ConfigRemedy] = []
    if int_attr_recompile(rec):
        out.append(next(c for c in CONFIG_REMEDIES if c.name == _UNSPEC_HINT))
    if dynamic_recompile(rec):
        out.append(recompile_config())
    return out


# dynamo's guard on a string (or an Enum's value) compared in the code: ``mode == 'norm'``,
# ``L['pooling'] == 'cls'``, ``self.scaling == <Scaling.STD: 'std'>``
_STRING_GUARD = re.compile(
    r"""^\s*(?P<what>[\w.'"\[\]]+?)\s*==\s*(?:'[^']*'|"[^"]*"|<\w+\.\w+: [^>]*>)\s*$"""
)

STRING_MODE = Recipe(
    (),
    "a recompile per string (or Enum) value",
    "A string or Enum that picks a code path is a constant to torch.compile: one graph per "
    "value (at most as many as the values the code compares, under "
    "`torch._dynamo.config.cache_size_limit`), and no setting makes a string symbolic. Where "
    "the modes alternate on one compiled module, split the method per mode and call the "
    "chosen one outside the compiled region (`self.forward_norm` / `self.forward_denorm`, "
    "each compiled once), or, when both paths give tensors of the same shapes, pass the "
    "choice as a bool tensor and choose with `torch.where` (both paths are then computed)",
)


def string_mode_recompile(rec: dict[str, object]) -> str | None:
    """The guarded name when the recompile is on a string or Enum value, else None."""
    for key in ("guard", "guard_readable"):
        g = rec.get(key)
        if isinstance(g, str):
            m = _STRING_GUARD.match(g)
            if m:
                return m.group("what")
    return None
