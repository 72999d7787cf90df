# spec: {"model": "kornia_gaussian_blur_sigma_tuple.py:BlurAugment", "init": {"args": [3]}, "inputs": [{"tensor": [2, 3, 12, 12]}, {"tuple": [1.0, 1.0]}], "variants": [{"inputs": [{"tensor": [2, 3, 12, 12]}, {"tuple": [1.5, 1.5]}]}, {"inputs": [{"tensor": [2, 3, 12, 12]}, {"tuple": [2.0, 2.0]}]}]}
import torch
import torch.nn.functional as F
from torch import nn
from kornia.core.check import KORNIA_CHECK, KORNIA_CHECK_IS_TENSOR, KORNIA_CHECK_SAME_SIZE, KORNIA_CHECK_SHAPE
from kornia.core.ops import _device_literal
from kornia.core.utils import _autocast_disabled, _to_device_nonblocking, is_autocast_enabled, is_compiling
from kornia.filters.filter import _to_floating, filter2d, filter2d_separable
from kornia.filters.kernels import _check_kernel_size, _unpack_2d_ks, get_gaussian_kernel1d, get_gaussian_kernel2d
from kornia.filters.gaussian import _gaussian_blur2d

# vendored from kornia 0.9.0 kornia/filters/gaussian.py
def gaussian_blur2d(
    input: torch.Tensor,
    kernel_size: tuple[int, int] | int,
    sigma: tuple[float, float] | torch.Tensor,
    border_type: str = "reflect",
    separable: bool = True,
) -> torch.Tensor:
    KORNIA_CHECK_IS_TENSOR(input)
    KORNIA_CHECK_SHAPE(input, ["B", "C", "H", "W"])
    _check_kernel_size(kernel_size, min_value=0)
    # promote before casting sigma and the kernel to the input's dtype, where an integer dtype truncates them (#5155)
    input = _to_floating(input)

    if input.dtype in (torch.float16, torch.bfloat16):
        if torch.jit.is_scripting():
            return _gaussian_blur2d(input.float(), kernel_size, sigma, border_type, separable).to(input.dtype)
        with _autocast_disabled(input.device.type):
            return _gaussian_blur2d(input.float(), kernel_size, sigma, border_type, separable).to(input.dtype)
    return _gaussian_blur2d(input, kernel_size, sigma, border_type, separable)


class BlurAugment(nn.Module):
    def __init__(self, channels, kernel_size=5):
        super().__init__()
        self.kernel_size = (kernel_size, kernel_size)
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, image, sigma):
        return self.proj(gaussian_blur2d(image, self.kernel_size, sigma))
