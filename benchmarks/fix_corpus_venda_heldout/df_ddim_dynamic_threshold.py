# spec: {"model": "df_ddim_dynamic_threshold.py:ImagenStyleDDIMStep", "inputs": [{"tensor": [2, 3, 8, 8]}, {"tensor": [], "dtype": "int64", "data": [601]}], "calls": 2}
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn


# vendored from diffusers 0.42.1 diffusers/schedulers/scheduling_ddim.py
class DDIMScheduler:
    """DDIM with dynamic thresholding of x_0 (Imagen), sample prediction, deterministic (eta=0)."""

    def __init__(self, num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02):
        self.config = SimpleNamespace(
            num_train_timesteps=num_train_timesteps,
            prediction_type="sample",
            thresholding=True,
            dynamic_thresholding_ratio=0.995,
            sample_max_value=1.5,
            clip_sample=False,
            steps_offset=1,
        )
        self.betas = torch.linspace(beta_start, beta_end, num_train_timesteps, dtype=torch.float32)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self.final_alpha_cumprod = torch.tensor(1.0)
        self.num_inference_steps = None

    def _threshold_sample(self, sample: torch.Tensor) -> torch.Tensor:
        """
        "Dynamic thresholding: At each sampling step we set s to a certain percentile absolute pixel value in xt0 (the
        prediction of x_0 at timestep t), and if s > 1, then we threshold xt0 to the range [-s, s] and then divide by
        s."

        https://huggingface.co/papers/2205.11487
        """
        dtype = sample.dtype
        batch_size, channels, *remaining_dims = sample.shape

        if dtype not in (torch.float32, torch.float64):
            sample = sample.float()  # upcast for quantile calculation, and clamp not implemented for cpu half

        # Flatten sample for doing quantile calculation along each image
        sample = sample.reshape(batch_size, channels * np.prod(remaining_dims))

        abs_sample = sample.abs()  # "a certain percentile absolute pixel value"

        s = torch.quantile(abs_sample, self.config.dynamic_thresholding_ratio, dim=1)
        s = torch.clamp(
            s, min=1, max=self.config.sample_max_value
        )  # When clamped to min=1, equivalent to standard clipping to [-1, 1]
        s = s.unsqueeze(1)  # (batch_size, 1) because clamp will broadcast along dim=0
        sample = torch.clamp(sample, -s, s) / s  # "we threshold xt0 to the range [-s, s] and then divide by s"

        sample = sample.reshape(batch_size, channels, *remaining_dims)
        sample = sample.to(dtype)

        return sample

    def set_timesteps(self, num_inference_steps, device=None):
        self.num_inference_steps = num_inference_steps
        step_ratio = self.config.num_train_timesteps // self.num_inference_steps
        timesteps = (np.arange(0, num_inference_steps) * step_ratio).round()[::-1].copy().astype(np.int64)
        timesteps += self.config.steps_offset
        self.timesteps = torch.from_numpy(timesteps).to(device)

    def step(self, model_output, timestep, sample, eta=0.0):
        # 1. get previous step value (=t-1)
        prev_timestep = timestep - self.config.num_train_timesteps // self.num_inference_steps

        # 2. compute alphas, betas
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod

        beta_prod_t = 1 - alpha_prod_t

        # 3. compute predicted original sample from predicted noise also called
        if self.config.prediction_type == "epsilon":
            pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)
            pred_epsilon = model_output
        elif self.config.prediction_type == "sample":
            pred_original_sample = model_output
            pred_epsilon = (sample - alpha_prod_t ** (0.5) * pred_original_sample) / beta_prod_t ** (0.5)
        else:
            raise ValueError(f"prediction_type given as {self.config.prediction_type} must be one of `sample`")

        # 4. Clip or threshold "predicted x_0"
        if self.config.thresholding:
            pred_original_sample = self._threshold_sample(pred_original_sample)
        elif self.config.clip_sample:
            pred_original_sample = pred_original_sample.clamp(-1.0, 1.0)

        # 6. compute "direction pointing to x_t" of formula (12) from https://huggingface.co/papers/2010.02502
        pred_sample_direction = (1 - alpha_prod_t_prev) ** (0.5) * pred_epsilon

        # 7. compute x_t without "random noise" of formula (12) from https://huggingface.co/papers/2010.02502
        prev_sample = alpha_prod_t_prev ** (0.5) * pred_original_sample + pred_sample_direction
        return prev_sample, pred_original_sample


class ImagenStyleDDIMStep(nn.Module):
    """A pixel-space sampler step with a sample-predicting UNet and dynamic thresholding (Imagen-style)."""

    def __init__(self, channels=3, num_inference_steps=5):
        super().__init__()
        self.unet = nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.GELU(), nn.Conv2d(16, channels, 3, padding=1))
        self.scheduler = DDIMScheduler()
        self.scheduler.set_timesteps(num_inference_steps)

    def forward(self, image, t):
        x0 = self.unet(image) * 2.0
        image, _ = self.scheduler.step(x0, t, image)
        return image
