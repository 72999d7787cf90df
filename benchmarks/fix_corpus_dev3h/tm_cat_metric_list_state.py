# spec: {"model": "tm_cat_metric_list_state.py:EmbeddingCollector", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "calls": 3}
from typing import Optional, Union

import torch
from torchmetrics.utilities import rank_zero_warn
from torch import Tensor, nn


class CatState(nn.Module):
    def __init__(self, nan_strategy="disable", dtype=torch.float32):
        super().__init__()
        self.value = []
        self.nan_strategy = nan_strategy
        self.dtype = dtype
        self.register_buffer("_device_anchor", torch.zeros(()))

    @property
    def device(self):
        return self._device_anchor.device

    # vendored from torchmetrics 1.9.0 torchmetrics/aggregation.py
    def _cast_and_nan_check_input(
        self, x: Union[float, Tensor], weight: Optional[Union[float, Tensor]] = None
    ) -> tuple[Tensor, Tensor]:
        if not isinstance(x, Tensor):
            x = torch.as_tensor(x, dtype=self.dtype, device=self.device)
        if weight is not None and not isinstance(weight, Tensor):
            weight = torch.as_tensor(weight, dtype=self.dtype, device=self.device)

        if self.nan_strategy != "disable":
            nans = torch.isnan(x)
            if weight is not None:
                nans_weight = torch.isnan(weight)
            else:
                nans_weight = torch.zeros_like(nans).bool()
                weight = torch.ones_like(x)
            if nans.any() or nans_weight.any():
                if self.nan_strategy == "error":
                    raise RuntimeError("Encountered `nan` values in tensor")
                if self.nan_strategy in ("ignore", "warn"):
                    if self.nan_strategy == "warn":
                        rank_zero_warn("Encountered `nan` values in tensor. Will be removed.", UserWarning)
                    x = x[~(nans | nans_weight)]
                    weight = weight[~(nans | nans_weight)]
                else:
                    if not isinstance(self.nan_strategy, float):
                        raise ValueError(f"`nan_strategy` shall be float but you pass {self.nan_strategy}")
                    x[nans | nans_weight] = self.nan_strategy
                    weight[nans | nans_weight] = 1
        else:
            weight = torch.ones_like(x)
        return x.to(self.dtype), weight.to(self.dtype)

    # vendored from torchmetrics 1.9.0 torchmetrics/aggregation.py
    def update(self, value: Union[float, Tensor]) -> None:
        value, _ = self._cast_and_nan_check_input(value)
        if value.numel():
            self.value.append(value)


class EmbeddingCollector(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.embeddings = CatState()

    def forward(self, x):
        z = self.encoder(x)
        self.embeddings.update(z.detach())
        return torch.cat(self.embeddings.value).mean(0)
