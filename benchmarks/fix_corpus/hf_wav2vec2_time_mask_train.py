# spec: {"model": "hf_wav2vec2_time_mask_train.py:KeywordSpotter", "inputs": [{"tensor": [2, 1600]}], "mode": "train"}
import torch
from torch import nn
from transformers import Wav2Vec2Config, Wav2Vec2Model


class KeywordSpotter(nn.Module):
    """Keyword spotting on a tiny wav2vec2 (random weights) fine-tuned with SpecAugment-style time masks."""

    def __init__(self, num_keywords=6):
        super().__init__()
        config = Wav2Vec2Config(
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
            conv_dim=(16, 16),
            conv_stride=(5, 4),
            conv_kernel=(10, 4),
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2,
            mask_time_prob=0.2,
            mask_time_length=2,
        )
        self.encoder = Wav2Vec2Model(config)
        self.head = nn.Linear(32, num_keywords)

    def forward(self, waveform):
        hidden = self.encoder(waveform).last_hidden_state
        return self.head(hidden.mean(dim=1))
