"""The fix a predicted recompile suggests, per kind of guard (:data:`_FIX`, :func:`_kind_of`)."""

from __future__ import annotations

import re

_TYPE_GUARD = "expected type of "  # a tensor input's type guard (torch 2.13's wording)


_FIX = {
    "specialized": "pass it as a 0-d tensor (`torch.tensor(v)`), or make it a constant of the "
    "module (set in `__init__`); `torch._dynamo.mark_dynamic` does not help a value a "
    "`range()`/functional op needs as a constant",
    "number": "one recompile, then torch keeps it symbolic: compile with `dynamic=True` to "
    "skip it, or pass a tensor",
    "string": "each distinct value compiles its own graph: keep the set of values small, or "
    "move the choice out of the compiled function (one compiled callable per value)",
    "key": "pass the same keys on every call (a missing one as `None`, tested with `is None`), "
    "or choose outside the compiled model",
    "grown": "preallocate the tensor at its largest size and write into it in place "
    "(`self.cache[:, pos : pos + t] = k`), or keep it outside the compiled module and pass it in",
    "grad": "pass inputs with one `requires_grad` setting (`x.detach()`, or "
    "`x.requires_grad_()` on every call), or accept one entry per setting",
    "none": "each combination of `None`/tensor compiles once: pass a tensor every call (e.g. "
    "an all-ones mask) to keep one graph",
    "tensor": "one recompile, then the dim is dynamic: `torch._dynamo.mark_dynamic(x, dim)` "
    "(or `dynamic=True`) before the first call compiles it dynamic at once",
    "state": "move the counter or cache out of the compiled region, or keep it in a tensor "
    "buffer updated in place (`self.step.add_(1)`)",
    "size": "remove the graph break in the called function, or compute the int there from "
    "its tensor arguments' shapes (`h.shape[1]`) instead of passing it in",
    "break": "the number comes from a graph break (`.item()`): keep it a tensor, or set "
    "`torch._dynamo.config.capture_scalar_outputs = True`",
    "loop": "one recompile, then the number is symbolic: keep the loop's counter in a tensor, or "
    "decide the loop's end with tensor ops (a mask, `torch.cumprod`) instead of a data-dependent "
    "`while`",
    "draw": "the number comes from a call dynamo does not trace (a `random` draw, a `time` "
    "clock): take it outside the compiled region and pass it in as a tensor, or draw it with "
    "torch (`torch.rand(())`)",
}


def _kind_of(subject: str, guard: str) -> str:
    if subject.startswith("self."):
        return "state"
    if guard.startswith("tensor "):
        return "tensor"
    if " is None" in guard or " is not None" in guard or guard.startswith(_TYPE_GUARD):
        return "none"
    if re.search(r"== '", guard) or guard.endswith(("True", "False")):
        return "string"
    return "number"
