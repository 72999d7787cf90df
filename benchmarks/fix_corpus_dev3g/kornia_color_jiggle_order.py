# spec: {"model": "kornia_color_jiggle_order.py:PhotometricAugment", "init": {"args": [0.2, 0.2]}, "inputs": [{"tensor": [2, 3, 8, 8]}]}
import torch
from torch import nn


# vendored from kornia 0.9.0 kornia/enhance/adjust.py (adjust_brightness, adjust_contrast)
def adjust_brightness(image, factor, clip_output=True):
    factor = factor.view(-1, *([1] * (image.dim() - 1)))
    img_adjust = image + factor
    if clip_output:
        img_adjust = img_adjust.clamp(min=0.0, max=1.0)
    return img_adjust


def adjust_contrast(image, factor, clip_output=True):
    factor = factor.view(-1, *([1] * (image.dim() - 1)))
    img_adjust = image * factor
    if clip_output:
        img_adjust = img_adjust.clamp(min=0.0, max=1.0)
    return img_adjust


_FACTOR_KEYS = ("brightness_factor", "contrast_factor")


# vendored from kornia 0.9.0 kornia/augmentation/_2d/intensity/color_jiggle.py (_apply_color_steps)
def _apply_color_steps(input, params, steps, neutral, fixed_order=None, cond_fn=None):
    factors = tuple(params[key] for key in _FACTOR_KEYS)
    if fixed_order is not None and cond_fn is not None and input.shape[-3] == 3:
        return cond_fn(fixed_order, input, factors)

    order = fixed_order if fixed_order is not None else params["order"].tolist()
    output = input
    for idx in order:
        if (factors[idx] != neutral[idx]).any():
            output = steps[idx](output, factors[idx])
    return output if output is not input else input.clone()


class PhotometricAugment(nn.Module):
    def __init__(self, brightness, contrast):
        super().__init__()
        self.brightness = brightness
        self.contrast = contrast
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, images):
        b = images.shape[0]
        params = {
            "brightness_factor": torch.empty(b).uniform_(-self.brightness, self.brightness),
            "contrast_factor": torch.empty(b).uniform_(1 - self.contrast, 1 + self.contrast),
            "order": torch.randperm(2),
        }
        images = _apply_color_steps(images, params, (adjust_brightness, adjust_contrast), (0.0, 1.0))
        return self.stem(images)
