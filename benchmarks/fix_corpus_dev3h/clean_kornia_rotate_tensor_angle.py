# spec: {"model": "clean_kornia_rotate_tensor_angle.py:RotateAugment", "init": {"args": [3]}, "inputs": [{"tensor": [2, 3, 8, 8]}, {"tensor": [2], "init": "rand"}], "variants": [{"inputs": [{"tensor": [2, 3, 8, 8]}, {"tensor": [2], "init": "rand"}]}, {"inputs": [{"tensor": [2, 3, 8, 8]}, {"tensor": [2], "init": "ones"}]}]}
import numbers
from typing import Optional, Tuple, Union
import torch
from torch import nn
from kornia.core.ops import _device_literal, eye_like
from kornia.core.utils import _extract_device_dtype
from kornia.filters import gaussian_blur2d
from kornia.geometry.transform.imgwarp import get_affine_matrix2d, get_projective_transform, get_rotation_matrix2d, warp_affine, warp_affine3d
from kornia.geometry.transform.affwarp import _compute_rotation_matrix, _compute_tensor_center, affine

# vendored from kornia 0.9.0 kornia/geometry/transform/affwarp.py
def rotate(
    tensor: torch.Tensor,
    angle: torch.Tensor,
    center: Union[torch.Tensor, None] = None,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool = True,
) -> torch.Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"Input tensor type is not a torch.Tensor. Got {type(tensor)}")

    if not isinstance(angle, torch.Tensor):
        raise TypeError(f"Input angle type is not a torch.Tensor. Got {type(angle)}")

    if center is not None and not isinstance(center, torch.Tensor):
        raise TypeError(f"Input center type is not a torch.Tensor. Got {type(center)}")

    if len(tensor.shape) not in (3, 4):
        raise ValueError(f"Invalid tensor shape, we expect CxHxW or BxCxHxW. Got: {tensor.shape}")

    # compute the rotation center
    if center is None:
        center = _compute_tensor_center(tensor)

    # compute the rotation matrix
    # TODO: add broadcasting to get_rotation_matrix2d for center
    # A singleton angle and center describe one transform shared by all images. Keep
    # it singleton through affine so warp_affine can reuse its sampling grid. Trainable
    # parameters keep the original reduction order, which matters for half-precision gradients.
    batch = tensor.shape[0] if tensor.dim() == 4 else 1
    if (
        tensor.dim() == 4
        and batch > 0
        and angle.shape == (1,)
        and not angle.requires_grad
        and not center.requires_grad
        and (center.shape == (2,) or center.shape == (1, 2))  # noqa: PLR1714 - TorchScript shape checks
        and not torch.jit.is_tracing()
    ):
        batch = 1
    angle = angle.expand(batch)
    center = center.expand(batch, -1)
    rotation_matrix: torch.Tensor = _compute_rotation_matrix(angle, center)

    # warp using the affine transform
    return affine(tensor, rotation_matrix[..., :2, :3], mode, padding_mode, align_corners)


class RotateAugment(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, image, angle):
        return self.proj(rotate(image, angle * 30.0, mode="bilinear"))
