# spec: {"model": "clean_nflows_sum_except_batch_affine.py:AffineCouplingStack", "init": {"args": [6, 2]}, "inputs": [{"tensor": [4, 6]}]}
import torch
import torch.nn.functional as F
from torch import nn


# vendored from nflows 0.14 nflows/utils/torchutils.py
def sum_except_batch(x, num_batch_dims=1):
    """Sums all elements of `x` except for the first `num_batch_dims` dimensions."""
    reduce_dims = list(range(num_batch_dims, x.ndimension()))
    return torch.sum(x, dim=reduce_dims)


# vendored from nflows 0.14 nflows/transforms/coupling.py (AffineCouplingTransform._coupling_transform_forward)
class AffineCouplingTransform(nn.Module):
    def __init__(self, mask, hidden_features, scale_activation=None):
        super().__init__()
        mask = torch.as_tensor(mask)
        features_vector = torch.arange(mask.numel())
        self.register_buffer("identity_features", features_vector.masked_select(mask <= 0))
        self.register_buffer("transform_features", features_vector.masked_select(mask > 0))
        self.num_identity_features = len(self.identity_features)
        self.num_transform_features = len(self.transform_features)
        self.transform_net = nn.Sequential(
            nn.Linear(self.num_identity_features, hidden_features),
            nn.ReLU(),
            nn.Linear(hidden_features, self.num_transform_features * 2),
        )
        self.scale_activation = scale_activation or (lambda x: F.softplus(x) + 1e-3)

    def _scale_and_shift(self, transform_params):
        unconstrained_scale = transform_params[:, self.num_transform_features:, ...]
        shift = transform_params[:, : self.num_transform_features, ...]
        scale = self.scale_activation(unconstrained_scale)
        return scale, shift

    def forward(self, inputs, context=None):
        identity_split = inputs[:, self.identity_features, ...]
        transform_split = inputs[:, self.transform_features, ...]

        transform_params = self.transform_net(identity_split)
        scale, shift = self._scale_and_shift(transform_params)
        log_scale = torch.log(scale)
        transform_split = transform_split * scale + shift
        logabsdet = sum_except_batch(log_scale, num_batch_dims=1)

        outputs = torch.empty_like(inputs)
        outputs[:, self.identity_features, ...] = identity_split
        outputs[:, self.transform_features, ...] = transform_split

        return outputs, logabsdet


class AffineCouplingStack(nn.Module):
    def __init__(self, features, num_layers):
        super().__init__()
        masks = [torch.arange(features) % 2 == (i % 2) for i in range(num_layers)]
        self.layers = nn.ModuleList([AffineCouplingTransform(m.long(), 16) for m in masks])

    def forward(self, x):
        total = x.new_zeros(x.shape[0])
        for layer in self.layers:
            x, logabsdet = layer(x)
            total = total + logabsdet
        return x, total
