# spec: {"model": "c3_prenorm_config_flags.py:TransformerLayer", "init": {"args": [16], "kwargs": {"pre_norm": false, "activation": "silu"}}, "inputs": [{"tensor": [2, 4, 16]}], "calls": 3}
from torch import nn

_ACTIVATIONS = {"gelu": nn.GELU, "relu": nn.ReLU, "silu": nn.SiLU}


class TransformerLayer(nn.Module):
    """fairseq-style layer: ``normalize_before`` chosen at construction, activation by name."""

    def __init__(self, dim, pre_norm=True, activation="gelu", ffn_mult=2):
        super().__init__()
        self.normalize_before = pre_norm
        self.activation_name = activation
        self.act = getattr(nn, {"gelu": "GELU", "relu": "ReLU", "silu": "SiLU"}[activation])()
        assert type(self.act) is _ACTIVATIONS[activation]
        self.fc1 = nn.Linear(dim, ffn_mult * dim)
        self.fc2 = nn.Linear(ffn_mult * dim, dim)
        self.final_layer_norm = nn.LayerNorm(dim)

    def maybe_layer_norm(self, x, before=False, after=False):
        assert before ^ after
        if after ^ self.normalize_before:
            return self.final_layer_norm(x)
        return x

    def forward(self, x):
        residual = x
        x = self.maybe_layer_norm(x, before=True)
        x = self.fc2(self.act(self.fc1(x)))
        x = residual + x
        x = self.maybe_layer_norm(x, after=True)
        if self.activation_name == "relu":
            x = x.clamp_min(0)
        return x
