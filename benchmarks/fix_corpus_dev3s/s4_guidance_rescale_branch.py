# spec: {"model": "s4_guidance_rescale_branch.py:GuidedNoisePredictor", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}], "kwargs": {"guidance_scale": 7.5, "guidance_rescale": 0.0}, "variants": [{"inputs": [{"tensor": [2, 4, 8, 8]}], "kwargs": {"guidance_scale": 7.5, "guidance_rescale": 0.7}}]}
from torch import nn


def rescale_noise_cfg(noise_cfg, noise_pred_text, guidance_rescale=0.0):
    std_text = noise_pred_text.std(dim=list(range(1, noise_pred_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    noise_pred_rescaled = noise_cfg * (std_text / std_cfg)
    return guidance_rescale * noise_pred_rescaled + (1 - guidance_rescale) * noise_cfg


class GuidedNoisePredictor(nn.Module):
    """The guidance step of a diffusers pipeline, with the optional `guidance_rescale` of SD 2.1."""

    def __init__(self, channels):
        super().__init__()
        self.unet = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, latents, guidance_scale=7.5, guidance_rescale=0.0):
        noise_pred_uncond, noise_pred_text = self.unet(latents).chunk(2)
        noise_pred = noise_pred_uncond + guidance_scale * (noise_pred_text - noise_pred_uncond)
        if guidance_rescale > 0.0:
            noise_pred = rescale_noise_cfg(noise_pred, noise_pred_text, guidance_rescale=guidance_rescale)
        return noise_pred
