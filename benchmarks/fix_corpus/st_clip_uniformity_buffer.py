# spec: {"model": "st_clip_uniformity_buffer.py:AlignUniformLoss", "init": {"args": [8, 12]}, "inputs": [{"tensor": [8, 12]}, {"tensor": [8, 12]}]}
import torch
import torch.nn.functional as F
from torch import nn


class AlignUniformLoss(nn.Module):
    """Alignment/uniformity (Wang & Isola) with a CLIP-style logit scale; the off-diagonal
    mask is a buffer built once for the fixed batch size, as lightning modules do."""

    def __init__(self, batch_size, dim):
        super().__init__()
        self.image_proj = nn.Linear(dim, dim)
        self.text_proj = nn.Linear(dim, dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.659))
        self.register_buffer("offdiag", 1 - torch.eye(batch_size), persistent=False)

    def forward(self, image_emb, text_emb):
        img = F.normalize(self.image_proj(image_emb), dim=-1)
        txt = F.normalize(self.text_proj(text_emb), dim=-1)
        logits = self.logit_scale.exp() * img @ txt.t()
        labels = torch.arange(logits.shape[0], device=logits.device)
        clip_loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        sq_dist = torch.cdist(img, img).pow(2)
        pair_dists = sq_dist[self.offdiag.bool()]
        uniformity = pair_dists.mul(-2).exp().mean().log()
        hardest = pair_dists.view(img.shape[0], -1).min(dim=1).values
        return clip_loss + 0.1 * uniformity, hardest
