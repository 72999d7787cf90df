# spec: {"model": "c4_xtransformers_decoder.py:CaptionDecoder", "init": {"args": [40, 16]}, "inputs": [{"tensor": [2, 7], "dtype": "int64", "init": "randint", "low": 0, "high": 40}, {"tensor": [2, 5, 16]}], "calls": 3}
from torch import nn
from x_transformers import Decoder, TransformerWrapper


class CaptionDecoder(nn.Module):
    """An x-transformers decoder with cross-attention over image features (captioning): the
    wrapper's ``context=`` keyword, rotary positions, no absolute embedding."""

    def __init__(self, num_tokens, dim, depth=1, heads=2):
        super().__init__()
        self.decoder = TransformerWrapper(
            num_tokens=num_tokens,
            max_seq_len=32,
            use_abs_pos_emb=False,
            attn_layers=Decoder(dim=dim, depth=depth, heads=heads, cross_attend=True, rotary_pos_emb=True),
        )

    def forward(self, tokens, image_feats):
        return self.decoder(tokens, context=image_feats)
