"""x-transformers: a small decoder with rotary positions and a padding mask; lengths vary."""

import torch
from x_transformers import Decoder, TransformerWrapper


class LM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = TransformerWrapper(
            num_tokens=64,
            max_seq_len=32,
            attn_layers=Decoder(dim=32, depth=1, heads=2, rotary_pos_emb=True),
        )

    def forward(self, tokens, mask):
        return self.net(tokens, mask=mask)


SPEC = {
    "variants": [
        {
            "inputs": [
                {"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 64},
                {"tensor": [2, 12], "dtype": "bool", "init": "ones"},
            ]
        }
    ]
}


def make():
    return LM(), (torch.randint(0, 64, (2, 8)), torch.ones(2, 8, dtype=torch.bool))
