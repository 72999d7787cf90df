"""CL508: an ``nn.Parameter`` or a module with parameters built inside traced code."""

from __future__ import annotations

from typing import Any

import libcst as cst

from compilelint.static.checks.base import Check

# torch.nn classes whose constructor creates an nn.Parameter (what dynamo refuses, GB0264)
_WITH_PARAMETERS = frozenset(
    """
    Parameter Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d
    ConvTranspose3d Embedding EmbeddingBag LayerNorm GroupNorm BatchNorm1d BatchNorm2d BatchNorm3d
    InstanceNorm1d InstanceNorm2d InstanceNorm3d RMSNorm PReLU MultiheadAttention RNN LSTM GRU
    RNNCell LSTMCell GRUCell Transformer TransformerEncoderLayer TransformerDecoderLayer
    """.split()
)


class ParameterCreatedInForward(Check):
    CODE = "CL508"

    def __init__(self, walker: Any) -> None:
        super().__init__(walker)
        self._seen: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        q = self.qualify(node.func) or ""
        if not q.startswith("torch.nn."):
            return
        last = q.rsplit(".", 1)[-1]
        if last not in _WITH_PARAMETERS or q.startswith("torch.nn.functional."):
            return
        fn = self.w.func
        if fn is None or fn.qual in self._seen:
            return  # dynamo gives up on the frame at the first one: one finding per function
        self._seen.add(fn.qual)
        # in traced code only: an `__init__` counts when traced code builds the module (a method
        # called from forward that swaps a submodule); the usual `__init__` is not traced
        self.report(node, call=self.code(node.func))
