# spec: {"model": "clean_diffusers_rescale_noise_cfg.py:GuidedUNetStep", "init": {"args": [4]}, "inputs": [{"tensor": [2, 4, 8, 8]}], "variants": [{"inputs": [{"tensor": [2, 4, 8, 8], "init": "rand"}]}, {"inputs": [{"tensor": [2, 4, 8, 8], "init": "ones"}]}]}
import torch
from torch import nn

# vendored from diffusers 0.42.1 diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py
def rescale_noise_cfg(noise_cfg, noise_pred_text, guidance_rescale=0.0):
    std_text = noise_pred_text.std(dim=list(range(1, noise_pred_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    # rescale the results from guidance (fixes overexposure)
    noise_pred_rescaled = noise_cfg * (std_text / std_cfg)
    # mix with the original results from guidance by factor guidance_rescale to avoid "plain looking" images
    noise_cfg = guidance_rescale * noise_pred_rescaled + (1 - guidance_rescale) * noise_cfg
    return noise_cfg


class GuidedUNetStep(nn.Module):
    def __init__(self, channels, guidance_scale=7.5, guidance_rescale=0.7):
        super().__init__()
        self.unet = nn.Conv2d(channels, channels, 3, padding=1)
        self.guidance_scale = guidance_scale
        self.guidance_rescale = guidance_rescale

    def forward(self, latent_model_input):
        noise_pred = self.unet(latent_model_input)
        noise_pred_uncond, noise_pred_text = noise_pred.chunk(2)
        noise_pred = noise_pred_uncond + self.guidance_scale * (noise_pred_text - noise_pred_uncond)
        if self.guidance_rescale > 0.0:
            noise_pred = rescale_noise_cfg(noise_pred, noise_pred_text, guidance_rescale=self.guidance_rescale)
        return noise_pred
