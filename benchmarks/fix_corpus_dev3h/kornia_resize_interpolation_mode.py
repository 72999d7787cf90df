# spec: {"model": "kornia_resize_interpolation_mode.py:MultiScaleStem", "init": {"args": [3]}, "inputs": [{"tensor": [1, 3, 16, 16]}], "kwargs": {"interpolation": "bilinear"}, "variants": [{"inputs": [{"tensor": [1, 3, 16, 16]}], "kwargs": {"interpolation": "nearest"}}]}
import numbers
from typing import Optional, Tuple, Union
import torch
from torch import nn
from kornia.core.ops import _device_literal, eye_like
from kornia.core.utils import _extract_device_dtype
from kornia.filters import gaussian_blur2d
from kornia.geometry.transform.imgwarp import get_affine_matrix2d, get_projective_transform, get_rotation_matrix2d, warp_affine, warp_affine3d
from kornia.geometry.transform.affwarp import _side_to_image_size

# vendored from kornia 0.9.0 kornia/geometry/transform/affwarp.py
def resize(
    input: torch.Tensor,
    size: Union[int, Tuple[int, int]],
    interpolation: str = "bilinear",
    align_corners: Optional[bool] = None,
    side: str = "short",
    antialias: bool = False,
) -> torch.Tensor:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input tensor type is not a torch.Tensor. Got {type(input)}")

    if len(input.shape) < 2:
        raise ValueError(f"Input tensor must have at least two dimensions. Got {len(input.shape)}")
    # Every input is resampled as a 4-D (B, C, H, W) batch, for which F.interpolate rejects the 1-D and 3-D modes.
    if interpolation in ("linear", "trilinear"):
        raise ValueError(
            f"interpolation={interpolation!r} is not supported: resize resamples (H, W), so use 'nearest', "
            "'nearest-exact', 'bilinear', 'bicubic' or 'area'."
        )

    original_shape = input.shape
    h, w = input.shape[-2:]

    if isinstance(size, int):
        if h <= 0 or w <= 0:
            # An int size names one side and takes the other from the aspect ratio, which a
            # degenerate input does not have. Reject it with the message the warping ops use,
            # rather than letting the division below fail with a bare ZeroDivisionError.
            raise ValueError(f"Input image size must be positive. Got height={h}, width={w}.")
        aspect_ratio = w / h
        size = _side_to_image_size(size, aspect_ratio, side)
    if len(original_shape) == 2:
        # (H, W) -> (1, 1, H, W)
        input = input.unsqueeze(0).unsqueeze(0)
    elif len(original_shape) == 3:
        # (C, H, W) -> (1, C, H, W)
        input = input.unsqueeze(0)
    elif len(original_shape) > 4:
        # Flatten all leading dims: (*, C, H, W) -> (B, C, H, W)
        batch_size = 1
        for d in original_shape[:-3]:
            batch_size *= d
        input = input.reshape(batch_size, *original_shape[-3:])

    if size[0] == 0 or size[1] == 0:
        # An output side of zero gives an empty image, matching warp_affine,
        # warp_perspective and center_crop -- including when the input is empty as well,
        # which is why this runs ahead of the positive-size check below. The result is
        # built directly: the scale factors would divide by zero, and
        # torch.nn.functional.interpolate rejects a zero-sized output outright.
        #
        # It is routed through the input so the empty result keeps its autograd link, the
        # way _empty_warp_output_2d does for the warping ops. sum() promotes an integer
        # input to int64, so the accumulation dtype is pinned to the input's.
        zero = input.reshape(-1)[:1].sum(dtype=input.dtype) * 0
        output = zero.reshape(*([1] * input.dim())).expand(*input.shape[:-2], size[0], size[1])
    elif h <= 0 or w <= 0:
        raise ValueError(f"Input image size must be positive. Got height={h}, width={w}.")
    else:
        factors = (h / size[0], w / size[1])
        antialias = antialias and (max(factors) > 1)

        if antialias:
            sigmas = (max((factors[0] - 1.0) / 2.0, 0.001), max((factors[1] - 1.0) / 2.0, 0.001))

            ks = int(max(2.0 * 2 * sigmas[0], 3)), int(max(2.0 * 2 * sigmas[1], 3))

            ks = (ks[0] if ks[0] % 2 else ks[0] + 1, ks[1] if ks[1] % 2 else ks[1] + 1)
            # A singleton axis has nothing to smooth and cannot accept reflection padding.
            ks = (1 if h == 1 else ks[0], 1 if w == 1 else ks[1])

            input = gaussian_blur2d(input, ks, sigmas)

        if interpolation == "nearest-exact" and torch.onnx.is_in_onnx_export():
            # The TorchScript ONNX exporter has no symbolic for ``nearest-exact``; gather the
            # half-pixel indices ``floor((i + 0.5) * in / out)`` that ``interpolate`` samples.
            for dim, (in_size, out_size) in zip((-2, -1), ((h, size[0]), (w, size[1]))):
                index = ((torch.arange(out_size, device=input.device) + 0.5) * (in_size / out_size)).floor()
                input = input.index_select(dim, index.long().clamp(max=in_size - 1))
            output = input
        else:
            output = torch.nn.functional.interpolate(input, size=size, mode=interpolation, align_corners=align_corners)

    if len(original_shape) == 2:
        output = output[0, 0]
    elif len(original_shape) == 3:
        output = output[0]
    elif len(original_shape) > 4:
        output = output.reshape(*original_shape[:-2], size[0], size[1])

    return output


class MultiScaleStem(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, 8, 3, padding=1)

    def forward(self, image, interpolation="bilinear"):
        image = resize(image, (8, 8), interpolation=interpolation)
        return self.conv(image)
