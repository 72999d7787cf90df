# spec: {"model": "kn_canny_hysteresis_edges.py:EdgeMapHead", "inputs": [{"tensor": [2, 1, 16, 16], "init": "rand"}], "calls": 2}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from kornia 0.9.0 kornia/filters/kernels.py
def get_hysteresis_kernel(device=None, dtype=None) -> torch.Tensor:
    """Return the 3x3 kernels for the Canny hysteresis."""
    return torch.tensor(
        [
            [[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]],
            [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]],
            [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
            [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]],
            [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
            [[[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
            [[[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
            [[[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
        ],
        device=device,
        dtype=dtype,
    )


# vendored from kornia 0.9.0 kornia/filters/canny.py
def _hysteresis_step(edges: torch.Tensor, hysteresis_kernels: torch.Tensor) -> torch.Tensor:
    # One round of edge tracking: a weak pixel (0.5) with a strong (1) 8-neighbour becomes strong.
    weak = (edges == 0.5).to(edges.dtype)
    strong = (edges == 1).to(edges.dtype)
    hysteresis_magnitude = F.conv2d(edges, hysteresis_kernels, padding=1)
    hysteresis_magnitude = (hysteresis_magnitude == 1).any(1, keepdim=True).to(edges.dtype)
    hysteresis_magnitude = hysteresis_magnitude * weak + strong
    return hysteresis_magnitude + (hysteresis_magnitude == 0) * weak * 0.5


def canny_thresholds(magnitude, low_threshold=0.1, high_threshold=0.2, hysteresis=True):
    """The threshold and hysteresis stages of kornia.filters.canny, on a precomputed magnitude."""
    device = magnitude.device
    dtype = magnitude.dtype

    low: torch.Tensor = magnitude > low_threshold
    high: torch.Tensor = magnitude > high_threshold

    edges = ((low.to(dtype) + high.to(dtype)) * 0.5).to(dtype)

    # Hysteresis
    if hysteresis:
        hysteresis_kernels: torch.Tensor = get_hysteresis_kernel(device, dtype)

        edges_old = -torch.ones_like(edges)
        while ((edges_old - edges).abs() != 0).any():
            edges_old = edges
            edges = _hysteresis_step(edges, hysteresis_kernels)

        # The weak pixels left touch no strong pixel.
        edges = (edges == 1).to(dtype)

    return magnitude, edges


class EdgeMapHead(nn.Module):
    """Sobel magnitude of a grayscale image and its Canny edge map (thresholds and hysteresis as kornia does)."""

    def __init__(self, low_threshold=0.3, high_threshold=0.6):
        super().__init__()
        sobel = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8.0
        self.register_buffer("kernel", torch.stack([sobel, sobel.t()]).unsqueeze(1))
        self.low_threshold = low_threshold
        self.high_threshold = high_threshold

    def forward(self, image):
        grads = F.conv2d(F.pad(image, (1, 1, 1, 1), mode="replicate"), self.kernel)
        magnitude = torch.sqrt(grads.pow(2).sum(1, keepdim=True) + 1e-6) * 4.0
        return canny_thresholds(magnitude, self.low_threshold, self.high_threshold)
