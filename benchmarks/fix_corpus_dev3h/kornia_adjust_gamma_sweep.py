# spec: {"model": "kornia_adjust_gamma_sweep.py:GammaAugment", "init": {"args": [3]}, "inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 0.5], "variants": [{"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 0.6]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 0.7]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 0.8]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 0.9]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 1.1]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 1.2]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 1.3]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 1.4]}, {"inputs": [{"tensor": [2, 3, 8, 8], "init": "rand"}, 1.5]}]}
import struct
from math import pi
from typing import ClassVar, Optional, Union
import torch
import torch.nn.functional as F
from torch import nn
from kornia.color import hsv_to_rgb, rgb_to_grayscale, rgb_to_hsv
from kornia.core._compat import torch_version_ge
from kornia.core.check import KORNIA_CHECK, KORNIA_CHECK_IS_COLOR_OR_GRAY, KORNIA_CHECK_IS_TENSOR, are_checks_enabled
from kornia.core.exceptions import TypeCheckError
from kornia.core.ops import _device_literal
from kornia.core.utils import _normalize_to_float32_or_float64, _to_device_nonblocking, is_compiling
from kornia.image.utils import _to_bcdhw, _to_bchw
from kornia.enhance.adjust import _assert_async_value_check, _check_floating_image, _make_factor_broadcastable

# vendored from kornia 0.9.0 kornia/enhance/adjust.py
def adjust_gamma(
    input: torch.Tensor, gamma: Union[float, torch.Tensor], gain: Union[float, torch.Tensor] = 1.0
) -> torch.Tensor:
    _check_floating_image(input, "adjust_gamma")
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(input)}")

    if not isinstance(gamma, (float, torch.Tensor)):
        raise TypeError(f"The gamma should be a positive float or torch.Tensor. Got {type(gamma)}")

    if not isinstance(gain, (float, torch.Tensor)):
        raise TypeError(f"The gain should be a positive float or torch.Tensor. Got {type(gain)}")

    # Python scalars need no device-side validation or parameter transfers. Half precision
    # keeps the tensor path: rounding a parameter before the operation matters there.
    # Keep invalid values on that path too, including negatives that round to signed zero.
    if not torch.jit.is_scripting():  # noqa: SIM102 - TorchScript must skip the eager-only body
        if (
            not torch.jit.is_tracing()
            and not is_compiling()
            and isinstance(gamma, float)
            and isinstance(gain, float)
            and input.dtype in (torch.float32, torch.float64)
            and input.ndim > 0
        ):
            limits = torch.finfo(input.dtype)
            if 0.0 <= gamma <= limits.max and 0.0 <= gain <= limits.max:
                # Scalar power inspects its exponent before converting to the tensor dtype.
                # Round on the host first, as tensor construction did: near zero/one this
                # affects both the value at black pixels and its gradient. Captured calls
                # retain the tensor expression, which the compiler can constant-fold.
                if input.dtype == torch.float32:
                    gamma = struct.unpack("f", struct.pack("f", gamma))[0]
                    gain = struct.unpack("f", struct.pack("f", gain))[0]
                return (input.pow(gamma) * gain).clamp(0.0, 1.0)

    if isinstance(gamma, float):
        gamma = torch.tensor([gamma], device=input.device, dtype=input.dtype)

    if isinstance(gain, float):
        gain = torch.tensor([gain], device=input.device, dtype=input.dtype)

    gamma = gamma.to(input.device).to(input.dtype)
    gain = gain.to(input.device).to(input.dtype)

    _assert_async_value_check(
        (gamma >= 0.0).all(),
        "Gamma must be non-negative. Clamp it first: max(gamma, 0.0) for floats, gamma.clamp_min(0.0) for tensors.",
    )
    _assert_async_value_check(
        (gain >= 0.0).all(),
        "Gain must be non-negative. Clamp it first: max(gain, 0.0) for floats, gain.clamp_min(0.0) for tensors.",
    )

    gamma = _make_factor_broadcastable(gamma, input)
    gain = _make_factor_broadcastable(gain, input)

    # Apply the gamma correction
    x_adjust: torch.Tensor = gain * torch.pow(input, gamma)

    # Truncate between pixel values
    out: torch.Tensor = torch.clamp(x_adjust, 0.0, 1.0)

    return out


class GammaAugment(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.stem = nn.Conv2d(channels, channels, 1)

    def forward(self, image, gamma):
        image = adjust_gamma(image, gamma, gain=1.0)
        return self.stem(image)
