"""Issue 23, pred27a: recompile kinds of the vendored development set ``dev3h``, each decided
from the model of guards and checked against torch 2.13.

- **A number built into an object in traced code** (transformers' ``TopKLogitsWarper(top_k)``
  made per request): dynamo guards a constructor's arguments where the object is built, not
  where ``__init__`` reads them (``top_k == 4  # warper = TopKLogitsWarper(top_k=top_k)``),
  also when ``__init__`` only stores it.
- **A string handed to a helper** (kornia's ``resize(..., interpolation=...)``) is a constant
  guarded at the helper's first read of it (``if interpolation in (...)``), not at a later use
  that needs it as a constant (``F.interpolate(..., mode=interpolation)``).
- **A flag set by a method the branch calls** (transformers' ``DynamicLayer.update``: ``if not
  self.is_initialized: self.lazy_initialization(...)``): the second call recompiles at the
  ``if`` on the flag's first value.
"""

from __future__ import annotations

import textwrap

from tests.pred_helpers import Cases, case_tests, predicted_recompile_lines, torch_recompile_lines

TORCH = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"

_WARPER = TORCH + textwrap.dedent("""
    class Warper:
        def __init__(self, top_k):
            if not isinstance(top_k, int) or top_k <= 0:
                raise ValueError(top_k)
            self.top_k = top_k

        def __call__(self, scores):
            return scores < torch.topk(scores, self.top_k)[0][..., -1, None]


    class M(nn.Module):
        def forward(self, scores, top_k):
            warper = Warper(top_k)  # built
            return scores.masked_fill(warper(scores), 0.0)
    """)

_STORED = TORCH + textwrap.dedent("""
    class Scale:
        def __init__(self, t):
            self.t = t

        def __call__(self, s):
            return s / self.t


    class M(nn.Module):
        def forward(self, x, t):
            return Scale(t)(x)  # built
    """)

_HANDED_FN = TORCH + textwrap.dedent("""
    def scale(s, t):
        if t > 0:  # read
            return s / t
        return s


    class M(nn.Module):
        def forward(self, x, t):
            return scale(x, t)
    """)

_RESIZE = TORCH + textwrap.dedent("""
    def resize(x, size, interpolation="bilinear"):
        if interpolation in ("linear", "trilinear"):  # first read
            raise ValueError(interpolation)
        return F.interpolate(x, size=size, mode=interpolation)


    class M(nn.Module):
        def forward(self, x, interpolation="bilinear"):
            return resize(x, (4, 4), interpolation=interpolation)
    """)

_LAZY = TORCH + textwrap.dedent("""
    class Layer:
        def __init__(self):
            self.is_initialized = False
            self.keys = None

        def lazy_initialization(self, k):
            self.keys = torch.zeros_like(k)
            self.is_initialized = True

        def update(self, k):
            if not self.is_initialized:  # flag
                self.lazy_initialization(k)
            self.keys = self.keys + k
            return self.keys


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = Layer()

        def forward(self, x):
            return self.layer.update(x)
    """)

_LAZY_UNCHANGED = _LAZY.replace("self.is_initialized = True", "self.keys = self.keys * 1")

_T = {"tensor": [2, 8]}
CASES: Cases = {
    "int_built_into_object": (
        _WARPER,
        {"inputs": [_T, 2], "variants": [{"inputs": [_T, 3]}]},
        ["# built"],
    ),
    "float_stored_by_constructor": (
        _STORED,
        {"inputs": [_T, 0.5], "variants": [{"inputs": [_T, 0.7]}]},
        ["# built"],
    ),
    "number_handed_to_function": (
        _HANDED_FN,
        {"inputs": [_T, 2], "variants": [{"inputs": [_T, 3]}]},
        ["# read"],
    ),
    "string_handed_first_read": (
        _RESIZE,
        {
            "inputs": [{"tensor": [1, 2, 8, 8]}],
            "kwargs": {"interpolation": "bilinear"},
            "variants": [
                {"inputs": [{"tensor": [1, 2, 8, 8]}], "kwargs": {"interpolation": "nearest"}}
            ],
        },
        ["# first read"],
    ),
    "flag_set_by_called_method": (_LAZY, {"inputs": [_T], "calls": 3}, ["# flag"]),
    "flag_method_sets_other_attr": (_LAZY_UNCHANGED, {"inputs": [_T], "calls": 3}, []),
}

test_the_prediction, test_the_prediction_matches_torch = case_tests(
    CASES, predicted_recompile_lines, torch_recompile_lines
)
