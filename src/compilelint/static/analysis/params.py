"""Parameters of compiled-region roots: which ones torch.compile receives as tensors.

A leaf of the analyses (it reads only per-file facts and name tables), so that phase 1
(:mod:`walker`), the symbolic sources of phase 2 (:mod:`summaries`), the project view
(:mod:`project`) and its consumers (:mod:`compilelint.static.predict`) depend on it one way:
``walker -> params``, ``summaries -> params``, ``project -> summaries -> params``.
"""

from __future__ import annotations

from compilelint.static.analysis import names as N
from compilelint.static.analysis.facts import FunctionFacts


def root_param_is_tensor(fn: FunctionFacts, i: int, by_name: bool = True) -> bool:
    """Whether parameter ``i`` of a compiled-region root (``forward``) is taken as a tensor;
    ``by_name=False``: whether anything but its name (``step``, ``use_cache``) says it is not
    (what an input spec or a caller passes may still make a flag-named parameter a tensor)."""
    prm = fn.params[i]
    if prm.index == 0 and fn.cls is not None and prm.name in ("self", "cls"):
        return False
    if prm.annotation == "tensor":
        # `output_attentions: torch.Tensor | None = False`: the literal default shows the
        # annotation is wrong (a flag), and a flag is what callers pass
        return prm.default != "literal"
    if prm.annotation in ("nontensor", "named", "object", "container") or prm.index in (-2, -3):
        return False
    if prm.default in ("literal", "other"):
        return False
    if prm.tensor_use:
        return True  # `num_rois.max()`: only a tensor has the method
    if not by_name:
        return True
    name = prm.name.lower()
    return not (
        name in N.FLAG_NAMES or name.startswith(N.FLAG_PREFIXES) or name.endswith(N.FLAG_SUFFIXES)
    )
