# spec: {"model": "kn_color_jiggle_dispatch.py:PhotometricAugment", "inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, {"tensor": [2], "data": [1.1, 0.9]}, {"tensor": [2], "data": [1.0, 1.0]}, {"tensor": [4], "dtype": "int64", "data": [2, 0, 1, 3]}], "calls": 2}
from typing import Callable, Dict, Optional, Tuple

import torch
from torch import nn

_FACTOR_KEYS = ("brightness_factor", "contrast_factor", "saturation_factor", "hue_factor")
_Steps = Tuple[Callable[[torch.Tensor, torch.Tensor], torch.Tensor], ...]


# vendored from kornia 0.9.0 kornia/enhance/adjust.py (reduced to the batch-factor case)
def adjust_brightness(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    img_adjust = image + factor.view(-1, 1, 1, 1)
    return img_adjust.clamp(0.0, 1.0)


def adjust_contrast(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    img_adjust = image * factor.view(-1, 1, 1, 1)
    return img_adjust.clamp(0.0, 1.0)


def adjust_saturation(image: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    gray = (0.299 * image[:, 0:1] + 0.587 * image[:, 1:2] + 0.114 * image[:, 2:3]).expand_as(image)
    return (gray + factor.view(-1, 1, 1, 1) * (image - gray)).clamp(0.0, 1.0)


# vendored from kornia 0.9.0 kornia/augmentation/_2d/intensity/color_jiggle.py
def _brightness_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return adjust_brightness(input, factor - 1)


def _contrast_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return adjust_contrast(input, factor)


def _saturation_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return adjust_saturation(input, factor)


def _hue_step(input: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    return input.roll(1, dims=1) * factor.view(-1, 1, 1, 1).abs() + input * (1 - factor.view(-1, 1, 1, 1).abs())


def _dispatch_color_steps(
    input: torch.Tensor,
    params: Dict[str, torch.Tensor],
    fixed_order: Optional[Tuple[int, ...]],
    cond_fn: Optional[Callable[[Tuple[int, ...], torch.Tensor, Tuple[torch.Tensor, ...]], torch.Tensor]],
    neutral: Tuple[float, float, float, float],
    steps: _Steps,
) -> torch.Tensor:
    """Apply the four colour steps in order, skipping a step whose factors all equal its ``neutral`` value."""
    factors = tuple(params[key] for key in _FACTOR_KEYS)
    if fixed_order is not None and cond_fn is not None and input.shape[-3] == 3:
        return cond_fn(fixed_order, input, factors)

    order = fixed_order if fixed_order is not None else params["order"].tolist()
    output = input
    for idx in order:
        if (factors[idx] != neutral[idx]).any():
            output = steps[idx](output, factors[idx])
    # With every step skipped, return a copy, as the fixed-order dispatcher and ``p=0`` do, so that writing into
    # the output never changes the caller's input.
    return output.clone() if output is input else output


class PhotometricAugment(nn.Module):
    """ColorJiggle's apply step with sampled parameters passed in (as AugmentationSequential replays them)."""

    _STEPS: _Steps = (_brightness_step, _contrast_step, _saturation_step, _hue_step)
    _NEUTRAL = (1.0, 1.0, 1.0, 0.0)

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image, brightness, contrast, order):
        params = {
            "brightness_factor": brightness,
            "contrast_factor": contrast,
            "saturation_factor": torch.ones_like(brightness),
            "hue_factor": torch.zeros_like(brightness),
            "order": order,
        }
        image = _dispatch_color_steps(image, params, None, None, self._NEUTRAL, self._STEPS)
        return self.stem(image)
