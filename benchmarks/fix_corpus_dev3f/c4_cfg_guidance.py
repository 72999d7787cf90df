# spec: {"model": "c4_cfg_guidance.py:GuidedDenoiser", "init": {"args": [8, 10], "kwargs": {"guidance_scale": 7.5}}, "inputs": [{"tensor": [2, 8, 6, 6]}, {"tensor": [2], "dtype": "int64", "init": "randint", "low": 0, "high": 10}], "calls": 3}
import torch
from torch import nn


class GuidedDenoiser(nn.Module):
    """Classifier-free guidance as the diffusers pipelines do it: the batch doubled with the
    null class, one forward, ``chunk(2)``, combined by a scale set at construction."""

    def __init__(self, channels, num_classes, guidance_scale=5.0):
        super().__init__()
        self.guidance_scale = guidance_scale
        self.class_emb = nn.Embedding(num_classes + 1, channels)
        self.null_class = num_classes
        self.net = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.SiLU(), nn.Conv2d(channels, channels, 1))

    @property
    def do_classifier_free_guidance(self):
        return self.guidance_scale > 1.0

    def forward(self, latents, class_labels):
        if self.do_classifier_free_guidance:
            null = torch.full_like(class_labels, self.null_class)
            class_labels = torch.cat([class_labels, null])
            latent_model_input = torch.cat([latents] * 2)
        else:
            latent_model_input = latents
        cond = self.class_emb(class_labels)[:, :, None, None]
        noise_pred = self.net(latent_model_input + cond)
        if self.do_classifier_free_guidance:
            noise_pred_cond, noise_pred_uncond = noise_pred.chunk(2)
            noise_pred = noise_pred_uncond + self.guidance_scale * (noise_pred_cond - noise_pred_uncond)
        return noise_pred
