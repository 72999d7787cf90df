# spec: {"model": "gp_memoize_cache.py:PredictiveCache", "init": {"args": [5]}, "inputs": [{"tensor": [8, 5]}], "calls": 2}
import functools
import pickle

import torch
from torch import nn

# vendored from gpytorch 1.15.2 gpytorch/utils/memoize.py
# (the `cached` decorator honouring call args, as ExactPredictionStrategy uses it)


class CachingError(RuntimeError):
    pass


def cached(method=None, name=None, ignore_args=False):
    """A decorator allowing for specifying the name of a cache, allowing it to be modified elsewhere."""
    if ignore_args:
        raise NotImplementedError
    return _cached(method=method, name=name)


def _cached(method=None, name=None):
    if method is None:
        return functools.partial(_cached, name=name)

    @functools.wraps(method)
    def g(self, *args, **kwargs):
        cache_name = name if name is not None else method.__qualname__
        kwargs_pkl = pickle.dumps(kwargs)
        if not _is_in_cache(self, cache_name, *args, kwargs_pkl=kwargs_pkl):
            return _add_to_cache(self, cache_name, method(self, *args, **kwargs), *args, kwargs_pkl=kwargs_pkl)
        return _get_from_cache(self, cache_name, *args, kwargs_pkl=kwargs_pkl)

    return g


def _add_to_cache(obj, name, val, *args, kwargs_pkl):
    """Add a result to the cache of an object (honoring calling args)."""
    if not hasattr(obj, "_memoize_cache"):
        obj._memoize_cache = {}
    obj._memoize_cache[(name, args, kwargs_pkl)] = val
    return val


def _get_from_cache(obj, name, *args, kwargs_pkl):
    """Get an item from the cache (honoring calling args)."""
    try:
        return obj._memoize_cache[(name, args, kwargs_pkl)]
    except (AttributeError, KeyError):
        raise CachingError(f"Object does not have item {name} stored in cache.")


def _is_in_cache(obj, name, *args, kwargs_pkl):
    return hasattr(obj, "_memoize_cache") and (name, args, kwargs_pkl) in obj._memoize_cache


class PredictiveCache(nn.Module):
    """The predictive mean of an exact GP with a fixed training set, its mean cache memoized."""

    def __init__(self, dim, num_train=12):
        super().__init__()
        self.register_buffer("train_x", torch.randn(num_train, dim))
        self.register_buffer("train_y", torch.randn(num_train))
        self.log_lengthscale = nn.Parameter(torch.zeros(()))
        self.noise = 0.1

    def kernel(self, a, b):
        return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / self.log_lengthscale.exp().pow(2))

    @cached(name="mean_cache")
    def mean_cache(self, jitter=1e-4):
        train_train = self.kernel(self.train_x, self.train_x)
        eye = torch.eye(train_train.shape[-1], dtype=train_train.dtype)
        L = torch.linalg.cholesky(train_train + (self.noise + jitter) * eye)
        return torch.cholesky_solve(self.train_y.unsqueeze(-1), L).squeeze(-1)

    def forward(self, x):
        test_train = self.kernel(x, self.train_x)
        return test_train @ self.mean_cache(jitter=1e-4)
