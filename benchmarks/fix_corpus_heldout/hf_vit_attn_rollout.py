# spec: {"model": "hf_vit_attn_rollout.py:ViTWithSaliency", "inputs": [{"tensor": [2, 3, 32, 32]}]}
import torch
from torch import nn
from transformers import ViTConfig, ViTModel


class ViTWithSaliency(nn.Module):
    """A tiny HF ViT (random weights) whose forward also keeps the patches above mean saliency."""

    def __init__(self):
        super().__init__()
        cfg = ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
        self.vit = ViTModel(cfg, add_pooling_layer=False)
        self.head = nn.Linear(32, 10)

    def forward(self, pixel_values):
        tokens = self.vit(pixel_values=pixel_values).last_hidden_state
        cls, patches = tokens[:, 0], tokens[:, 1:]
        saliency = (patches @ cls.unsqueeze(-1)).squeeze(-1)
        salient = patches[saliency > saliency.mean(dim=1, keepdim=True)]
        return self.head(cls), salient
