# spec: {"model": "df_euler_add_noise_train.py:EulerNoisedDenoiserLoss", "inputs": [{"tensor": [2, 4, 8, 8]}, {"tensor": [2, 4, 8, 8]}, {"tensor": [2], "dtype": "int64", "data": [1, 6]}], "calls": 2}
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


# vendored from diffusers 0.42.1 diffusers/schedulers/scheduling_euler_discrete.py
class EulerDiscreteScheduler:
    """Euler scheduler from Karras et al. (2022), linspace spacing; only what training needs."""

    def __init__(self, num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012):
        self.config = SimpleNamespace(num_train_timesteps=num_train_timesteps, timestep_spacing="linspace")
        self.betas = torch.linspace(beta_start**0.5, beta_end**0.5, num_train_timesteps, dtype=torch.float32) ** 2
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self._step_index = None
        self._begin_index = None

    @property
    def step_index(self):
        return self._step_index

    @property
    def begin_index(self):
        return self._begin_index

    def set_timesteps(self, num_inference_steps, device=None):
        self.num_inference_steps = num_inference_steps
        timesteps = np.linspace(0, self.config.num_train_timesteps - 1, num_inference_steps, dtype=np.float32)[
            ::-1
        ].copy()
        sigmas = np.array(((1 - self.alphas_cumprod) / self.alphas_cumprod) ** 0.5)
        sigmas = np.interp(timesteps, np.arange(0, len(sigmas)), sigmas)
        sigmas = np.concatenate([sigmas, [0.0]]).astype(np.float32)
        sigmas = torch.from_numpy(sigmas).to(dtype=torch.float32, device=device)
        self.timesteps = torch.from_numpy(timesteps.astype(np.float32)).to(device=device)
        self._step_index = None
        self._begin_index = None
        self.sigmas = sigmas.to("cpu")  # to avoid too much CPU/GPU communication

    def index_for_timestep(self, timestep, schedule_timesteps=None):
        if schedule_timesteps is None:
            schedule_timesteps = self.timesteps

        indices = (schedule_timesteps == timestep).nonzero()

        # The sigma index that is taken for the **very** first `step`
        # is always the second index (or the last index if there is only 1)
        pos = 1 if len(indices) > 1 else 0

        return indices[pos].item()

    def add_noise(self, original_samples, noise, timesteps):
        # Make sure sigmas and timesteps have the same device and dtype as original_samples
        sigmas = self.sigmas.to(device=original_samples.device, dtype=original_samples.dtype)
        if original_samples.device.type == "mps" and torch.is_floating_point(timesteps):
            # mps does not support float64
            schedule_timesteps = self.timesteps.to(original_samples.device, dtype=torch.float32)
            timesteps = timesteps.to(original_samples.device, dtype=torch.float32)
        else:
            schedule_timesteps = self.timesteps.to(original_samples.device)
            timesteps = timesteps.to(original_samples.device)

        # self.begin_index is None when scheduler is used for training, or pipeline does not implement set_begin_index
        if self.begin_index is None:
            step_indices = [self.index_for_timestep(t, schedule_timesteps) for t in timesteps]
        elif self.step_index is not None:
            # add_noise is called after first denoising step (for inpainting)
            step_indices = [self.step_index] * timesteps.shape[0]
        else:
            # add noise is called before first denoising step to create initial latent(img2img)
            step_indices = [self.begin_index] * timesteps.shape[0]

        sigma = sigmas[step_indices].flatten()
        while len(sigma.shape) < len(original_samples.shape):
            sigma = sigma.unsqueeze(-1)

        noisy_samples = original_samples + noise * sigma
        return noisy_samples


class EulerNoisedDenoiserLoss(nn.Module):
    """A training step's loss: noise latents at schedule timesteps (img2img-style training), predict the noise."""

    def __init__(self, channels=4, num_inference_steps=10):
        super().__init__()
        self.denoiser = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1), nn.SiLU(), nn.Conv2d(16, channels, 3, padding=1)
        )
        self.noise_scheduler = EulerDiscreteScheduler()
        self.noise_scheduler.set_timesteps(num_inference_steps)

    def forward(self, latents, noise, step_ids):
        timesteps = self.noise_scheduler.timesteps[step_ids]
        noisy_latents = self.noise_scheduler.add_noise(latents, noise, timesteps)
        model_pred = self.denoiser(noisy_latents)
        return F.mse_loss(model_pred.float(), noise.float(), reduction="mean")
