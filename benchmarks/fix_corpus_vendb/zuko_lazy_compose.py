# spec: {"model": "zuko_lazy_compose.py:ConditionalAffineFlow", "init": {"args": [3, 2]}, "inputs": [{"tensor": [5, 3]}, {"tensor": [5, 2]}]}
import torch
from torch import nn
from torch.distributions import constraints

# vendored from zuko 1.6.0 zuko/transforms.py and zuko/lazy.py
# (ComposedTransform.__init__ and call_and_ladj, LazyComposedTransform.forward; the lazy
# elements are conditional elementwise affine maps as zuko's MonotonicAffineTransform)


class MonotonicAffineTransform(nn.Module):
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, shift, scale):
        super().__init__()
        self.shift = shift
        self.log_scale = torch.tanh(scale) * 3.0

    def call_and_ladj(self, x):
        return x * self.log_scale.exp() + self.shift, self.log_scale


class ComposedTransform(nn.Module):
    def __init__(self, *transforms, **kwargs):
        super().__init__(**kwargs)

        assert transforms, "'transforms' cannot be empty"

        event_dim = 0

        for t in reversed(transforms):
            event_dim = t.domain.event_dim + max(event_dim - t.codomain.event_dim, 0)

        self.domain_dim = event_dim

        for t in transforms:
            event_dim += t.codomain.event_dim - t.domain.event_dim

        self.codomain_dim = event_dim
        self.transforms = transforms

    def call_and_ladj(self, x):
        event_dim = self.domain_dim
        acc = 0
        for t in self.transforms:
            x, ladj = t.call_and_ladj(x)
            acc = acc + ladj.sum(dim=-1) if event_dim > 0 or ladj.dim() > 1 else acc + ladj
            event_dim += t.codomain.event_dim - t.domain.event_dim
        return x, acc


class LazyAffine(nn.Module):
    def __init__(self, features, context):
        super().__init__()
        self.hyper = nn.Linear(context, 2 * features)

    def forward(self, c):
        shift, scale = self.hyper(c).chunk(2, dim=-1)
        return MonotonicAffineTransform(shift, scale)


class LazyComposedTransform(nn.Module):
    def __init__(self, *transforms):
        super().__init__()
        self.transforms = nn.ModuleList(transforms)

    def forward(self, c=None):
        return ComposedTransform(*(t(c) for t in self.transforms))


class ConditionalAffineFlow(nn.Module):
    def __init__(self, features, context, transforms=3):
        super().__init__()
        self.transform = LazyComposedTransform(*(LazyAffine(features, context) for _ in range(transforms)))

    def forward(self, x, c):
        z, ladj = self.transform(c).call_and_ladj(x)
        return -0.5 * (z**2).sum(-1) + ladj
