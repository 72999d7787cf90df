# spec: {"model": "kn_mixup_class_labels.py:MixUpClassifierStep", "init": {"args": [3, 4]}, "inputs": [{"tensor": [4, 3, 8, 8], "init": "rand"}, {"tensor": [4], "dtype": "int64", "data": [0, 1, 2, 3]}, {"tensor": [4], "data": [0.9, 0.2, 0.7, 0.8]}, {"tensor": [4], "dtype": "int64", "data": [1, 0, 3, 2]}, {"tensor": [4], "data": [0.3, 0.1, 0.5, 0.2]}], "calls": 2}
from typing import Any, Dict, Optional

import torch
from torch import nn


# vendored from kornia 0.9.0 kornia/core/_compat.py (DType) and kornia/augmentation/utils/helpers.py
class DType:
    _CODES = {0: torch.float16, 1: torch.bfloat16, 2: torch.float32, 3: torch.float64}

    @classmethod
    def to_torch(cls, code: int) -> torch.dtype:
        return cls._CODES[code]


def _to_device_nonblocking(x: torch.Tensor, device, dtype=None) -> torch.Tensor:
    return x.to(device=device, dtype=dtype, non_blocking=True)


# vendored from kornia 0.9.0 kornia/augmentation/_2d/mix/mixup.py
class RandomMixUpV2:
    """Apply MixUp augmentation to a batch of tensor images (the apply methods, params sampled upstream)."""

    def apply_transform(
        self, input: torch.Tensor, params: Dict[str, torch.Tensor], maybe_flags: Optional[Dict[str, Any]] = None
    ) -> torch.Tensor:
        input_permute = input.index_select(dim=0, index=_to_device_nonblocking(params["mixup_pairs"], input.device))

        lam = _to_device_nonblocking(params["mixup_lambdas"].view(-1, 1, 1, 1), input.device, input.dtype)
        lam = lam.expand_as(input)
        return input * (1 - lam) + input_permute * lam

    def apply_non_transform_class(
        self, input: torch.Tensor, params: Dict[str, torch.Tensor], maybe_flags: Optional[Dict[str, Any]] = None
    ) -> torch.Tensor:
        image_dtype = DType.to_torch(int(params["dtype"].item()))
        calc_dtype = image_dtype if image_dtype in (torch.float32, torch.float64) else torch.float32
        return torch.stack(
            [
                input.to(device=input.device, dtype=calc_dtype),
                input.to(device=input.device, dtype=calc_dtype),
                torch.zeros((len(input),), device=input.device, dtype=calc_dtype),
            ],
            -1,
        )

    def apply_transform_class(
        self, input: torch.Tensor, params: Dict[str, torch.Tensor], maybe_flags: Optional[Dict[str, Any]] = None
    ) -> torch.Tensor:
        labels_permute = input.index_select(dim=0, index=_to_device_nonblocking(params["mixup_pairs"], input.device))

        image_dtype = DType.to_torch(int(params["dtype"].item()))
        calc_dtype = image_dtype if image_dtype in (torch.float32, torch.float64) else torch.float32
        return torch.stack(
            [
                input.to(device=input.device, dtype=calc_dtype),
                labels_permute.to(device=input.device, dtype=calc_dtype),
                _to_device_nonblocking(params["mixup_lambdas"], input.device, calc_dtype),
            ],
            -1,
        )

    # vendored from kornia 0.9.0 kornia/augmentation/_2d/mix/base.py
    def transform_class(self, input: torch.Tensor, params: Dict[str, torch.Tensor], flags: Dict[str, Any]) -> torch.Tensor:
        batch_prob = params["batch_prob"]
        to_apply = torch.atleast_1d(batch_prob > 0.5)
        if sum(to_apply) == len(to_apply):
            return self.apply_transform_class(input, params, flags)
        if sum(to_apply) == 0:
            return self.apply_non_transform_class(input, params, flags)

        applied = self.apply_transform_class(input, params, flags)
        non_applied = self.apply_non_transform_class(input, params, flags)
        return torch.where(to_apply.view(-1, 1), applied, non_applied)


class MixUpClassifierStep(nn.Module):
    """A classifier's training step with kornia MixUp on images and (label, permuted label, lambda) targets."""

    def __init__(self, channels=3, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, num_classes)
        self.mixup = RandomMixUpV2()

    def forward(self, images, labels, batch_prob, mixup_pairs, mixup_lambdas):
        params = {
            "batch_prob": batch_prob,
            "mixup_pairs": mixup_pairs,
            "mixup_lambdas": mixup_lambdas,
            "dtype": torch.tensor(2),
        }
        lam = torch.where(batch_prob > 0.5, mixup_lambdas, torch.zeros_like(mixup_lambdas))
        mixed = self.mixup.apply_transform(images, {**params, "mixup_lambdas": lam})
        targets = self.mixup.transform_class(labels, params, {})
        logits = self.fc(self.backbone(mixed))
        log_probs = logits.log_softmax(-1)
        y_a = targets[:, 0].long()
        y_b = targets[:, 1].long()
        w = targets[:, 2]
        loss = -((1 - w) * log_probs.gather(1, y_a[:, None]).squeeze(1) + w * log_probs.gather(1, y_b[:, None]).squeeze(1))
        return loss.mean()
